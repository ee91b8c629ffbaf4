"""What hipport wrote into OUT last time, so converting again into the same OUT is safe and quiet.

``OUT/hipport-manifest.json`` records, for every file a conversion wrote, the SHA-256 of the
bytes it wrote. The next conversion into that OUT uses it to:

* leave an output whose new content equals the file on disk untouched (its modification time
  stays, so a build of the port does not recompile it);
* keep an output that was edited by hand since hipport wrote it (its bytes no longer match the
  record), reporting it (HP0005 ``output-edited``) instead of overwriting it, unless ``--force``;
* remove the outputs of sources that were deleted or renamed since (a stale ``old.hip`` next to
  ``new.hip`` would be compiled twice by a ``file(GLOB ...)`` build), except an edited one, which
  is kept and reported (HP0006 ``stale-output-kept``), unless ``--force``.

Without a manifest (a first conversion, or an OUT written by hipport 0.1.0 before manifests)
existing files of the same names are replaced, as before. The reports themselves
(``hipport-report.md``/``.json``) are always rewritten when they change.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

from .emit import atomic_write

MANIFEST_NAME = "hipport-manifest.json"
MANIFEST_SCHEMA = "hipport-manifest"
MANIFEST_VERSION = 1

#: What :meth:`OutputGuard.write` did with one output.
WRITTEN, UNCHANGED, KEPT_EDITED = "written", "unchanged", "kept-edited"


class ManifestError(ValueError):
    """``OUT/hipport-manifest.json`` exists but is not a manifest hipport can read."""


def digest(data: bytes) -> str:
    """SHA-256 of ``data``, as lowercase hex."""
    return hashlib.sha256(data).hexdigest()


def read_manifest(out: Path) -> dict[str, str] | None:
    """The outputs recorded in ``out``'s manifest: path relative to OUT (``/``) -> SHA-256, or
    None when OUT has no manifest.

    Raises:
        ManifestError: the file is unreadable, not JSON or not a hipport manifest (the message
            names it and says how to go on).
    """
    path = out / MANIFEST_NAME
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as error:
        raise ManifestError(f"{path}: cannot read hipport's manifest ({error.strerror})") from None
    try:
        document = json.loads(raw)
        if document.get("schema") != MANIFEST_SCHEMA or document.get("schema_version") != MANIFEST_VERSION:
            raise ValueError("not a hipport manifest of this version")
        outputs = document["outputs"]
        if not all(isinstance(k, str) and isinstance(v, str) for k, v in outputs.items()):
            raise ValueError("malformed entries")
    except (ValueError, AttributeError, KeyError, TypeError) as error:
        raise ManifestError(f"{path}: not a hipport manifest ({error}); delete it to convert into this folder "
                            "as into a new one") from None
    return dict(outputs)


@dataclass
class OutputGuard:
    """Writes outputs into OUT, guided by the previous manifest (see the module docstring).

    Attributes:
        out: the output folder.
        previous: the previous manifest's records (None: OUT has none).
        force: replace edited outputs and remove edited stale ones too (``--force``).
        written: records of this conversion (path relative to OUT -> SHA-256), filled in by
            :meth:`write` and :meth:`record`; an edited output that is kept keeps its old record.
    """

    out: Path
    previous: dict[str, str] | None = None
    force: bool = False
    written: dict[str, str] = field(default_factory=dict)

    def write(self, rel: str, data: bytes, mode: int | None = None) -> str:
        """Write ``data`` to ``OUT/rel`` unless it already holds exactly that (:data:`UNCHANGED`)
        or was edited by hand since the last conversion (:data:`KEPT_EDITED`, without ``force``).

        Returns:
            :data:`WRITTEN`, :data:`UNCHANGED` or :data:`KEPT_EDITED`.

        Raises:
            OSError: as :func:`hipport.emit.atomic_write`.
        """
        path = self.out / rel
        new_digest = digest(data)
        try:
            current = path.read_bytes() if path.is_file() else None
        except OSError:
            current = None
        if current is not None:
            if current == data:
                self.written[rel] = new_digest
                return UNCHANGED
            if not self.force and self.previous is not None:
                recorded = self.previous.get(rel)
                if recorded is None or digest(current) != recorded:
                    # edited since hipport wrote it, or a file of the user's that hipport never wrote
                    if recorded is not None:
                        self.written[rel] = recorded
                    return KEPT_EDITED
        atomic_write(path, data, mode)
        self.written[rel] = new_digest
        return WRITTEN

    def stale_outputs(self) -> tuple[list[str], list[str]]:
        """Remove the outputs the previous conversion wrote and this one did not (their sources
        were deleted or renamed, or are now excluded); call after every output is written.

        Returns:
            (removed, kept): paths relative to OUT; ``kept`` are outputs edited since hipport
            wrote them (without ``force``), left in place and still recorded.
        """
        removed, kept = [], []
        for rel, recorded in sorted((self.previous or {}).items()):
            if rel in self.written:
                continue
            path = self.out / rel
            try:
                current = path.read_bytes()
            except OSError:
                continue  # already gone (or not a file any more): nothing to remove
            if not self.force and digest(current) != recorded:
                kept.append(rel)
                self.written[rel] = recorded
                continue
            path.unlink()
            removed.append(rel)
            folder = path.parent
            while folder != self.out and folder.is_dir() and not any(folder.iterdir()):
                folder.rmdir()  # a folder left empty by the removal goes too
                folder = folder.parent
        return removed, kept

    def save(self) -> None:
        """Write ``OUT/hipport-manifest.json`` with this conversion's records (atomically)."""
        document = {"schema": MANIFEST_SCHEMA, "schema_version": MANIFEST_VERSION,
                    "outputs": dict(sorted(self.written.items()))}
        atomic_write(self.out / MANIFEST_NAME, (json.dumps(document, indent=1) + "\n").encode())

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

Since schema version 2 the manifest also holds what ``convert`` needs to skip the work for the
sources that did not change (key ``incremental``, read and written by :mod:`hipport.incremental`):
a manifest of version 1 is still read (its outputs), and converting then ports every file once.

It holds as well (key ``stamps``, :class:`Stamps`) what ``stat`` said of each source and output
whose SHA-256 the conversion knew: size, modification and status-change times (ns), inode and
device. A file whose ``stat`` says exactly that again is taken to hold the same bytes without
being read (``git`` decides which files to hash again the same way): a re-run of an unchanged
tree reads none of its sources and outputs. These are the only values of the manifest that
differ between two conversions of the same tree into two folders.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from .emit import atomic_write

MANIFEST_NAME = "hipport-manifest.json"
MANIFEST_SCHEMA = "hipport-manifest"
MANIFEST_VERSION = 2
#: Versions this hipport reads (version 1 has no ``incremental`` record).
READABLE_VERSIONS = (1, 2)

#: What :meth:`OutputGuard.write` did with one output.
WRITTEN, UNCHANGED, KEPT_EDITED = "written", "unchanged", "kept-edited"


class ManifestError(ValueError):
    """``OUT/hipport-manifest.json`` exists but is not a manifest hipport can read."""


def digest(data: bytes) -> str:
    """SHA-256 of ``data``, as lowercase hex."""
    return hashlib.sha256(data).hexdigest()


def stamp_of(info: os.stat_result) -> tuple[int, int, int, int, int]:
    """A file's stamp: ``(st_size, st_mtime_ns, st_ctime_ns, st_ino, st_dev)`` of its ``stat``.

    Writing a file changes its modification time and its status-change time; the status-change
    time cannot be set back (``os.utime`` and ``touch -r`` change it too), and a copy or an
    editor's replacement is another inode, so a file whose stamp is as recorded has not been
    written since (but see :class:`Stamps` for a write within the same clock tick)."""
    return (info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino, info.st_dev)


#: The areas of :class:`Stamps`: SRC's files (paths relative to SRC) and OUT's (relative to OUT).
SOURCE, OUTPUT = "src", "out"


@dataclass
class Stamps:
    """The SHA-256 of files known from their stamp (:func:`stamp_of`), so that a re-run does not
    read and hash a file that was not written since the last conversion saw it.

    A recorded stamp is trusted only when its modification time is before the manifest's own
    (``trusted_before_ns``), the rule by which ``git`` tells "racily clean" index entries
    (Documentation/technical/racy-git.txt of git): a file written again within the same tick of
    the file system's clock as the write the stamp saw keeps its modification time, but it
    cannot be so after the manifest was saved in a later tick; a stamp of the manifest's tick is
    checked by reading the file, as without a stamp. What is left is the case git leaves: a file
    written a second time, to the same size, within the tick of the write a stamp recorded and
    before the manifest is saved.

    Attributes:
        previous: area (:data:`SOURCE`, :data:`OUTPUT`) -> path -> ``[size, mtime_ns, ctime_ns,
            inode, device, sha256]`` as the last conversion recorded them.
        trusted_before_ns: the modification time (ns) of the manifest that holds ``previous``
            (0: none).
        fresh: the same for this conversion, filled by :meth:`note`; :meth:`document` writes it.
    """

    previous: dict[str, dict[str, list]] = field(default_factory=dict)
    trusted_before_ns: int = 0
    fresh: dict[str, dict[str, list]] = field(default_factory=lambda: {SOURCE: {}, OUTPUT: {}})

    def known(self, area: str, rel: str, stamp: tuple[int, ...]) -> str | None:
        """The recorded SHA-256 of ``rel`` in ``area`` when its recorded stamp equals ``stamp``
        and is trusted (see the class docstring); None: read the file. A hit is kept in
        :attr:`fresh`."""
        entry = self.previous.get(area, {}).get(rel)
        if (type(entry) is not list or len(entry) != 6 or tuple(entry[:5]) != stamp or type(entry[5]) is not str
                or stamp[1] >= self.trusted_before_ns):
            return None
        self.fresh[area][rel] = entry
        return entry[5]

    def note(self, area: str, rel: str, stamp: tuple[int, ...], sha: str) -> None:
        """Record that ``rel`` in ``area`` had the bytes of SHA-256 ``sha`` when ``stat`` said
        ``stamp`` (taken before the bytes were read, or after hipport wrote them)."""
        self.fresh[area][rel] = [*stamp, sha]

    def forget(self, area: str, rel: str) -> None:
        """Record nothing for ``rel`` in ``area`` (a file this conversion did not keep)."""
        self.fresh[area].pop(rel, None)

    def document(self, outputs) -> dict:
        """What to save under ``stamps``: this conversion's stamps, an output's only when it
        is among ``outputs`` (the manifest's records), sorted."""
        return {SOURCE: dict(sorted(self.fresh[SOURCE].items())),
                OUTPUT: dict(sorted((rel, entry) for rel, entry in self.fresh[OUTPUT].items() if rel in outputs))}

    def merge(self, area: str, entries: dict[str, list]) -> None:
        """Add the stamps a worker process recorded (``entries``: path -> entry of :attr:`fresh`)."""
        self.fresh[area].update(entries)


def _stamps_of(document: dict, manifest_mtime_ns: int) -> Stamps:
    """The :class:`Stamps` of a manifest's ``stamps`` value (anything else: none)."""
    recorded = document.get("stamps")
    if not isinstance(recorded, dict):
        return Stamps()
    areas = {area: entries for area, entries in recorded.items()
             if area in (SOURCE, OUTPUT) and isinstance(entries, dict)}
    return Stamps(areas, manifest_mtime_ns)


@dataclass
class Manifest:
    """A manifest as read from OUT.

    Attributes:
        outputs: path relative to OUT (``/``) -> SHA-256 of what hipport wrote there.
        incremental: the record of the last conversion that lets the next one skip unchanged
            sources (:mod:`hipport.incremental`; its own checks decide whether it is usable), or
            None (a version-1 manifest, or one written by ``convert --compat`` or with
            ``--precise``).
        stamps: the files' stamps it recorded (:class:`Stamps`; empty when none).
    """

    outputs: dict[str, str]
    incremental: dict | None = None
    stamps: Stamps = field(default_factory=Stamps)


def load_manifest(out: Path) -> Manifest | None:
    """The manifest of ``out``, or None when OUT has none.

    Raises:
        ManifestError: the file is unreadable, not JSON or not a hipport manifest of a version
            this hipport reads (:data:`READABLE_VERSIONS`; the message names it and says how to
            go on). An ``incremental`` record that is not a JSON object is left out (None), not
            an error: the conversion then ports every file.
    """
    path = out / MANIFEST_NAME
    try:
        with path.open("rb") as stream:
            mtime_ns = os.fstat(stream.fileno()).st_mtime_ns
            raw = stream.read()
    except FileNotFoundError:
        return None
    except OSError as error:
        raise ManifestError(f"{path}: cannot read hipport's manifest ({error.strerror})") from None
    try:
        document = json.loads(raw)
        if document.get("schema") != MANIFEST_SCHEMA or document.get("schema_version") not in READABLE_VERSIONS:
            raise ValueError("not a hipport manifest of this version")
        outputs = document["outputs"]
        if not all(isinstance(k, str) and isinstance(v, str) for k, v in outputs.items()):
            raise ValueError("malformed entries")
    except (ValueError, AttributeError, KeyError, TypeError) as error:
        raise ManifestError(f"{path}: not a hipport manifest ({error}); delete it to convert into this folder "
                            "as into a new one") from None
    incremental = document.get("incremental")
    return Manifest(dict(outputs), incremental if isinstance(incremental, dict) else None,
                    _stamps_of(document, mtime_ns))


def read_manifest(out: Path) -> dict[str, str] | None:
    """The outputs recorded in ``out``'s manifest (:attr:`Manifest.outputs`), or None when OUT
    has no manifest.

    Raises:
        ManifestError: as :func:`load_manifest`.
    """
    manifest = load_manifest(out)
    return None if manifest is None else manifest.outputs


@dataclass
class OutputGuard:
    """Writes outputs into OUT, guided by the previous manifest (see the module docstring).

    Attributes:
        out: the output folder.
        previous: the previous manifest's records (None: OUT has none).
        force: replace edited outputs and remove edited stale ones too (``--force``).
        written: records of this conversion (path relative to OUT -> SHA-256), filled in by
            :meth:`write` and :meth:`write_known`; an edited output that is kept keeps its old
            record.
        on_disk: SHA-256 of what each output of this conversion holds now (differs from
            ``written`` for an edited output that is kept); filled in by :meth:`write` and
            :meth:`write_known`, not by the workers' copies of the guard.
        incremental: the record :meth:`save` writes under ``incremental`` (None: none).
        stamps: the files' stamps (:class:`Stamps`): an output whose stamp is as recorded is
            not read to learn what it holds, and :meth:`save` records the stamps of this
            conversion's outputs (and of the sources the caller noted); None: no stamps are
            used or saved.
    """

    out: Path
    previous: dict[str, str] | None = None
    force: bool = False
    written: dict[str, str] = field(default_factory=dict)
    on_disk: dict[str, str] = field(default_factory=dict)
    incremental: dict | None = None
    stamps: Stamps | None = None

    def write(self, rel: str, data: bytes, mode: int | None = None, data_digest: str | None = None) -> str:
        """Write ``data`` to ``OUT/rel`` unless it already holds exactly that (:data:`UNCHANGED`)
        or was edited by hand since the last conversion (:data:`KEPT_EDITED`, without ``force``).
        ``data_digest``: the SHA-256 of ``data`` when the caller has it (:func:`digest`; a copied
        source's is its source digest), so that it is not computed again; None: computed here.
        OUT's file is known to hold ``data`` when its SHA-256 is ``data_digest``.

        Returns:
            :data:`WRITTEN`, :data:`UNCHANGED` or :data:`KEPT_EDITED`.

        Raises:
            OSError: as :func:`hipport.emit.atomic_write`.
        """
        new_digest = digest(data) if data_digest is None else data_digest
        status = self._decide(rel, new_digest)
        if status is None:
            path = self.out / rel
            atomic_write(path, data, mode)
            self.written[rel] = self.on_disk[rel] = new_digest
            if self.stamps is not None:
                self.stamps.note(OUTPUT, rel, stamp_of(os.stat(path)), new_digest)
            return WRITTEN
        return status

    def write_known(self, rel: str, data_digest: str) -> str | None:
        """What :meth:`write` would do with content whose SHA-256 is ``data_digest``, without the
        content: :data:`UNCHANGED` or :data:`KEPT_EDITED` (recorded as :meth:`write` records
        them), or None when the content must be written (OUT lacks it, or holds an older output
        of hipport's): the caller then makes the content and calls :meth:`write`.
        """
        return self._decide(rel, data_digest)

    def _current_digest(self, rel: str) -> str | None:
        """The SHA-256 of what ``OUT/rel`` holds (None: no such file, or unreadable): from its
        stamp when that is as recorded (:class:`Stamps`), else read (and its stamp noted)."""
        path = self.out / rel
        try:
            info = os.stat(path)
            if not stat.S_ISREG(info.st_mode):
                return None
            stamp = stamp_of(info)
            known = self.stamps.known(OUTPUT, rel, stamp) if self.stamps is not None else None
            if known is not None:
                return known
            current = digest(path.read_bytes())  # read after the stat: a later write changes the stamp
        except OSError:
            return None
        if self.stamps is not None:
            self.stamps.note(OUTPUT, rel, stamp, current)
        return current

    def _decide(self, rel: str, new_digest: str) -> str | None:
        """The decision of :meth:`write` short of writing (None: write)."""
        current_digest = self._current_digest(rel)
        if current_digest is None:
            return None
        if current_digest == new_digest:
            self.written[rel] = self.on_disk[rel] = new_digest
            return UNCHANGED
        if not self.force and self.previous is not None:
            recorded = self.previous.get(rel)
            if recorded is None or current_digest != recorded:
                # edited since hipport wrote it, or a file of the user's that hipport never wrote
                if recorded is not None:
                    self.written[rel] = recorded
                self.on_disk[rel] = current_digest
                return KEPT_EDITED
        return None

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
        """Write ``OUT/hipport-manifest.json`` with this conversion's records, its
        :attr:`incremental` record and its :attr:`stamps` (atomically; not when the file holds
        exactly that already)."""
        document = {"schema": MANIFEST_SCHEMA, "schema_version": MANIFEST_VERSION,
                    "outputs": dict(sorted(self.written.items()))}
        text = json.dumps(document, indent=1)  # one line per output
        compact = {"separators": (",", ":")}
        if self.incremental is not None:  # by far the largest part: compact
            text = text[:-2] + ',\n "incremental": ' + json.dumps(self.incremental, **compact) + "\n}"
        if self.stamps is not None:
            text = text[:-2] + ',\n "stamps": ' + json.dumps(self.stamps.document(self.written), **compact) + "\n}"
        data = (text + "\n").encode()
        path = self.out / MANIFEST_NAME
        try:
            if path.read_bytes() == data:
                return
        except OSError:
            pass
        atomic_write(path, data)

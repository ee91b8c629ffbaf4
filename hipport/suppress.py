"""Which findings are reported: inline suppressions, fingerprints and baselines.

* ``// hipport: ignore[HP1001]`` (or ``ignore[HP1001, HP2003]``, or a bare ``hipport: ignore``
  for every check) on the line of a finding, or alone on the line above it, suppresses it; in
  CMake files and Makefiles the comment is ``# hipport: ignore[HP3003]``.
* A finding's fingerprint hashes its path, check id, CUDA name and the text of its line
  (blanks stripped), so it survives code moving up or down the file.
* A baseline file (``hipport check --write-baseline FILE``) records the fingerprints of the
  findings a project accepts today; with ``--baseline FILE`` only findings beyond it count.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from dataclasses import replace
from pathlib import Path

from .findings import Finding

_MARKER = re.compile(rb"hipport:\s*ignore(?:\[([A-Za-z0-9_,\s-]*)\])?")
BASELINE_SCHEMA = "hipport-baseline"
BASELINE_VERSION = 1


class BaselineError(ValueError):
    """The baseline file is missing, not JSON, or not a hipport baseline."""


def _ids_suppressed_on(line: bytes) -> set[str] | None:
    """The check ids a line's marker suppresses ({"*"} for all), or None without a marker."""
    match = _MARKER.search(line)
    if match is None:
        return None
    if match.group(1) is None:
        return {"*"}
    return {part.strip().decode() for part in match.group(1).split(b",") if part.strip()}


#: How a line that is only a comment starts, in C/C++/CUDA sources and in build files (CMake
#: files and Makefiles, where ``# hipport: ignore[HP3003]`` is the marker).
SOURCE_COMMENTS = (b"//", b"/*")
BUILD_FILE_COMMENTS = (b"#",)


def filter_and_fingerprint(findings: list[Finding], source: bytes,
                           comment_starts: tuple[bytes, ...] = SOURCE_COMMENTS) -> list[Finding]:
    """Drop suppressed findings and give the others their fingerprint.

    Args:
        findings: findings of one file (1-based lines).
        source: that file's bytes.
        comment_starts: how a comment-only line starts in this kind of file
            (:data:`SOURCE_COMMENTS`, or :data:`BUILD_FILE_COMMENTS` for CMake files and Makefiles):
            a marker on such a line suppresses findings on the line below it.
    """
    if not findings:
        return findings
    lines = source.split(b"\n")
    markers = b"hipport:" in source  # every marker holds it: without, no line is searched
    kept = []
    for finding in findings:
        index = finding.line - 1
        line = lines[index] if 0 <= index < len(lines) else b""
        suppressed = _ids_suppressed_on(line) if markers else None
        if suppressed is None and markers and index >= 1 and lines[index - 1].lstrip().startswith(comment_starts):
            suppressed = _ids_suppressed_on(lines[index - 1])
        if suppressed and ("*" in suppressed or finding.rule_id in suppressed or finding.rule_name in suppressed):
            continue
        digest = hashlib.sha256(b"\0".join([finding.path.encode("utf-8", "surrogateescape"), finding.rule_id.encode(),
                                            finding.name.encode(), b" ".join(line.split())]))
        kept.append(replace(finding, fingerprint=digest.hexdigest()[:20]))
    return kept


def write_baseline(path: Path, findings: list[Finding]) -> None:
    """Record ``findings`` as accepted (JSON, sorted, one entry per finding)."""
    from .emit import atomic_write

    entries = sorted({(f.path, f.rule_id, f.fingerprint): None for f in findings}.keys())
    counts = Counter((f.path, f.rule_id, f.fingerprint) for f in findings)
    document = {
        "schema": BASELINE_SCHEMA, "schema_version": BASELINE_VERSION,
        "findings": [{"path": p, "rule_id": r, "fingerprint": fp, "count": counts[(p, r, fp)]} for p, r, fp in entries],
    }
    atomic_write(path, (json.dumps(document, indent=1) + "\n").encode())


def read_baseline(path: Path) -> Counter:
    """Read a baseline: Counter of (path, rule_id, fingerprint).

    Raises:
        BaselineError: the file cannot be read or is not a hipport baseline.
    """
    try:
        document = json.loads(path.read_bytes())
    except OSError as error:
        raise BaselineError(f"{path}: cannot read the baseline ({error.strerror})") from None
    except ValueError as error:
        raise BaselineError(f"{path}: the baseline is not JSON ({error})") from None
    if not isinstance(document, dict) or document.get("schema") != BASELINE_SCHEMA:
        raise BaselineError(f"{path}: not a hipport baseline (write one with --write-baseline)")
    try:
        return Counter({(e["path"], e["rule_id"], e["fingerprint"]): int(e.get("count", 1)) for e in document["findings"]})
    except (KeyError, TypeError, ValueError):
        raise BaselineError(f"{path}: malformed baseline entries") from None


def new_findings(findings: list[Finding], baseline: Counter) -> list[Finding]:
    """The findings not covered by ``baseline`` (each baseline entry covers ``count`` findings)."""
    remaining = Counter(baseline)
    fresh = []
    for finding in findings:
        key = (finding.path, finding.rule_id, finding.fingerprint)
        if remaining[key] > 0:
            remaining[key] -= 1
        else:
            fresh.append(finding)
    return fresh

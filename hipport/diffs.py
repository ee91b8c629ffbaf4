"""``hipport convert --diff``: what a conversion would change, as a unified diff, writing nothing.

Each converted source or build file whose port differs from it gives one diff, from the source
(``a/kernel.cu``) to the output it would become (``b/kernel.hip``), in the unified format of
``diff -u`` / ``git diff`` (Python's :func:`difflib.unified_diff`, 3 lines of context), so
``git apply`` or ``patch -p1`` can read it. Bytes that are not UTF-8 pass through unchanged.
"""

from __future__ import annotations

import difflib


def _lines(data: bytes) -> list[str]:
    return data.decode("utf-8", "surrogateescape").splitlines(keepends=True)


def unified_diff(rel: str, out_rel: str, original: bytes, ported: bytes) -> bytes:
    """The diff of one file, or b"" when the port is the file unchanged under the same name.

    Args:
        rel: the file's path relative to SRC (``/``-separated).
        out_rel: the output's path relative to OUT (``kernel.hip`` for ``kernel.cu``).
        original, ported: the file's bytes and its port's bytes.
    """
    if original == ported and rel == out_rel:
        return b""
    old, new = _lines(original), _lines(ported)
    for lines in (old, new):
        if lines and not lines[-1].endswith(("\n", "\r")):
            lines[-1] += "\n\\ No newline at end of file\n"
    header = f"diff --git a/{rel} b/{out_rel}\n"
    if rel != out_rel:
        header += f"rename from {rel}\nrename to {out_rel}\n"
    if original == ported:
        return header.encode("utf-8", "surrogateescape")
    body = "".join(difflib.unified_diff(old, new, f"a/{rel}", f"b/{out_rel}"))
    return (header + body).encode("utf-8", "surrogateescape")


def tree_diff(outputs: dict[str, tuple[str, bytes, bytes]]) -> tuple[bytes, int]:
    """The diffs of every file of ``outputs`` (as :func:`hipport.convert.check_tree` fills it), in
    path order, and how many files would change."""
    parts = [unified_diff(rel, out_rel, original, ported)
             for rel, (out_rel, original, ported) in sorted(outputs.items())]
    changed = [part for part in parts if part]
    return b"".join(changed), len(changed)

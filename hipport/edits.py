"""Byte-range edits and their application.

An :class:`Edit` replaces ``source[start:end]`` with ``text``; an insertion has
``start == end``. Edits never overlap: every rewrite touches only the bytes it must (an
identifier, an include path, the punctuation of a kernel launch), so everything outside those
ranges -- whitespace, comments, CRLF line endings, tabs, non-UTF-8 bytes -- is preserved exactly.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable


@dataclass(frozen=True, slots=True, order=True)
class Edit:
    """Replace bytes ``[start, end)`` of the source with ``text`` (offsets in bytes)."""

    start: int
    end: int
    text: bytes


class OverlappingEdits(ValueError):
    """Two edits touch the same bytes: a bug in a rewrite, never a property of the input."""


def apply_edits(source: bytes, edits: Iterable[Edit]) -> bytes:
    """Return ``source`` with ``edits`` applied.

    Args:
        source: the original file content (bytes).
        edits: non-overlapping edits in any order; insertions at the same offset keep the
            order in which they were given.

    Raises:
        OverlappingEdits: two edits overlap.
    """
    ordered = sorted(enumerate(edits), key=lambda item: (item[1].start, item[1].end, item[0]))
    pieces: list[bytes] = []
    position = 0
    for _, edit in ordered:
        if edit.start < position:
            raise OverlappingEdits(f"edit at byte {edit.start} overlaps an edit ending at byte {position}")
        pieces.append(source[position:edit.start])
        pieces.append(edit.text)
        position = edit.end
    pieces.append(source[position:])
    return b"".join(pieces)

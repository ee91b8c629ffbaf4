"""The last step of every generator under tools/: check the committed file or write it.

A generator renders the whole text of a data file from the toolchain's headers, then calls
:func:`check_or_write`: with ``--check`` it compares the committed file (tests and CI run that, so
a stale file fails), without it writes the file atomically (a crash or Ctrl-C leaves the old one).
"""

from __future__ import annotations

import difflib
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from hipport.emit import atomic_write  # noqa: E402  (the repository's package, not an installed one)


def shown(path: Path) -> str:
    """``path`` relative to the repository when it is inside it, else as given."""
    path = path.resolve()
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def check_or_write(output: Path, text: str, check: bool, summary: str = "") -> int:
    """Compare ``text`` with the file ``output`` (``check``: print a unified diff when they
    differ) or write it there atomically (UTF-8).

    Args:
        output: the generated file.
        text: its whole new content.
        check: compare only, write nothing.
        summary: appended to the line printed after writing (``"412 names"``).

    Returns:
        The exit status: 0, or 1 when ``check`` finds the file missing or different.

    Raises:
        OSError: the file cannot be read or written.
    """
    if check:
        current = output.read_text(encoding="utf-8") if output.is_file() else ""
        if current == text:
            print(f"{shown(output)} is up to date")
            return 0
        sys.stdout.writelines(difflib.unified_diff(current.splitlines(True), text.splitlines(True),
                                                   shown(output), "generated"))
        print(f"{shown(output)} is stale: run the generator without --check")
        return 1
    atomic_write(output, text.encode("utf-8"))
    print(f"wrote {shown(output)}" + (f": {summary}" if summary else ""))
    return 0

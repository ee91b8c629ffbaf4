"""Lines changed since a git revision, for ``hipport check --diff-base REV``.

A pull request reviews a diff: only findings on lines it adds or changes should fail it. This
module asks git which lines of the working tree differ from ``REV`` (``git diff --unified=0``,
committed and uncommitted changes alike; untracked files count as wholly new) and keeps the
findings on those lines.

The hunk header format (``@@ -a,b +c,d @@``, where ``d`` may be omitted for one line and is
``0`` for a pure deletion) is git's "unified" diff format (git-diff(1), "Generating patch text").
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

_HUNK = re.compile(rb"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@", re.MULTILINE)
_NEW_FILE = re.compile(rb"^\+\+\+ (?:b/(.*)|/dev/null)$", re.MULTILINE)
#: A file that is new in the working tree: every line of it is changed.
WHOLE_FILE = None


class DiffBaseError(ValueError):
    """``--diff-base`` cannot be used: not a git work tree, or git does not know the revision."""


@dataclass(frozen=True)
class ChangedLines:
    """The lines changed since a revision, per file.

    Attributes:
        root: the git work tree's top folder (absolute).
        revision: the revision compared with, as given (``origin/main``).
        lines: path relative to ``root`` (``/``-separated) -> set of changed 1-based line
            numbers of the working-tree file, or :data:`WHOLE_FILE` (None) for a file git
            does not track yet.
    """

    root: Path
    revision: str
    lines: dict[str, frozenset[int] | None]

    def contains(self, path: Path, line: int) -> bool:
        """True when ``line`` (1-based) of the file ``path`` (absolute, or relative to the
        working folder) was added or changed since the revision."""
        try:
            rel = Path(path).resolve().relative_to(self.root).as_posix()
        except ValueError:
            return False  # outside the work tree: not part of the diff
        if rel not in self.lines:
            return False
        changed = self.lines[rel]
        return changed is WHOLE_FILE or line in changed


def _git(args: list[str], cwd: Path) -> bytes:
    try:
        done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, check=False)
    except FileNotFoundError:
        raise DiffBaseError("--diff-base needs git, and no git command was found") from None
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise DiffBaseError(message[0] if message else f"git {' '.join(args)} failed ({done.returncode})")
    return done.stdout


def parse_unified_diff(diff: bytes) -> dict[str, frozenset[int]]:
    """The new-side line numbers each file's hunks add or change, from ``git diff -U0`` output.

    Args:
        diff: the raw output (bytes; paths are taken as UTF-8, undecodable bytes escaped).

    Returns:
        path (as git prints it after ``+++ b/``) -> changed line numbers; a deleted file
        (``+++ /dev/null``) is left out.
    """
    result: dict[str, set[int]] = {}
    current: str | None = None
    for match in re.finditer(rb"^\+\+\+ .*$|^@@ .*$", diff, re.MULTILINE):
        text = match.group()
        if text.startswith(b"+++"):
            new = _NEW_FILE.match(text)
            path = new.group(1) if new is not None else None
            current = path.decode("utf-8", "surrogateescape") if path else None
            if current is not None:
                result.setdefault(current, set())
            continue
        hunk = _HUNK.match(text)
        if hunk is None or current is None:
            continue
        start = int(hunk.group(1))
        count = 1 if hunk.group(2) is None else int(hunk.group(2))
        result[current].update(range(start, start + count))
    return {path: frozenset(lines) for path, lines in result.items()}


def changed_lines(revision: str, where: Path) -> ChangedLines:
    """The lines of the work tree holding ``where`` that differ from ``revision``.

    Args:
        revision: any revision git accepts (``origin/main``, ``HEAD~3``, a commit id).
        where: a file or folder inside the work tree (the first path given to ``check``).

    Raises:
        DiffBaseError: ``where`` is not in a git work tree, or ``revision`` is unknown.
    """
    if revision.startswith("-"):
        raise DiffBaseError(f"--diff-base {revision!r}: a revision cannot start with '-'")
    folder = where if where.is_dir() else where.parent
    try:
        top = _git(["rev-parse", "--show-toplevel"], folder or Path("."))
    except DiffBaseError:
        raise DiffBaseError(f"--diff-base needs a git work tree, and {where} is not in one") from None
    root = Path(top.decode("utf-8", "surrogateescape").strip())
    try:
        _git(["rev-parse", "--verify", "--quiet", f"{revision}^{{commit}}"], root)
    except DiffBaseError:
        raise DiffBaseError(f"--diff-base {revision}: git knows no such revision in {root}") from None
    diff = _git(["-c", "core.quotePath=false", "diff", "--no-color", "--no-ext-diff", "--unified=0",
                 "--find-renames", revision, "--"], root)
    lines: dict[str, frozenset[int] | None] = dict(parse_unified_diff(diff))
    untracked = _git(["-c", "core.quotePath=false", "ls-files", "--others", "--exclude-standard", "-z"], root)
    for name in untracked.split(b"\0"):
        if name:
            lines[name.decode("utf-8", "surrogateescape")] = WHOLE_FILE
    return ChangedLines(root.resolve(), revision, lines)

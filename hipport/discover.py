"""Discover the files of a source tree and where each one goes in the output tree.

The output mirrors the input: same folders, same names, except that ``.cu`` becomes ``.hip``.
C, C++ and CUDA sources and headers are converted; every other file is copied unchanged, so the
output is a complete tree. ``--exclude`` patterns use gitignore syntax (matched by ``pathspec``).
"""

from __future__ import annotations

import os
import posixpath
import stat
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from typing import TYPE_CHECKING

from .manifest import stamp_of

if TYPE_CHECKING:
    import pathspec

#: File suffixes that are parsed and converted (``.hip`` so that converting a port is a no-op).
SOURCE_SUFFIXES = frozenset({".cu", ".cuh", ".cpp", ".cc", ".cxx", ".c", ".h", ".hpp", ".hxx", ".inl", ".hip"})
#: Suffixes of translation units (compiled on their own; headers are not).
UNIT_SUFFIXES = frozenset({".cu", ".cpp", ".cc", ".cxx", ".c", ".hip"})
#: Makefile names that are build files (see :func:`build_file_kind`).
_MAKEFILE_NAMES = frozenset({"Makefile", "makefile", "GNUmakefile"})
#: Folders never walked: version control metadata.
ALWAYS_SKIPPED_DIRS = frozenset({".git", ".hg", ".svn"})


class DiscoveryError(ValueError):
    """The input tree cannot be converted as asked (missing SRC, OUT inside SRC, name clash)."""


@dataclass(frozen=True, slots=True)
class TreeFile:
    """One file of the input tree.

    Attributes:
        source: absolute path of the input file.
        rel: path relative to SRC, ``/`` separators (for a single-file SRC: its name).
        out_rel: path relative to OUT (``rel`` with ``.cu`` renamed to ``.hip``).
        convert: True for C/C++/CUDA sources and headers; False for files copied as they are.
        size: size in bytes and mode: ``st_mode``, from the one ``stat`` made while walking.
        stamp: :func:`hipport.manifest.stamp_of` that ``stat`` (a re-run compares it with the
            recorded one before reading the file; ``()``: none).
    """

    source: Path
    rel: str
    out_rel: str
    convert: bool
    size: int = 0
    mode: int = 0o644
    stamp: tuple = ()

    @property
    def is_cuda_unit(self) -> bool:
        return self.rel.endswith(".cu")

    @property
    def is_unit(self) -> bool:
        return PurePosixPath(self.rel).suffix in UNIT_SUFFIXES


def build_file_kind(rel: str) -> str | None:
    """Which build file ``rel`` is (migrated by :mod:`hipport.buildfiles`, which re-exports this):
    ``cmake`` for ``CMakeLists.txt`` and ``*.cmake``, ``make`` for ``Makefile``, ``makefile``,
    ``GNUmakefile`` and ``*.mk``, else None (``rel``: a ``/``-separated path)."""
    name = posixpath.basename(rel)
    if name == "CMakeLists.txt" or name.endswith(".cmake"):
        return "cmake"
    if name in _MAKEFILE_NAMES or name.endswith(".mk"):
        return "make"
    return None


def output_name(rel: str) -> str:
    """Map a relative input path to its output path (``a/b.cu`` -> ``a/b.hip``)."""
    return rel[:-3] + ".hip" if rel.endswith(".cu") else rel


class _NoExclusions:
    """The exclude spec of a run that gives no ``--exclude`` pattern: it matches nothing, and
    spares the run pathspec's import (about 30 ms of CPU, a tenth of a one-file ``check``)."""

    @staticmethod
    def match_file(path: str) -> bool:
        return False


def build_exclude_spec(patterns: list[str]) -> "pathspec.PathSpec | _NoExclusions":
    """Compile gitignore-style ``patterns`` (as given to ``--exclude``); with none, a spec that
    matches nothing.

    Raises:
        DiscoveryError: a pattern is not valid gitignore syntax.
    """
    if not patterns:
        return _NoExclusions()
    import pathspec

    for pattern in patterns:
        try:
            pathspec.GitIgnoreSpec.from_lines([pattern])
        except ValueError as error:  # pathspec's pattern error is a ValueError
            raise DiscoveryError(f"--exclude {pattern!r}: not a gitignore-style pattern ({error})") from None
    return pathspec.GitIgnoreSpec.from_lines(patterns)


def _check_output_location(src: Path, out: Path, spec: "pathspec.PathSpec | _NoExclusions") -> None:
    """Refuse every OUT that could overwrite a file of SRC, and an OUT that is not a folder."""
    if out.exists() and not out.is_dir():
        raise DiscoveryError(f"{out}: the output must be a folder, and this is an existing file; choose another -o")
    src_abs, out_abs = src.resolve(), out.resolve()
    if src.is_file():
        if out_abs == src_abs.parent:
            raise DiscoveryError(f"{out}: the output folder holds the source file {src}; choose another -o")
        return
    if out_abs == src_abs:
        raise DiscoveryError(f"{out}: the output folder is the source folder; choose another -o")
    if out_abs in src_abs.parents:
        raise DiscoveryError(f"{out}: the output folder contains the source tree {src}; choose another -o")
    if src_abs in out_abs.parents:
        out_rel = out_abs.relative_to(src_abs).as_posix()
        if not spec.match_file(out_rel + "/"):
            raise DiscoveryError(
                f"{out}: the output folder is inside the source tree {src}; "
                f"choose another -o or add --exclude '{out_rel}/'"
            )


def _walk_error(error: OSError) -> None:
    raise DiscoveryError(f"{error.filename}: cannot read this folder ({error.strerror})")


def discover(src: Path, out: Path | None, exclude: list[str], rename_cu: bool = True) -> list[TreeFile]:
    """List the files to convert or copy, in sorted order.

    Args:
        src: a file or a directory.
        out: the output directory (checked, not created), or None when nothing is written
            (``hipport check``).
        exclude: gitignore-style patterns relative to ``src``.
        rename_cu: ``.cu`` files go to ``.hip`` outputs (default); False keeps every name
            (``convert --in-place`` without ``--rename-cu``).

    Raises:
        DiscoveryError: ``src`` does not exist or a folder of it cannot be read; ``out``
            equals ``src``, contains ``src``, holds the single source file, or lies
            inside ``src`` without being excluded; an exclude pattern is invalid; two inputs
            map to the same output (``a.cu`` next to ``a.hip``).
    """
    if not src.exists():
        raise DiscoveryError(f"{src}: no such file or directory")
    spec = build_exclude_spec(exclude)
    if out is not None:
        _check_output_location(src, out, spec)
    src_abs, out_abs = src.resolve(), out.resolve() if out is not None else None
    out_text = str(out_abs) if out_abs is not None else None
    if src.is_file():
        rel = src.name
        info = src_abs.stat()
        return [TreeFile(src_abs, rel, output_name(rel) if rename_cu else rel, Path(rel).suffix in SOURCE_SUFFIXES,
                         info.st_size, info.st_mode, stamp_of(info))]
    files: list[TreeFile] = []
    seen: dict[str, str] = {}
    try:
        for dirpath, dirnames, filenames in os.walk(src_abs, onerror=_walk_error):
            base = Path(dirpath)
            rel_dir = base.relative_to(src_abs).as_posix()
            prefix = "" if rel_dir == "." else rel_dir + "/"
            # ``dirpath`` has no symbolic link in it (SRC resolved, links to folders not walked),
            # so a folder is OUT when its path is OUT's resolved path
            dirnames[:] = sorted(
                d for d in dirnames
                if d not in ALWAYS_SKIPPED_DIRS and not spec.match_file(prefix + d + "/")
                and os.path.join(dirpath, d) != out_text
            )
            for name in sorted(filenames):
                rel = prefix + name
                path = base / name
                if spec.match_file(rel):
                    continue
                try:
                    info = path.stat()
                except OSError:  # a dangling symbolic link
                    continue
                if not stat.S_ISREG(info.st_mode):
                    continue
                out_rel = output_name(rel) if rename_cu else rel
                if out_rel in seen:
                    raise DiscoveryError(f"{src / rel}: would be written to {out_rel}, as {src / seen[out_rel]} is")
                seen[out_rel] = rel
                files.append(TreeFile(path, rel, out_rel, path.suffix in SOURCE_SUFFIXES, info.st_size, info.st_mode,
                                      stamp_of(info)))
    except RecursionError:
        raise DiscoveryError(f"{src}: the folder tree is nested too deeply to walk") from None
    files.sort(key=lambda f: f.rel)
    return files

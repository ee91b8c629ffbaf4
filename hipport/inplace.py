"""``hipport convert SRC --in-place``: port the source tree where it is, keeping a backup of
every file it changes.

The port is exactly the one ``convert -o OUT`` makes (:func:`hipport.convert.convert_tree`
into a temporary folder outside SRC); then, for every file whose port differs from what SRC
holds:

1. every file that will be replaced or removed is first copied to ``<file>.hipport-bak`` next to
   it (the suffix HIPIFY's ``-inplace`` users know as ``.prehip``). An existing backup is never
   replaced: when one of them exists, nothing at all is changed and the error lists them;
2. the ported files are written (each atomically: a temporary file renamed over the original);
3. with ``--rename-cu``, the ``.cu`` files that became ``.hip`` are removed (their backups stay).

Without ``--rename-cu`` every file keeps its name: ``.cu`` files stay ``.cu`` (hipcc and the
platform module compile them as HIP), ``#include "x.cu"`` and the build files' ``.cu`` names are
left as they are. With it, ``x.cu`` becomes ``x.hip`` and the includes and build files follow.
Files hipport generates (a ``CMakeLists.txt`` when SRC has no CMake build,
``cmake/HipportPlatform.cmake``) are created in SRC (not for a single-file SRC, whose folder
keeps its own build). The reports, ``hipport-report.md`` and
``hipport-report.json``, are written at the top of SRC (the folder of SRC for a single file),
where ``hipport build`` finds them; no manifest is written (it exists to protect OUT from a
second conversion, and the backups do that here).

``convert SRC --compat --in-place`` (a folder SRC) stages :func:`hipport.compat.compat_tree`
instead, with the same steps: the sources stay as written (``-o OUT`` forces
``hipport_compat.h`` into every GPU source from CMake, so no include line is added to any file),
the tree's CMake files are migrated (each backed up), and ``hipport_compat.h``, the
``hipport_compat/`` shims and ``cmake/HipportPlatform.cmake`` (with the ``HIPPORT_COMPAT_CUDA``
option), plus a ``CMakeLists.txt`` when SRC has no CMake build (a Makefile stays as written), are
created. A re-run leaves out of the conversion the files the earlier run generated
(:func:`own_compat_files`: recognised by their first line) and generates them again: nothing
changes when the tree did not, and when it did, the generated files are rewritten (atomically,
with no backup: hipport wrote them) and shims no longer needed are removed.

Ctrl-C or a crash leaves no half-written file: at any moment each file of SRC is either its
original or its complete port, and each replaced or removed file has its complete backup.
Undo: move each ``*.hipport-bak`` back over its file (and delete the ``.hip`` files and
generated files listed in the report as created).
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable

from .convert import REPORT_JSON, REPORT_MARKDOWN, ConvertOptions, convert_tree
from .emit import atomic_write
from .manifest import MANIFEST_NAME
from .report import Report
from .rules import RuleSet

#: Appended to the name of every file ``--in-place`` replaces or removes: its original bytes.
BACKUP_SUFFIX = ".hipport-bak"
#: Files of SRC that ``--in-place`` never treats as part of the tree: its own backups and reports.
_OWN_FILES = (f"*{BACKUP_SUFFIX}", f"/{REPORT_MARKDOWN}", f"/{REPORT_JSON}")


class InPlaceError(ValueError):
    """``--in-place`` cannot run safely (a backup it would write exists already); nothing was changed."""


@dataclass
class InPlaceResult:
    """What :func:`convert_in_place` did; paths are relative to :attr:`root`, ``/``-separated.

    Attributes:
        root: the folder whose files were rewritten (SRC, or the folder of a single-file SRC).
        report: the conversion report (its ``output`` is SRC).
        changed: files rewritten in place (each has its backup).
        created: files that did not exist: ``.hip`` files of renamed ``.cu`` files, generated
            build files.
        removed: ``.cu`` files renamed to ``.hip`` (``--rename-cu``; each has its backup).
        backups: the backups written (``<file>.hipport-bak``).
        reports: the report files written (``hipport-report.md``, ``hipport-report.json``).
        dropped: ``--compat``: files an earlier ``--compat --in-place`` run generated that this run
            does not (a shim header of a CUDA header no longer included): removed, no backup.
    """

    root: Path
    report: Report
    changed: list[str] = field(default_factory=list)
    created: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    backups: list[str] = field(default_factory=list)
    reports: list[str] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)


def _staging_parent(src: Path) -> str | None:
    """A folder for the temporary port that is not inside SRC (the system's temporary folder,
    else the folder above SRC)."""
    temp = Path(tempfile.gettempdir()).resolve()
    src_abs = src.resolve()
    if src_abs.is_dir() and (temp == src_abs or src_abs in temp.parents):
        return str(src_abs.parent)
    return None


def _staged_files(out: Path) -> dict[str, Path]:
    """Every file of the temporary port but its reports and manifest: OUT-relative path -> path."""
    skip = {REPORT_MARKDOWN, REPORT_JSON, MANIFEST_NAME}
    files = {}
    for dirpath, _dirnames, filenames in os.walk(out):
        for name in filenames:
            path = Path(dirpath) / name
            rel = path.relative_to(out).as_posix()
            if rel not in skip:
                files[rel] = path
    return files


def own_compat_files(root: Path) -> list[str]:
    """Exclude patterns for the files an earlier ``--compat --in-place`` run generated in ``root``,
    so that a re-run converts the tree as the first run did and writes the same files:

    - ``/hipport_compat.h`` and ``/hipport_compat/`` when every file of them starts with the line
      hipport writes (``// hipport_compat.h: written by hipport ... (hipport convert --compat)``,
      :func:`hipport.compat.render_header` and :func:`hipport.compat.render_shim`);
    - ``/cmake/HipportPlatform.cmake`` when it starts with ``# HipportPlatform.cmake: written by
      hipport`` (templates/HipportPlatform.cmake.j2): it is generated again, not migrated as a
      build file of the tree;
    - ``/CMakeLists.txt`` when it starts with :data:`hipport.buildfiles.cmakefile.GENERATED_CMAKE_MARK`
      (a tree with no CMake build of its own): it is generated again from the tree (a Makefile's
      facts, the units), not taken as the tree's own build.

    A file of those names that hipport did not write is not excluded: :func:`hipport.compat.compat_tree`
    refuses a tree holding a ``hipport_compat.h`` of its own, as for ``-o OUT``, and the tree's
    own CMake files are migrated.
    """
    from .buildfiles.cmakefile import GENERATED_CMAKE_MARK
    from .cmake import PLATFORM_MODULE
    from .compat import COMPAT_HEADER, SHIM_DIR

    def first_line(path: Path) -> bytes:
        if not path.is_file() or path.is_symlink():
            return b""
        try:
            with path.open("rb") as stream:
                return stream.readline()
        except OSError:
            return b""

    def compat_written(path: Path) -> bool:
        line = first_line(path)
        return line.startswith(b"// ") and b": written by hipport " in line and b"(hipport convert --compat)" in line

    patterns = []
    if compat_written(root / COMPAT_HEADER):
        patterns.append(f"/{COMPAT_HEADER}")
    shims = root / SHIM_DIR
    if shims.is_dir() and not shims.is_symlink():
        found = [p for p in shims.rglob("*") if not p.is_dir()]
        if found and all(compat_written(p) for p in found):
            patterns.append(f"/{SHIM_DIR}/")
    if first_line(root / PLATFORM_MODULE).startswith(b"# HipportPlatform.cmake: written by hipport "):
        patterns.append(f"/{PLATFORM_MODULE}")
    if first_line(root / "CMakeLists.txt").startswith(GENERATED_CMAKE_MARK.encode()):
        patterns.append("/CMakeLists.txt")
    return patterns


def _files_of(root: Path, patterns: list[str]) -> set[str]:
    """The files of ``root`` (relative, ``/``-separated) that :func:`own_compat_files` patterns
    name: ``/name`` a file, ``/name/`` every file under a folder."""
    found = set()
    for pattern in patterns:
        rel = pattern.strip("/")
        if pattern.endswith("/"):
            found.update(p.relative_to(root).as_posix() for p in (root / rel).rglob("*") if p.is_file())
        else:
            found.add(rel)
    return found


def convert_in_place(src: Path, options: ConvertOptions, rules: RuleSet,
                     progress: Callable[[int, int], None] | None = None, *, compat: bool = False) -> InPlaceResult:
    """Port the CUDA file or tree ``src`` in place (see the module's description).

    Args:
        src: a CUDA source file or folder; its changed files are rewritten, each backed up.
        options: as for :func:`hipport.convert.convert_tree`; ``options.rename_cu`` decides
            whether ``.cu`` files become ``.hip`` (``--rename-cu``); ``force`` is not used.
        rules: loaded rules.
        progress: as for convert_tree (called while porting, before anything in SRC changes).
        compat: ``--compat --in-place``: the tree is converted by :func:`hipport.compat.compat_tree`
            instead, so the sources stay as written and SRC gains ``hipport_compat.h``, its shim
            headers and the compat CMake build (a folder only; ``options.rename_cu`` must be off).

    Returns:
        An :class:`InPlaceResult`; the reports are written at the top of SRC.

    Raises:
        InPlaceError: a backup that would be written exists already (nothing changed).
        ValueError: ``compat`` with a single file or with ``options.rename_cu`` (nothing changed).
        hipport.discover.DiscoveryError, hipport.rules.RuleError: as convert_tree (nothing changed).
        OSError: a file could not be read or written (each file is then its original or its
            complete port, and every file changed so far has its backup).
    """
    root = src if src.is_dir() else src.parent
    user_exclude = options.exclude
    own = _OWN_FILES
    generated_before: list[str] = []
    if compat:
        if not src.is_dir():
            raise ValueError(f"{src}: --compat --in-place takes a folder (the compat header and its CMake build are "
                             "written at its top); for one file use --compat -o OUT")
        if options.rename_cu:
            raise ValueError("--compat keeps the .cu names, so it takes no --rename-cu")
        generated_before = own_compat_files(src)
        own = (*_OWN_FILES, *generated_before)
    port_options = replace(options, exclude=(*options.exclude, *own) if src.is_dir() else options.exclude,
                           force=False)
    with tempfile.TemporaryDirectory(prefix="hipport-in-place-", dir=_staging_parent(src)) as staging:
        out = Path(staging) / "port"
        if compat:
            from .compat import compat_tree

            converted = compat_tree(src, out, port_options, rules, progress=progress)
        else:
            converted = convert_tree(src, out, port_options, rules, progress=progress)
        report = converted.report
        source_of = {summary.output: summary.path for summary in report.files}
        writes: list[tuple[str, Path]] = []  # (path relative to root, staged file)
        backups: list[str] = []  # paths relative to root of the files replaced or removed
        result = InPlaceResult(root, report)
        regenerated = _files_of(root, generated_before)  # hipport's own outputs: rewritten with no backup
        staged_files = _staged_files(out)
        for out_rel, staged in sorted(staged_files.items()):
            rel = source_of.get(out_rel)
            if rel is None and not src.is_dir():
                continue  # a single file's folder gets no generated build: it has a build of its own, or none
            target = root / out_rel
            if rel is not None and rel != out_rel:  # x.cu -> x.hip (--rename-cu)
                writes.append((out_rel, staged))
                result.created.append(out_rel)
                result.removed.append(rel)
                backups.append(rel)
                continue
            if target.exists():
                if target.read_bytes() == staged.read_bytes():
                    continue
                writes.append((out_rel, staged))
                result.changed.append(out_rel)
                if out_rel not in regenerated:
                    backups.append(out_rel)
            else:  # a generated file: CMakeLists.txt, cmake/HipportPlatform.cmake
                writes.append((out_rel, staged))
                result.created.append(out_rel)
        existing = [rel + BACKUP_SUFFIX for rel in backups if (root / (rel + BACKUP_SUFFIX)).exists()
                    or (root / (rel + BACKUP_SUFFIX)).is_symlink()]
        if existing:
            listed = ", ".join(str(root / rel) for rel in existing[:5])
            more = f" and {len(existing) - 5:,} more" if len(existing) > 5 else ""
            raise InPlaceError(f"{listed}{more}: a backup of an earlier --in-place conversion exists; nothing was "
                               f"changed. Restore the files from the backups or delete them, then run again")
        for rel in sorted(backups):  # 1. backups first: nothing is replaced before its copy is complete
            original = root / rel
            atomic_write(root / (rel + BACKUP_SUFFIX), original.read_bytes(), original.stat().st_mode)
            result.backups.append(rel + BACKUP_SUFFIX)
        for rel, staged in writes:  # 2. the ports, each atomically
            atomic_write(root / rel, staged.read_bytes(), staged.stat().st_mode)
        for rel in result.removed:  # 3. the .cu files renamed to .hip
            (root / rel).unlink()
        for rel in sorted(regenerated - set(staged_files)):  # 4. compat files this run no longer generates
            (root / rel).unlink()
            result.dropped.append(rel)
            folder = (root / rel).parent
            while folder != root and not any(folder.iterdir()):  # the shim folder, once empty
                folder.rmdir()
                folder = folder.parent
    report.output = str(src)
    report.options["exclude"] = list(user_exclude)
    for name, data in ((REPORT_JSON, report.json_text().encode("utf-8", "backslashreplace")),
                       (REPORT_MARKDOWN, report.markdown_text().encode("utf-8", "surrogateescape"))):
        atomic_write(root / name, data)
        result.reports.append(name)
    return result

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
    """

    root: Path
    report: Report
    changed: list[str] = field(default_factory=list)
    created: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    backups: list[str] = field(default_factory=list)
    reports: list[str] = field(default_factory=list)


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


def convert_in_place(src: Path, options: ConvertOptions, rules: RuleSet,
                     progress: Callable[[int, int], None] | None = None) -> InPlaceResult:
    """Port the CUDA file or tree ``src`` in place (see the module's description).

    Args:
        src: a CUDA source file or folder; its changed files are rewritten, each backed up.
        options: as for :func:`hipport.convert.convert_tree`; ``options.rename_cu`` decides
            whether ``.cu`` files become ``.hip`` (``--rename-cu``); ``force`` is not used.
        rules: loaded rules.
        progress: as for convert_tree (called while porting, before anything in SRC changes).

    Returns:
        An :class:`InPlaceResult`; the reports are written at the top of SRC.

    Raises:
        InPlaceError: a backup that would be written exists already (nothing changed).
        hipport.discover.DiscoveryError, hipport.rules.RuleError: as convert_tree (nothing changed).
        OSError: a file could not be read or written (each file is then its original or its
            complete port, and every file changed so far has its backup).
    """
    root = src if src.is_dir() else src.parent
    user_exclude = options.exclude
    port_options = replace(options, exclude=(*options.exclude, *_OWN_FILES) if src.is_dir() else options.exclude,
                           force=False)
    with tempfile.TemporaryDirectory(prefix="hipport-in-place-", dir=_staging_parent(src)) as staging:
        out = Path(staging) / "port"
        converted = convert_tree(src, out, port_options, rules, progress=progress)
        report = converted.report
        source_of = {summary.output: summary.path for summary in report.files}
        writes: list[tuple[str, Path]] = []  # (path relative to root, staged file)
        backups: list[str] = []  # paths relative to root of the files replaced or removed
        result = InPlaceResult(root, report)
        for out_rel, staged in sorted(_staged_files(out).items()):
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
    report.output = str(src)
    report.options["exclude"] = list(user_exclude)
    for name, data in ((REPORT_JSON, report.json_text().encode("utf-8", "backslashreplace")),
                       (REPORT_MARKDOWN, report.markdown_text().encode("utf-8", "surrogateescape"))):
        atomic_write(root / name, data)
        result.reports.append(name)
    return result

"""``hipport convert``: the whole pipeline for a tree.

discover -> (per file, in parallel) read, parse, analyze, apply edits -> emit files -> CMake ->
reports. The source tree is only read; every output file is written atomically.
"""

from __future__ import annotations

import itertools
import os
import posixpath
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterator

from .discover import TreeFile, build_file_kind, discover
from .edits import apply_edits
from .emit import atomic_write
from .findings import Finding
from .incremental import (Record, RecordError, Reuse, canonical, digest_json, finding_of, finding_row, run_key,
                          warp_digest)
from .report import FileSummary, Report
from .rules import RuleSet, default_rules
from .project_macros import TreeSources, resolve_include
from .manifest import KEPT_EDITED, OUTPUT, SOURCE, UNCHANGED, OutputGuard, Stamps, digest, load_manifest
from .suppress import BUILD_FILE_COMMENTS, filter_and_fingerprint
from .unknown_names import FileNames, TreeNames, closest_names, remember_closest

if TYPE_CHECKING:
    from .cmake import UnitInfo
    from .precise import PreciseOptions
    from .warp import MaskNames, WarpTree

REPORT_MARKDOWN = "hipport-report.md"
REPORT_JSON = "hipport-report.json"
from .options import DEFAULT_OFFLOAD_ARCHS, LAUNCH_SYNTAXES  # noqa: E402  (one definition, light for the parser)
#: Below this many bytes of sources, converting in this process beats starting workers.
_PARALLEL_THRESHOLD_BYTES = 2_000_000


@dataclass(frozen=True)
class ConvertOptions:
    """Options of a conversion.

    Attributes:
        exclude: gitignore-style patterns of paths (relative to SRC) to leave out.
        launch_syntax: ``chevron`` keeps ``<<<...>>>``; ``hip`` emits ``hipLaunchKernelGGL``.
        fix: apply the safe wavefront-size rewrites and delete ``register`` too (``--fix``).
        precise: run the libclang pass too (``--precise``, see :mod:`hipport.precise`).
        offload_archs: default ``CMAKE_HIP_ARCHITECTURES`` of the generated CMake build.
        jobs: worker processes (0: one per CPU core).
        force: replace outputs edited by hand since the last conversion into OUT, and remove
            stale ones even when edited (``--force``; see :mod:`hipport.manifest`).
        rename_cu: ``.cu`` files become ``.hip`` in OUT, and ``#include "x.cu"`` and the build
            files' ``.cu`` names follow (default); False keeps every name (``convert --in-place``
            without ``--rename-cu``).
        target_libs: ``hip`` or ``roc`` (``--target-libs``); recorded in the report. The rules
            passed to :func:`convert_tree` must be loaded for the same target
            (``default_rules(target_libs)``, which is what happens when none are passed).
    """

    exclude: tuple[str, ...] = ()
    launch_syntax: str = "chevron"
    fix: bool = False
    precise: PreciseOptions | None = None
    offload_archs: tuple[str, ...] = DEFAULT_OFFLOAD_ARCHS
    jobs: int = 0
    target_libs: str = "hip"
    force: bool = False
    rename_cu: bool = True


@dataclass(slots=True)
class PortedFile:
    """The result of porting one file: the content to write (the original bytes for a file that
    is copied), its summary for the report, and what the CMake generator needs."""

    file: TreeFile
    output: bytes
    summary: FileSummary
    defines_main: bool = False
    uses_hip: bool = False
    cuda_names: FileNames | None = None
    compat: tuple = ()  # (renamed, headers_mapped, call_rewrites, type_rewrites) of FileAnalysis (hipport.compat)
    write_status: str = ""  # what OutputGuard.write did (hipport.manifest), when written into OUT
    record: str = ""  # the SHA-256 the manifest records for the output
    on_disk: str = ""  # the SHA-256 of what OUT holds for it after writing (differs for a kept edit)
    source_digest: str = ""  # the SHA-256 of the bytes ported
    output_digest: str = ""  # the SHA-256 of the port's output (before ``output`` is dropped)
    deps: dict = field(default_factory=dict)  # quoted include name -> tree file or None, as looked up
    reused: bool = False  # recorded by the last conversion into OUT, not ported again (hipport.incremental)
    out_stamp: list | None = None  # the output's entry in the guard's stamps, noted in a worker process


def _line_count(data: bytes) -> int:
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


class _HeaderResolver:
    """Resolves an include of ``including`` against the tree's files
    (:func:`hipport.project_macros.resolve_include`). Every answer is kept, the cross-file facts
    the file's port used, which :mod:`hipport.incremental` checks before reusing it: ``asked``
    (quoted include name -> tree file or None) and ``in_tree_asked`` (name -> bool)."""

    def __init__(self, sources: TreeSources, including: str):
        self._sources = sources
        self._including = including
        self.asked: dict[str, str | None] = {}
        self.in_tree_asked: dict[str, bool] = {}

    def __call__(self, name: str) -> str | None:
        if name in self.asked:
            return self.asked[name]
        answer = self.asked[name] = resolve_include(self._sources.files, self._including, name)
        return answer

    def in_tree(self, name: str) -> bool:
        """True when an include of ``name`` (quoted or angled, e.g. ``<helper_cuda.h>`` found
        through an ``-I Common`` of the build) can name a file of the tree: one resolves as a quoted
        include, or a tree file's path ends with ``/name`` (:meth:`TreeSources.ends_with`)."""
        if name in self.in_tree_asked:
            return self.in_tree_asked[name]
        answer = self.in_tree_asked[name] = self(name) is not None or self._sources.ends_with(name)
        return answer


def tree_sources(files: list[TreeFile]) -> TreeSources:
    """The tree's files for following includes (:class:`hipport.project_macros.TreeSources`,
    read from disk on first use); its ``files`` is the set of every file's relative path."""
    return TreeSources({f.rel: f.source for f in files})


#: Byte-order marks of encodings whose text is not ASCII-compatible (longest first).
_WIDE_BOMS = ((b"\x00\x00\xfe\xff", "UTF-32 (big-endian)"), (b"\xff\xfe\x00\x00", "UTF-32 (little-endian)"),
              (b"\xfe\xff", "UTF-16 (big-endian)"), (b"\xff\xfe", "UTF-16 (little-endian)"))


#: The UTF-8 byte-order mark (some Windows editors start every file with it).
_UTF8_BOM = b"\xef\xbb\xbf"


def _wide_encoding(data: bytes) -> str | None:
    """The name of a UTF-16/32 encoding announced by a byte-order mark, else None."""
    return next((name for bom, name in _WIDE_BOMS if data.startswith(bom)), None)


def _finding(rules: RuleSet, check_name: str, path: str, line: int, column: int, **fields: str) -> Finding:
    check = rules.check(check_name)
    message, fix = check.render(name="", **fields)
    return Finding(path, line, column, check.id, check.name, check.severity, message, fix, "")


def port_file(file: TreeFile, rules: RuleSet, options: ConvertOptions, sources: TreeSources,
              parser=None, warp_tree: WarpTree | None = None, masks: MaskNames | None = None,
              data: bytes | None = None) -> PortedFile:
    """Read, parse and port one file (no writing); ``sources``: the tree's files (:func:`tree_sources`),
    to resolve includes and read the macros of the headers ``file`` includes; ``warp_tree``: the
    tree's --fix decisions on warp-size names shared between files, ``masks``: where its files
    define the names ``*_sync`` calls pass as masks (:func:`_tree_prepasses`); ``data``: the
    file's bytes when the caller has read them already (the prepasses did), else None.

    Raises:
        OSError: the file cannot be read.
    """
    if data is None:
        data = file.source.read_bytes()
    source_digest = digest(data)
    summary = FileSummary(path=file.rel, output=file.out_rel, converted=file.convert)
    if not file.convert:
        return PortedFile(file, data, summary, source_digest=source_digest, output_digest=source_digest)
    encoding = _wide_encoding(data)
    if encoding:
        summary.converted = False
        summary.findings = filter_and_fingerprint(
            [_finding(rules, "unsupported-encoding", file.rel, 1, 1, encoding=encoding)], b"")
        return PortedFile(file, data, summary, source_digest=source_digest, output_digest=source_digest)
    from .analyze import analyze_file  # imported here: a conversion that reuses every file parses none
    from .parse import new_parser

    # A UTF-8 byte-order mark is not part of the text: the grammar would see it as an unknown
    # token and the preprocessor line it precedes (``#include`` on line 1) would be missed. The
    # file is analysed without it and written back with it.
    bom = _UTF8_BOM if data.startswith(_UTF8_BOM) else b""
    data = data[len(bom):]
    parser = parser or new_parser()
    tree = parser.parse(data)
    resolver = _HeaderResolver(sources, file.rel)
    sources.start_log()
    analysis = analyze_file(
        file.rel, data, tree, rules, is_cuda_unit=file.is_cuda_unit,
        launch_syntax=options.launch_syntax, fix=options.fix, resolve_header=resolver,
        warp_tree=warp_tree, mask_names=masks,
        rename_cu=options.rename_cu,
        sources=sources,
    )
    findings = analysis.findings
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as error:
        bad_line = data.count(b"\n", 0, error.start) + 1
        column = error.start - data.rfind(b"\n", 0, error.start)
        findings = sorted(findings + [_finding(rules, "not-utf8", file.rel, bad_line, column, bad_line=str(bad_line))],
                          key=Finding.sort_key)
    summary.lines = _line_count(data)
    summary.references_rewritten = analysis.references_rewritten
    summary.kernel_launches = analysis.kernel_launches
    summary.parse_error_regions = analysis.parse_error_regions
    summary.inline_asm = analysis.inline_asm
    summary.uses_cuda = analysis.uses_cuda
    if options.precise is not None:
        from .precise import PreciseUnavailable, analyze_precise, merge, session_for

        try:
            findings = merge(findings, analyze_precise(session_for(options.precise), file.source, file.rel, bom + data, rules))
        except PreciseUnavailable:
            pass  # this file keeps the tree-sitter analysis
    summary.findings = filter_and_fingerprint(findings, data)
    output = bom + (apply_edits(data, analysis.edits) if analysis.edits else data)
    return PortedFile(file, output, summary, analysis.defines_main, analysis.uses_cuda, analysis.cuda_names,
                      (analysis.renamed, analysis.headers_mapped, analysis.call_rewrites, analysis.type_rewrites),
                      source_digest=source_digest, deps=_dependencies(resolver, sources.stop_log()),
                      output_digest="" if analysis.edits else source_digest)  # no edit: the bytes read


def _dependencies(resolver: _HeaderResolver, log: dict) -> dict:
    """The cross-file facts one file's port used, as :meth:`hipport.incremental.Record.matches`
    checks them: ``include`` (quoted include name -> tree file or None), ``in_tree`` (include
    name -> whether a tree file can be meant), and the tree's ``resolve`` and ``read`` log
    (:meth:`hipport.project_macros.TreeSources.stop_log`)."""
    return {"include": dict(sorted(resolver.asked.items())), "in_tree": dict(sorted(resolver.in_tree_asked.items())),
            "resolve": log["resolve"], "read": log["read"]}


# Worker-process state, set once per process by _init_worker (the rules are loaded and
# validated once, in the parent, and handed over).
_worker_state: dict = {}


def _init_worker(rules: RuleSet, options: ConvertOptions, tree: TreeSources, guard: OutputGuard | None,
                 warp_tree: WarpTree | None = None, masks: MaskNames | None = None) -> None:
    from .parse import new_parser

    _worker_state.update(rules=rules, parser=new_parser(), options=options, tree=tree, guard=guard,
                         warp_tree=warp_tree, masks=masks)


def _port_and_write(file: TreeFile, rules: RuleSet, options: ConvertOptions, tree: TreeSources,
                    parser, guard: OutputGuard | None, warp_tree: WarpTree | None = None,
                    masks: MaskNames | None = None, data: bytes | None = None) -> PortedFile:
    """Port one file and, when ``guard`` is given, write it into its OUT (unless unchanged or
    edited by hand there, see :mod:`hipport.manifest`); the returned PortedFile then carries no
    content (only the summary and the write's outcome travel back to the parent process).
    Build files (CMake, Makefiles) are not written here: :func:`_migrate_build_files` migrates
    them once every file is ported, so they come back with their content."""
    ported = port_file(file, rules, options, tree, parser, warp_tree, masks, data)
    if guard is not None and build_file_kind(file.rel) is None:
        ported.output_digest = ported.output_digest or digest(ported.output)
        ported.write_status = guard.write(file.out_rel, ported.output, file.mode, ported.output_digest)
        ported.record = guard.written.get(file.out_rel, "")
        ported.on_disk = guard.on_disk.get(file.out_rel, "")
        ported.out_stamp = guard.stamps.fresh[OUTPUT].get(file.out_rel) if guard.stamps is not None else None
        ported.output = b""
    return ported


def _port_in_worker(file: TreeFile) -> PortedFile:
    s = _worker_state
    return _port_and_write(file, s["rules"], s["options"], s["tree"], s["parser"], s["guard"], s["warp_tree"],
                           s["masks"])


def _tree_prepasses(files: list[TreeFile], options: ConvertOptions, parser,
                    contents: "dict[str, bytes] | None" = None) -> "tuple[WarpTree | None, MaskNames | None]":
    """The prepasses over the whole tree, before any file is ported: where the names that
    ``*_sync`` calls pass as masks are defined (:func:`hipport.warp.mask_names`, so a 32-bit
    mask from a header is reported at the call), and, with --fix only,
    :func:`hipport.warp.warp_tree`: a warp-size constant or a device function of a header is
    rewritten in every file using it, or in none (without --fix nothing is rewritten, and the
    findings are the same). Files that cannot be read or are UTF-16/32 are left to
    :func:`port_file`, which reports them. ``contents``: the bytes of files already read
    (path relative to the tree -> bytes); the others are read here and added to it."""
    from .warp import mask_names, warp_tree

    sources = []
    for file in files:
        if not file.convert or build_file_kind(file.rel) is not None:
            continue
        try:
            data = contents[file.rel] if contents is not None and file.rel in contents else file.source.read_bytes()
        except OSError:
            continue
        if contents is not None:
            contents[file.rel] = data
        if _wide_encoding(data):
            continue
        sources.append((file.rel, data[len(_UTF8_BOM):] if data.startswith(_UTF8_BOM) else data))
    masks = mask_names(sources, parser)
    build_dirs = frozenset(file.rel.rsplit("/", 1)[0] if "/" in file.rel else "" for file in files
                           if build_file_kind(file.rel) is not None)
    return (warp_tree(sources, parser, masks, build_dirs) if options.fix else None), masks


def _port_all(files: list[TreeFile], options: ConvertOptions, rules: RuleSet,
              guard: OutputGuard | None, prepasses: "tuple[WarpTree | None, MaskNames | None] | None" = None,
              *, tree: list[TreeFile] | None = None, contents: "dict[str, bytes] | None" = None) -> Iterator[PortedFile]:
    """Port (and write through ``guard``, unless None) every file, in parallel for large trees.

    In parallel, files are handed out largest first, a few at a time, so no worker is left with
    a long tail; results then come in that order, not in the order of ``files``.

    Args:
        tree: every file of the tree, when ``files`` is only part of it (an incremental
            conversion): includes resolve against it and the prepasses read it.
        prepasses: what :func:`_tree_prepasses` returned for ``tree`` (None: run here).
        contents: bytes of files read already (path relative to the tree -> bytes), by the
            caller or by the prepasses run here. A file ported in this process is not read
            again (its entry is dropped once it is ported); workers read their files themselves.
    """
    from .parse import new_parser

    tree_files = files if tree is None else tree
    tree = tree_sources(tree_files)
    jobs = options.jobs or os.cpu_count() or 1
    size = sum(f.size for f in files if f.convert)
    parser = new_parser()
    contents = {} if contents is None else contents
    if prepasses is None:  # only the ports of C/C++/CUDA files use them (not the copies, nor build files)
        prepasses = (_tree_prepasses(tree_files, options, parser, contents) if any(f.convert for f in files)
                     else (None, None))
    shared, masks = prepasses
    if jobs == 1 or size < _PARALLEL_THRESHOLD_BYTES:
        for file in files:
            data = contents.pop(file.rel, None)
            yield _port_and_write(file, rules, options, tree, parser, guard, shared, masks, data)
        return
    contents.clear()  # the workers read their own files
    from concurrent.futures import ProcessPoolExecutor  # only a parallel run pays for its import

    with ProcessPoolExecutor(max_workers=jobs, initializer=_init_worker,
                             initargs=(rules, options, tree, guard, shared, masks)) as pool:
        largest_first = sorted(files, key=lambda f: -f.size)
        yield from pool.map(_port_in_worker, largest_first, chunksize=4)


def _new_report(src: Path, out: Path | None, options: ConvertOptions, rules: RuleSet) -> Report:
    return Report(
        source=str(src), output=None if out is None else str(out),
        options={"launch_syntax": options.launch_syntax, "offload_archs": list(options.offload_archs),
                 "exclude": list(options.exclude), "fix": options.fix, "target_libs": options.target_libs},
        files=[], rules=rules,
    )


def _migrate_build_files(build_files: list[PortedFile], gpu_cxx_sources: frozenset[str], options: ConvertOptions,
                         rules: RuleSet, guard: OutputGuard | None, outputs: dict | None = None,
                         migrated_files: dict | None = None) -> bool:
    """Migrate the CMake files and Makefiles among the ported files (see :mod:`hipport.buildfiles`):
    their summaries get the findings (suppressions applied) and, when ``guard`` is given, the
    migrated files are written into its OUT (an output edited by hand there is kept, HP0005).

    Args:
        migrated_files: when given, filled with path relative to SRC -> (lines, findings before
            any HP0005, SHA-256 of the migrated output), what :mod:`hipport.incremental` records.

    Returns:
        True when a migrated CMake file includes the platform module (OUT must hold it).
    """
    if not build_files:
        return False
    from .buildfiles import BuildFile, BuildOptions, migrate_build_files  # only a tree with build files needs them

    migrated = migrate_build_files([BuildFile(p.file.rel, p.output) for p in build_files], rules,
                                   BuildOptions(tuple(options.offload_archs), options.target_libs, options.rename_cu),
                                   gpu_cxx_sources)
    for ported, result in zip(build_files, migrated):
        summary = ported.summary
        summary.converted = True
        summary.lines = _line_count(ported.output)
        summary.findings = filter_and_fingerprint(result.findings, ported.output, BUILD_FILE_COMMENTS)
        if migrated_files is not None:
            migrated_files[ported.file.rel] = (summary.lines, list(summary.findings), digest(result.output))
        if outputs is not None:
            outputs[ported.file.rel] = (ported.file.out_rel, ported.output, result.output)
        if guard is not None and guard.write(ported.file.out_rel, result.output, ported.file.mode) == KEPT_EDITED:
            summary.findings.append(_finding(rules, "output-edited", summary.path, 1, 1, output=ported.file.out_rel))
    return any(result.includes_platform_module for result in migrated)


def drop_user_suppressed(report: Report, rules: RuleSet) -> None:
    """Leave out of ``report`` the findings the user's rule files suppress (``suppressions:`` of
    ``--rules FILE``, :class:`hipport.rules.Suppression`)."""
    if not rules.suppressions:
        return
    source = Path(report.source)
    base = source if source.is_dir() else source.parent
    for summary in report.files:
        if summary.findings:
            file = (base / summary.path).resolve()
            summary.findings = [f for f in summary.findings if not rules.suppressed(f, file)]


def check_tree(src: Path, options: ConvertOptions = ConvertOptions(), rules: RuleSet | None = None,
               progress: Callable[[int, int], None] | None = None, *, cuda_names: TreeNames | None = None,
               outputs: dict[str, tuple[str, bytes, bytes]] | None = None) -> Report:
    """Analyse the file or tree ``src`` as :func:`convert_tree` would, writing nothing.

    Args:
        cuda_names: gathers the unknown CUDA names (HP2008) of several calls, which the caller
            reports once (:func:`check_paths`); None: this call reports them.
        outputs: when given, filled with what a conversion would write for each converted
            source and build file: path relative to SRC -> (output path relative to OUT,
            original bytes, ported bytes) (``convert --diff``).

    Returns:
        The report (``output`` is None); suppressed findings are already left out.

    Raises:
        hipport.discover.DiscoveryError, hipport.rules.RuleError, OSError: as convert_tree.
    """
    started = time.perf_counter()
    rules = rules or default_rules(options.target_libs)
    if rules.target_libs != options.target_libs:
        raise ValueError(f"rules loaded for --target-libs={rules.target_libs}, options say {options.target_libs}")
    files = discover(src, None, list(options.exclude), options.rename_cu)
    report = _new_report(src, None, options, rules)
    build_files, gpu_cxx, names = [], set(), cuda_names or TreeNames(rules)
    for done, ported in enumerate(_port_all(files, options, rules, guard=None), 1):
        report.files.append(ported.summary)
        names.add(ported.summary, ported.cuda_names)
        if outputs is not None and ported.file.convert and not build_file_kind(ported.file.rel):
            outputs[ported.file.rel] = (ported.file.out_rel, ported.file.source.read_bytes(), ported.output)
        if build_file_kind(ported.file.rel):
            build_files.append(ported)
        elif (ported.file.convert and ported.file.is_unit and ported.uses_hip
              and not ported.file.rel.endswith((".cu", ".hip", ".c"))):
            gpu_cxx.add(ported.file.rel)
        if progress:
            progress(done, len(files))
    _migrate_build_files(build_files, frozenset(gpu_cxx), options, rules, None, outputs)
    if cuda_names is None:
        names.report()  # unknown CUDA names the tree does not define (HP2008)
        drop_user_suppressed(report, rules)
    report.files.sort(key=lambda s: s.path)
    report.seconds = time.perf_counter() - started
    return report


def check_paths(paths: list[Path], options: ConvertOptions = ConvertOptions(), rules: RuleSet | None = None,
                progress: Callable[[int, int], None] | None = None) -> Report:
    """:func:`check_tree` over several files or folders (as a pre-commit hook passes them); the
    paths in the report are the given paths (joined with the file's path inside a folder). A
    CUDA-looking name that one of the paths declares is not reported in the others (HP2008).

    Raises:
        as check_tree.
    """
    if len(paths) == 1:
        return check_tree(paths[0], options, rules, progress)
    started = time.perf_counter()
    rules = rules or default_rules(options.target_libs)
    if rules.target_libs != options.target_libs:
        raise ValueError(f"rules loaded for --target-libs={rules.target_libs}, options say {options.target_libs}")
    report = _new_report(Path("."), None, options, rules)
    cuda_names = TreeNames(rules)
    for done, path in enumerate(paths, 1):
        part = check_tree(path, options, rules, cuda_names=cuda_names)
        for summary in part.files:
            shown = path.as_posix() if path.is_file() else (path / summary.path).as_posix()
            summary.findings = [replace(f, path=shown) for f in summary.findings]
            summary.path = shown
            report.files.append(summary)
        if progress:
            progress(done, len(paths))
    cuda_names.report()  # after the paths were rewritten: the findings take their summary's path
    drop_user_suppressed(report, rules)
    report.seconds = time.perf_counter() - started
    return report


@dataclass
class ConversionResult:
    """What :func:`convert_tree` did: the report, the paths it wrote (relative to OUT), and which
    files it ported and which recorded ports it reused (:class:`hipport.incremental.Reuse`)."""

    report: Report
    written: list[str] = field(default_factory=list)
    reuse: Reuse = field(default_factory=Reuse)


def convert_tree(src: Path, out: Path, options: ConvertOptions = ConvertOptions(),
                 rules: RuleSet | None = None,
                 progress: Callable[[int, int], None] | None = None) -> ConversionResult:
    """Port the file or tree ``src`` into the folder ``out``.

    Args:
        src: a CUDA source file or folder (never written to).
        out: the output folder (created). Converting again into an OUT hipport wrote leaves
            unchanged outputs untouched, keeps outputs edited by hand (HP0005) and removes the
            outputs of deleted or renamed sources (see :mod:`hipport.manifest`); without a
            manifest there, existing files of the same names are replaced. A file that did not
            change since, nor any cross-file fact its port used, is not parsed again: its
            recorded port is used (see :mod:`hipport.incremental`; not with ``--precise``). The
            report is the one a conversion into an empty OUT makes (but for its seconds).
        options: see :class:`ConvertOptions`.
        rules: loaded rules (default: the shipped ones).
        progress: called after each file with (files done so far, files in all).

    Returns:
        A :class:`ConversionResult`; the reports are already written to ``out``.

    Raises:
        hipport.discover.DiscoveryError: bad SRC/OUT combination (nothing written).
        hipport.rules.RuleError: invalid rule data (nothing written).
        hipport.manifest.ManifestError: OUT holds a hipport-manifest.json that is not one
            (nothing written).
        OSError: a file could not be read or written (files written so far are complete).
    """
    started = time.perf_counter()
    rules = rules or default_rules(options.target_libs)
    if rules.target_libs != options.target_libs:
        raise ValueError(f"rules loaded for --target-libs={rules.target_libs}, options say {options.target_libs}")
    files = discover(src, out, list(options.exclude), options.rename_cu)
    result = ConversionResult(_new_report(src, out, options, rules))
    manifest = load_manifest(out) if out.is_dir() else None
    guard = OutputGuard(out, None if manifest is None else manifest.outputs, options.force,
                        stamps=Stamps() if manifest is None else manifest.stamps)
    record = None
    if options.precise is None:
        record = Record.start(run_key(options, rules), rules, None if manifest is None else manifest.incremental,
                              manifest is not None)
        result.reuse.reason = record.reason
    else:
        result.reuse.reason = "--precise ports every file (its libclang pass reads headers outside SRC)"
    result.reuse.rerun = manifest is not None
    reused, to_port, prepasses, contents = _plan(files, options, record, guard)
    from .cmake import UnitInfo  # not imported at the top: ``hipport check`` writes no build

    units: list[UnitInfo] = []
    build_files, gpu_cxx, cuda_names = [], set(), TreeNames(rules)
    ported_files = itertools.chain(reused, _port_all(to_port, options, rules, guard, prepasses, tree=files,
                                                             contents=contents))
    for done, ported in enumerate(ported_files, 1):
        file = ported.file
        is_build_file = build_file_kind(file.rel) is not None
        if not is_build_file:
            (result.reuse.reused if ported.reused else result.reuse.ported).append(file.rel)
            if record is not None:  # before the tree-wide steps add to the summary
                if ported.reused:
                    record.keep(file.rel, record.entry(file.rel))
                else:
                    record.store(file, ported.source_digest, ported.deps, ported.summary, ported.defines_main,
                                 ported.uses_hip, ported.cuda_names, ported.output_digest)
        result.written.append(file.out_rel)
        result.report.files.append(ported.summary)
        if ported.record:
            guard.written[file.out_rel] = ported.record
        if ported.on_disk:
            guard.on_disk[file.out_rel] = ported.on_disk
        if ported.out_stamp is not None:
            guard.stamps.merge(OUTPUT, {file.out_rel: ported.out_stamp})
        if not ported.reused and not is_build_file and file.stamp and ported.source_digest:
            guard.stamps.note(SOURCE, file.rel, file.stamp, ported.source_digest)  # the bytes ported
        if ported.write_status == KEPT_EDITED:
            ported.summary.findings.append(_finding(rules, "output-edited", file.rel, 1, 1, output=file.out_rel))
        cuda_names.add(ported.summary, ported.cuda_names)
        if file.convert and file.is_unit:
            units.append(UnitInfo(file.out_rel, ported.defines_main, ported.uses_hip))
            if ported.uses_hip and not file.rel.endswith((".cu", ".hip", ".c")):  # C++ files compiled as GPU code
                gpu_cxx.add(file.rel)
        if is_build_file:
            build_files.append(ported)
        if progress:
            progress(done, len(files))
    # SRC's build files are migrated, not copied; they include the platform module when they use CUDA
    build_files.sort(key=lambda p: p.file.rel)  # in SRC's order, however the workers returned them
    needs_platform_module = _build_files_step(build_files, frozenset(gpu_cxx), options, rules, guard, record,
                                              result.reuse)
    closest = record.group("closest") if record is not None else None
    if closest is not None:  # the closest known names of each name reported last time (same rules)
        remember_closest(rules, closest)
    cuda_names.report()  # unknown CUDA names the tree does not define (HP2008)
    if record is not None:
        record.groups["closest"] = {name: list(closest_names(rules, name)) for name in sorted(cuda_names.reported)}
    drop_user_suppressed(result.report, rules)
    result.report.files.sort(key=lambda s: s.path)
    units.sort(key=lambda u: u.out_rel)
    _generated_step(src, out, files, units, needs_platform_module, options, rules, guard, record, result)
    result.reuse.ported.sort()  # in SRC's order, however the workers returned them
    result.reuse.reused.sort()
    result.report.incremental = result.reuse.summary_line()
    return finish_conversion(result, guard, rules, out, started, record)


def _plan(files: list[TreeFile], options: ConvertOptions, record: Record | None,
          guard: OutputGuard) -> "tuple[list[PortedFile], list[TreeFile], tuple | None, dict[str, bytes]]":
    """Which files of the tree an incremental conversion ports and which recorded ports it
    reuses (:mod:`hipport.incremental`), and the tree's prepasses when they are needed.

    A file's record is reused when the file's bytes, output path and every cross-file fact its
    port used are as recorded (its include lookups, the tree files whose macros it read and
    their bytes, whether an include names a tree file) and OUT holds its recorded output
    (:meth:`OutputGuard.write_known`: checked here, so the reused outputs are accounted for in
    ``guard``). The prepasses over the whole tree (:func:`_tree_prepasses`: where ``*_sync``
    masks are defined; with --fix, the shared warp-size decisions) run again only when one of
    their input files changed; when their decisions changed, every file is ported again. Build
    files are always read (their migration is decided together, :func:`_build_files_step`).

    Returns:
        (reused ports, in SRC's order; files to port, in SRC's order; the prepasses for
        :func:`_port_all`, or None to let it run them; the bytes of the files read here, path
        relative to the tree -> bytes, for :func:`_port_all`).
    """
    if record is None:
        return [], files, None, {}
    contents: dict[str, bytes] = {}  # the files read here (those of an unchanged stamp are not)
    digests: dict[str, str] = {}
    stamps = guard.stamps

    def read(convert: bool) -> None:
        for file in files:
            if file.convert is not convert or build_file_kind(file.rel) is not None:
                continue
            known = stamps.known(SOURCE, file.rel, file.stamp) if stamps is not None and file.stamp else None
            if known is not None:  # not written since the last conversion read it
                digests[file.rel] = known
                continue
            try:
                contents[file.rel] = file.source.read_bytes()
            except OSError:
                continue  # port_file reports it as a full conversion does
            digests[file.rel] = digest(contents[file.rel])
            if stamps is not None and file.stamp:
                stamps.note(SOURCE, file.rel, file.stamp, digests[file.rel])

    # The files that are copied, not converted (most of the bytes of a tree with data files),
    # are read only when a record may be reused: the prepasses read only converted files.
    read(True)
    # every converted file's bytes (the prepasses leave out UTF-16/32 files: a change to one
    # runs them again, for the same decisions)
    inputs = digest_json(sorted([f.rel, digests[f.rel]] for f in files if f.convert and f.rel in digests))
    previous = record.group("prepasses")
    prepasses = None
    if previous is None or previous.get("inputs") != inputs:
        from .parse import new_parser

        prepasses = _tree_prepasses(files, options, new_parser(), contents)
        decisions = digest_json([warp_digest(prepasses[0]), canonical(prepasses[1])])
        same = previous is not None and previous.get("decisions") == decisions
    else:
        decisions, same = previous.get("decisions"), True
    record.groups["prepasses"] = {"inputs": inputs, "decisions": decisions}
    if not same:  # the tree-wide decisions changed (or were never recorded): every port may change
        return [], files, prepasses, contents
    read(False)
    sources = tree_sources(files)
    reused, to_port = [], []
    for file in files:
        entry = record.entry(file.rel)
        if (build_file_kind(file.rel) is not None or entry is None or file.rel not in digests
                or not Record.matches(entry, file, digests[file.rel], _HeaderResolver(sources, file.rel), sources,
                                      digests)):
            to_port.append(file)
            continue
        record.refresh_reads(file.rel, digests)
        try:
            restored = record.restore(entry, file)
        except RecordError:
            to_port.append(file)
            continue
        status = guard.write_known(file.out_rel, restored.output)
        if status is None:  # OUT lacks the output, or holds an older one of hipport's: port it again
            to_port.append(file)
            continue
        reused.append(PortedFile(file, b"", restored.summary, restored.defines_main, restored.uses_hip,
                                 restored.cuda_names, write_status=status, record=guard.written.get(file.out_rel, ""),
                                 on_disk=guard.on_disk.get(file.out_rel, ""), source_digest=digests[file.rel],
                                 output_digest=restored.output, reused=True))
    if prepasses is None and any(build_file_kind(f.rel) is None for f in to_port):
        from .parse import new_parser

        prepasses = _tree_prepasses(files, options, new_parser(), contents)
    return reused, to_port, prepasses, contents


def _build_files_step(build_files: list[PortedFile], gpu_cxx: frozenset[str], options: ConvertOptions,
                      rules: RuleSet, guard: OutputGuard, record: Record | None, reuse: Reuse) -> bool:
    """Migrate the tree's build files (:func:`_migrate_build_files`), or reuse the recorded
    migration when every build file, the GPU C++ units, ``--offload-arch`` and ``--target-libs``
    are as recorded and OUT holds the recorded outputs.

    Returns:
        True when a migrated CMake file includes the platform module.
    """
    if not build_files:
        return False
    rels = [p.file.rel for p in build_files]
    key = digest_json([[[p.file.rel, p.source_digest] for p in build_files], sorted(gpu_cxx),
                       list(options.offload_archs), options.target_libs, options.rename_cu])
    previous = record.group("build") if record is not None else None
    if previous is not None and previous.get("key") == key:
        try:
            recorded = [previous["files"][rel] for rel in rels]
            restored = [(entry["lines"], [finding_of(row) for row in entry["findings"]], entry["output"])
                        for entry in recorded]
            platform = previous["platform"]
            if not all(isinstance(lines, int) and isinstance(output, str) for lines, _, output in restored) or \
                    not isinstance(platform, bool):
                raise RecordError("malformed build files")
        except (KeyError, TypeError, RecordError):
            restored = None
        if restored is not None:
            statuses = [guard.write_known(p.file.out_rel, output) for p, (_, _, output) in zip(build_files, restored)]
            if None not in statuses:
                for ported, (lines, findings, _), status in zip(build_files, restored, statuses):
                    summary = ported.summary
                    summary.converted, summary.lines, summary.findings = True, lines, findings
                    if status == KEPT_EDITED:
                        summary.findings.append(_finding(rules, "output-edited", summary.path, 1, 1,
                                                         output=ported.file.out_rel))
                record.groups["build"] = previous
                reuse.reused += rels
                return platform
    migrated: dict = {}
    platform = _migrate_build_files(build_files, gpu_cxx, options, rules, guard, migrated_files=migrated)
    reuse.ported += rels
    if record is not None:
        record.groups["build"] = {"key": key, "platform": platform, "files": {
            rel: {"lines": lines, "findings": [finding_row(f) for f in findings], "output": output}
            for rel, (lines, findings, output) in migrated.items()}}
    return platform


def _generated_step(src: Path, out: Path, files: list[TreeFile], units: list[UnitInfo], needs_platform_module: bool,
                    options: ConvertOptions, rules: RuleSet, guard: OutputGuard, record: Record | None,
                    result: ConversionResult) -> None:
    """Generate CMakeLists.txt (when SRC has none) and the platform module (when a CMake build
    includes it), or reuse the recorded ones when everything they are made from is as recorded:
    the units, every output's bytes as OUT holds them (the include scan reads them), the
    Makefile's facts, the units using textures (HP1210) and ``--offload-arch``."""
    from .cmake import PLATFORM_MODULE, cmake_listable, generate_cmake, render_platform_module, units_reaching
    from .makefile_facts import read_makefile_facts

    has_cmake = any(f.rel == "CMakeLists.txt" for f in files)
    name = (src.resolve().name if src.is_dir() else src.stem) or "hipport_port"
    listed = [u for u in units if cmake_listable(u.out_rel)]
    if not has_cmake and units:
        for unit in units:
            if not cmake_listable(unit.out_rel):
                summary = next(f for f in result.report.files if f.output == unit.out_rel)
                summary.findings.append(_finding(rules, "cmake-unlistable", summary.path, 1, 1, output=unit.out_rel))
    makefile = read_makefile_facts(src) if src.is_dir() and not has_cmake and units else None
    textures = sorted({s.output for s in result.report.files if any(f.rule_id == "HP1210" for f in s.findings)})
    written = sorted(set(result.written))
    contents = [guard.on_disk.get(rel) for rel in written]
    key = digest_json([has_cmake, name, canonical(units), list(options.offload_archs), canonical(makefile),
                       needs_platform_module, textures, written, contents])
    previous = record.group("generated") if record is not None and None not in contents else None
    if previous is not None and previous.get("key") == key:
        outputs = previous.get("outputs")
        if (isinstance(outputs, list) and all(isinstance(o, list) and len(o) == 2 and all(isinstance(v, str) for v in o)
                                              for o in outputs)
                and all(guard.write_known(rel, output) == UNCHANGED for rel, output in outputs)):
            for rel, _ in outputs:
                result.written.append(rel)
                result.report.generated.append(rel)
            record.groups["generated"] = previous
            return
    generated = []
    if not has_cmake and units:
        cmake_text = generate_cmake(name, out, listed, frozenset(result.written), list(options.offload_archs), makefile)
        generated.append(_write_generated(result, guard, rules, "CMakeLists.txt",
                                          cmake_text.encode("utf-8", "surrogateescape")))
        result.written.append("CMakeLists.txt")
        result.report.generated.append("CMakeLists.txt")
        # the generated build includes the platform module (so does a migrated CMake build)
        needs_platform_module = True
    if needs_platform_module and PLATFORM_MODULE not in result.written:
        # units using texture/surface functions (HP1210 in them or their headers): no gfx94x there
        images = units_reaching(out, [u.out_rel for u in units], frozenset(result.written), set(textures))
        module = render_platform_module(options.offload_archs, image_sources=images)
        generated.append(_write_generated(result, guard, rules, PLATFORM_MODULE, module.encode("utf-8")))
        result.written.append(PLATFORM_MODULE)
        result.report.generated.append(PLATFORM_MODULE)
    if record is not None:
        record.groups["generated"] = {"key": key, "outputs": generated}


def finish_conversion(result: ConversionResult, guard: OutputGuard, rules: RuleSet, out: Path,
                      started: float, record: Record | None = None) -> ConversionResult:
    """The last steps of a conversion into ``out`` (``convert`` and ``convert --compat``): report
    the stale outputs kept (edited by hand), sort the report, stamp its time (seconds since
    ``started``, a :func:`time.perf_counter` value), write hipport-report.json and .md
    atomically and save the manifest (with ``record``, :mod:`hipport.incremental`, when given).

    A report file that already holds exactly its new content is not rewritten. The Markdown
    report is a function of the JSON report without its seconds (and of the rules, templates
    and hipport, which ``record``'s run key covers): with a ``record`` whose previous conversion
    had the same content, and OUT holding the Markdown it wrote, it is not rendered again.
    Returns ``result``."""
    # outputs of sources deleted or renamed since the last conversion into OUT
    _removed, kept = guard.stale_outputs()
    for rel in kept:
        result.report.files.append(FileSummary(path=rel, output=rel, converted=False, findings=[
            _finding(rules, "stale-output-kept", rel, 1, 1, output=rel)]))
    result.report.files.sort(key=lambda s: s.path)
    result.report.seconds = time.perf_counter() - started
    document = result.report.to_json()
    # File names that are not UTF-8 reach Python as surrogate escapes: the Markdown keeps their
    # bytes, the JSON writes them as \udcXX escapes (still valid JSON).
    _write_report(out / REPORT_JSON, result.report.json_text(document).encode("utf-8", "backslashreplace"))
    result.written.append(REPORT_JSON)
    content = digest_json({**document, "totals": {k: v for k, v in document["totals"].items() if k != "seconds"}})
    previous = record.group("report") if record is not None else None
    markdown_digest = previous.get("markdown") if previous is not None and previous.get("content") == content else None
    if not (isinstance(markdown_digest, str) and _holds(out / REPORT_MARKDOWN, markdown_digest)):
        markdown = result.report.markdown_text().encode("utf-8", "surrogateescape")
        _write_report(out / REPORT_MARKDOWN, markdown)
        markdown_digest = digest(markdown)
    result.written.append(REPORT_MARKDOWN)
    if record is not None:
        record.groups["report"] = {"content": content, "markdown": markdown_digest}
        guard.incremental = record.document()
    guard.save()
    return result


def _holds(path: Path, data_digest: str) -> bool:
    """True when the file ``path`` exists and its bytes have the SHA-256 ``data_digest``."""
    try:
        return digest(path.read_bytes()) == data_digest
    except OSError:
        return False


def _write_report(path: Path, data: bytes) -> None:
    """Write a report file atomically, unless it holds exactly ``data`` already."""
    try:
        if path.read_bytes() == data:
            return
    except OSError:
        pass
    atomic_write(path, data)


def _write_generated(result: ConversionResult, guard: OutputGuard, rules: RuleSet, rel: str, data: bytes) -> list[str]:
    """Write a file hipport generates (CMakeLists.txt, the platform module) through ``guard``;
    one edited by hand since the last conversion is kept, with its finding (HP0005) listed
    under the output's own path, as it has no source file. Returns ``[rel, SHA-256 of data]``."""
    if guard.write(rel, data) == KEPT_EDITED:
        result.report.files.append(FileSummary(path=rel, output=rel, converted=False, findings=[
            _finding(rules, "output-edited", rel, 1, 1, output=rel)]))
    return [rel, digest(data)]

"""The ``hipport`` command line (built with click).

Exit codes: 0 success (``check``: no finding at or above ``--fail-on``); 1 ``check`` found such
findings; 2 bad usage or input (a message names the file, and the line where there is one).
"""

from __future__ import annotations

import os
import signal
import sys
from contextlib import contextmanager
from pathlib import Path

import click

from . import __version__
from .options import DEFAULT_OFFLOAD_ARCHS, FORMATS, LAUNCH_SYNTAXES, SEVERITIES, TARGET_LIBS

# The stage modules (parser, rules, CMake, reports: about 0.3 CPU s) are imported by the command
# that runs, not here: `hipport --help` and `hipport CMD --help` only build the click parser.


class InputError(click.ClickException):
    """Bad usage or input: printed as ``Error: <file>:<line>: <message>``, exit status 2."""

    exit_code = 2


class _Terminated(Exception):
    """SIGTERM arrived: unwind like Ctrl-C so no temporary file is left behind."""


def _terminate(_signum, _frame) -> None:
    raise _Terminated


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="hipport")
def main() -> None:
    """Port CUDA source trees to HIP."""


def _split_archs(value) -> tuple[str, ...]:
    items = value if isinstance(value, (list, tuple)) else str(value).replace(",", ";").split(";")
    archs = [a.strip() for a in items if a.strip()]
    from .options import validate_offload_archs

    try:
        return tuple(validate_offload_archs(archs))
    except ValueError as error:
        raise InputError(f"--offload-arch: {error}") from None


@contextmanager
def _input_errors(writes: bool = True):
    """Turn the errors a user can fix into ``Error: ...`` and exit status 2; Ctrl-C/SIGTERM into
    130/143, with a message that says what was written (``writes``: convert) or that nothing was
    (check)."""
    from .config import ConfigError
    from .discover import DiscoveryError
    from .manifest import ManifestError
    from .rules import RuleError
    from .suppress import BaselineError

    signal.signal(signal.SIGTERM, _terminate)
    try:
        yield
    except (DiscoveryError, RuleError, ConfigError, BaselineError, ManifestError) as error:
        raise InputError(str(error)) from None
    except OSError as error:
        where = f"{error.filename}: " if error.filename else ""
        raise InputError(f"{where}{error.strerror or error}") from None
    except (KeyboardInterrupt, _Terminated) as stop:
        click.echo("hipport: interrupted; every file written so far is complete, the reports were not written"
                   if writes else "hipport: check interrupted; nothing was written and no result was given", err=True)
        sys.exit(143 if isinstance(stop, _Terminated) else 130)  # 128 + SIGTERM / SIGINT


@contextmanager
def _progress_bar(quiet: bool):
    """A tqdm bar on a terminal (stderr), nothing otherwise; yields the progress callback."""
    if quiet or not sys.stderr.isatty():
        yield lambda done, total: None
        return
    from tqdm import tqdm  # imported here: only a terminal shows the bar

    with tqdm(unit="file", leave=False) as bar:
        def progress(done: int, total: int) -> None:
            bar.total = total
            bar.update(done - bar.n)

        yield progress


def _precise_options(precise: bool, compile_commands, include_dirs, defines, cuda_path) -> PreciseOptions | None:
    """The --precise settings, or None (with a message on stderr) when precise mode cannot run."""
    if not precise:
        return None
    from .precise import PreciseOptions, PreciseUnavailable, session_for

    options = PreciseOptions(compile_commands, tuple(include_dirs), tuple(defines), cuda_path)
    try:
        session_for(options)
    except PreciseUnavailable as error:
        click.echo(f"hipport: precise mode unavailable: {error}; using the tree-sitter analysis only", err=True)
        return None
    return options


def _options(config: ProjectConfig, exclude, launch_syntax, offload_arch, jobs, fix: bool = False,
             precise: PreciseOptions | None = None, target_libs: str | None = None,
             force: bool = False) -> ConvertOptions:
    """Command-line values, else ``[tool.hipport]`` values, else the defaults."""
    from .convert import ConvertOptions

    target_libs = _choice(config, "target-libs", target_libs, TARGET_LIBS, "hip")
    launch = launch_syntax or config.get("launch-syntax", "chevron")
    if launch not in LAUNCH_SYNTAXES:
        raise InputError(f"{config.path}: [tool.hipport] launch-syntax must be one of {', '.join(LAUNCH_SYNTAXES)}")
    archs = _split_archs(offload_arch or config.get("offload-arch") or DEFAULT_OFFLOAD_ARCHS)
    return ConvertOptions(exclude=tuple(config.get("exclude", [])) + tuple(exclude), launch_syntax=launch,
                          offload_archs=archs, jobs=jobs, fix=fix, precise=precise, target_libs=target_libs,
                          force=force)


def _choice(config: ProjectConfig, key: str, value: str | None, choices, default: str) -> str:
    chosen = value or config.get(key, default)
    if chosen not in choices:
        raise InputError(f"{config.path}: [tool.hipport] {key} must be one of {', '.join(choices)}")
    return chosen


_common_options = [
    click.option("--exclude", multiple=True, metavar="PATTERN",
                 help="gitignore-style pattern (relative to SRC) of paths to leave out; repeatable."),
    click.option("--launch-syntax", type=click.Choice(LAUNCH_SYNTAXES), default=None,
                 help="Keep kernel<<<...>>> launches (default: chevron), or rewrite them to hipLaunchKernelGGL."),
    click.option("-j", "--jobs", type=click.IntRange(min=0, max=256), default=0, show_default=True,
                 help="Worker processes (0: one per CPU core)."),
    click.option("--format", "fmt", type=click.Choice(FORMATS), default=None,
                 help="What to print: text (default), json, markdown, sarif or github (workflow annotations)."),
    click.option("--config", "config_path", type=click.Path(path_type=Path, dir_okay=False), default=None,
                 help="pyproject.toml to read [tool.hipport] from (default: the nearest one above SRC)."),
    click.option("-q", "--quiet", is_flag=True, help="Print nothing but errors."),
    click.option("--precise", is_flag=True,
                 help="Also analyse with libclang: macros expanded, real types (needs hipport[precise] and CUDA headers)."),
    click.option("--compile-commands", type=click.Path(path_type=Path), default=None,
                 help="compile_commands.json (or its folder) giving --precise the flags of each file."),
    click.option("-I", "include_dirs", multiple=True, metavar="DIR", help="Include folder for --precise; repeatable."),
    click.option("-D", "defines", multiple=True, metavar="NAME[=VALUE]", help="Macro definition for --precise; repeatable."),
    click.option("--cuda-path", type=click.Path(path_type=Path, file_okay=False), default=None,
                 help="CUDA installation whose headers --precise parses with."),
    click.option("--rules", "rules_files", multiple=True, type=click.Path(path_type=Path, dir_okay=False),
                 metavar="FILE",
                 help="A YAML file of your own mappings and suppressions (docs/rules-format.md), added to the "
                      "shipped rules (your mapping wins over a shipped one); repeatable."),
    click.option("--target-libs", type=click.Choice(TARGET_LIBS), default=None,
                 help="Port CUDA libraries to HIP's portable ones (hip: hipBLAS, hipSPARSE, hipSOLVER, hipFFT, hipRAND, "
                      "hipCUB; default) or to ROCm's own (roc: rocBLAS, rocSPARSE, rocSOLVER, rocRAND, MIOpen; AMD only)."),
]


def _rules(config: ProjectConfig, target_libs: str, rules_files) -> RuleSet:
    """The shipped rules plus the user's: ``rules = [...]`` of [tool.hipport] (relative to its
    pyproject.toml), then each --rules FILE; a file named twice is loaded once."""
    from .rules import rules_for

    paths: dict[Path, Path] = {}
    for path in [*(config.resolve(p) for p in config.get("rules", [])), *rules_files]:
        paths.setdefault(path.resolve(), path)
    return rules_for(target_libs, paths.values())


def _with_common_options(function):
    for option in reversed(_common_options):
        function = option(function)
    return function


@main.command()
@click.argument("src", type=click.Path(path_type=Path))
@click.option("-o", "--output", "out_text", default=None, type=str, metavar="OUT",
              help="Folder to write the HIP tree, CMake build and reports into (required unless --diff).")
@click.option("--diff", "show_diff", is_flag=True,
              help="Print a unified diff of what the conversion would change (source -> port) and write nothing; "
                   "exit 1 when something would change.")
@click.option("--in-place", "in_place", is_flag=True,
              help="Rewrite SRC itself: every file changed is first copied to FILE.hipport-bak; the reports go to "
                   "SRC/hipport-report.md and .json. File names are kept unless --rename-cu.")
@click.option("--rename-cu", "rename_cu", is_flag=True,
              help="With --in-place: rename .cu files to .hip (includes and build files follow).")
@click.option("--offload-arch", "offload_arch", default=None, metavar="LIST",
              help="Default CMAKE_HIP_ARCHITECTURES of the generated CMake build, ';' or ',' separated "
                   f"(default: {';'.join(DEFAULT_OFFLOAD_ARCHS)}).")
@click.option("--force", is_flag=True,
              help="Replace outputs edited by hand since the last conversion into OUT, and remove stale ones "
                   "even when edited (default: keep them and report HP0005/HP0006).")
@click.option("--fix", is_flag=True,
              help="Also apply the safe wavefront-size rewrites: 32-bit ballot and mask variables widened to 64 bits, "
                   "32/31/>>5 on threadIdx to warpSize arithmetic; and delete the register keyword (an error in C++17).")
@click.option("--compat", is_flag=True,
              help="Keep the CUDA sources as written and add hipport_compat.h (the CUDA names the tree uses, mapped "
                   "to HIP under HIP for AMD), CUDA-named shim headers and a CMake build of the same .cu files for "
                   "AMD, HIP on NVIDIA or plain CUDA (docs/compat.md); --fix then makes only edits that stay CUDA.")
@_with_common_options
def convert(src: Path, out_text: str | None, show_diff: bool, in_place: bool, rename_cu: bool,
            offload_arch: str | None, force: bool, fix: bool, compat: bool,
            exclude: tuple[str, ...],
            launch_syntax: str | None, jobs: int, fmt: str | None, config_path: Path | None, quiet: bool,
            precise: bool, compile_commands: Path | None, include_dirs, defines, cuda_path: Path | None,
            rules_files: tuple[Path, ...], target_libs: str | None) -> None:
    """Port the CUDA file or tree SRC to HIP in the folder OUT (SRC is modified only with --in-place).

    OUT receives the ported tree (.cu files become .hip), a CMakeLists.txt when SRC has none,
    and the migration report: hipport-report.md (Markdown) and hipport-report.json.

    With --diff, nothing is written: the diff goes to standard output. With --in-place, SRC
    itself is rewritten, each changed file backed up as FILE.hipport-bak first.

    Exit status: 0 done (--diff: nothing would change), 1 --diff: something would change,
    2 bad usage or input, 130 interrupted.
    """
    from .config import load_config
    from .convert import REPORT_MARKDOWN, convert_tree
    from .formats import render

    if rename_cu and not in_place:
        raise InputError("--rename-cu goes with --in-place (convert -o OUT always names the ports of .cu files .hip)")
    if in_place:
        if compat and rename_cu:
            raise InputError("--compat keeps the .cu names, so it takes no --rename-cu")
        if out_text is not None or show_diff:
            raise InputError(f"--in-place rewrites SRC, so it takes no {'-o' if out_text is not None else '--diff'}; "
                             "use -o OUT to write the port elsewhere, or --diff to see it without writing")
        if force:
            raise InputError("--force is about hand edits in -o OUT; --in-place keeps a backup of every file instead")
        _convert_in_place(src, rename_cu, offload_arch, fix, exclude, launch_syntax, jobs, fmt, config_path, quiet,
                          _precise_options(precise, compile_commands, include_dirs, defines, cuda_path), rules_files,
                          target_libs, compat=compat)
        return
    if show_diff:
        if compat:
            raise InputError("--compat writes a tree (the sources stay as written), so it takes -o OUT, not --diff")
        if out_text is not None:
            raise InputError("--diff writes nothing, so it takes no -o")
        _convert_diff(src, exclude, launch_syntax, offload_arch, jobs, fix, config_path, quiet, target_libs, rules_files)
        return
    if out_text is None:
        raise InputError("give the output folder with -o OUT (or use --diff to see what would change)")
    if not str(out_text):
        raise InputError("the output folder (-o) is empty")
    if out_text == "-":
        raise InputError("-o -: hipport writes a folder (the ported tree and its reports), not standard output; "
                         "name a folder, or use --format to choose what is printed")
    out = Path(out_text)
    with _input_errors():
        config = load_config(src, config_path)
        options = _options(config, exclude, launch_syntax, offload_arch, jobs, fix,
                           _precise_options(precise, compile_commands, include_dirs, defines, cuda_path), target_libs,
                           force=force)
        fmt = _choice(config, "format", fmt, FORMATS, "text")
        rules = _rules(config, options.target_libs, rules_files)
        with _progress_bar(quiet) as progress:
            if compat:
                from .compat import compat_tree
                result = compat_tree(src, out, options, rules, progress=progress)
            else:
                result = convert_tree(src, out, options, rules, progress=progress)
    if quiet:
        return
    if result.report.found_no_cuda:
        click.echo(result.report.no_cuda_warning(), err=True)
    if fmt == "text":
        click.echo(result.report.summary_text())
        click.echo(f"report: {out / REPORT_MARKDOWN}")
    else:
        click.echo(render(result.report, rules, fmt), nl=False)


def _convert_in_place(src: Path, rename_cu: bool, offload_arch, fix: bool, exclude, launch_syntax, jobs, fmt,
                      config_path, quiet: bool, precise, rules_files, target_libs, compat: bool = False) -> None:
    """``convert --in-place`` and ``convert --compat --in-place`` (see :mod:`hipport.inplace`)."""
    from dataclasses import replace

    from .config import load_config
    from .convert import REPORT_MARKDOWN
    from .formats import render
    from .report import plural
    from .inplace import BACKUP_SUFFIX, InPlaceError, convert_in_place

    with _input_errors():
        config = load_config(src, config_path)
        options = replace(_options(config, exclude, launch_syntax, offload_arch, jobs, fix, precise, target_libs),
                          rename_cu=rename_cu)
        fmt = _choice(config, "format", fmt, FORMATS, "text")
        rules = _rules(config, options.target_libs, rules_files)
        with _progress_bar(quiet) as progress:
            try:
                if compat and not src.is_dir():
                    raise InputError(f"{src}: --compat --in-place takes a folder (the compat header and its CMake "
                                     "build are written at its top); for one file use --compat -o OUT")
                result = convert_in_place(src, options, rules, progress=progress, compat=compat)
            except InPlaceError as error:
                raise InputError(str(error)) from None
    if quiet:
        return
    if result.report.found_no_cuda:
        click.echo(result.report.no_cuda_warning(), err=True)
    if fmt != "text":
        click.echo(render(result.report, rules, fmt), nl=False)
        return
    click.echo(result.report.summary_text())
    click.echo(f"in place: {plural(len(result.changed), 'file')} rewritten, {plural(len(result.created), 'file')} "
               f"created, {plural(len(result.removed), 'file')} renamed away; "
               f"{plural(len(result.backups), 'backup')} ({'*' + BACKUP_SUFFIX})"
               + (f"; {plural(len(result.dropped), 'generated file')} no longer needed, removed" if result.dropped else ""))
    click.echo(f"report: {result.root / REPORT_MARKDOWN}")


def _convert_diff(src: Path, exclude, launch_syntax, offload_arch, jobs, fix: bool, config_path, quiet: bool,
                  target_libs, rules_files=()) -> None:
    """``convert --diff``: the unified diff of the port on standard output, nothing written;
    exit 1 when a file would change."""
    from .config import load_config
    from .report import plural
    from .convert import check_tree
    from .diffs import tree_diff

    with _input_errors(writes=False):
        config = load_config(src, config_path)
        options = _options(config, exclude, launch_syntax, offload_arch, jobs, fix, None, target_libs)
        outputs: dict = {}
        check_tree(src, options, _rules(config, options.target_libs, rules_files), outputs=outputs)
    diff, changed = tree_diff(outputs)
    sys.stdout.flush()
    sys.stdout.buffer.write(diff)
    sys.stdout.buffer.flush()
    if not quiet:
        click.echo(f"hipport: {plural(changed, 'file')} of {len(outputs):,} would change; nothing was written", err=True)
    sys.exit(1 if changed else 0)


@main.command()
@click.argument("srcs", metavar="SRC...", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--fail-on", type=click.Choice(SEVERITIES), default=None,
              help="Exit 1 when a finding has this severity or a higher one (default: error).")
@click.option("--baseline", "baseline_path", type=click.Path(path_type=Path, dir_okay=False), default=None,
              help="Only findings not recorded in this baseline file count.")
@click.option("--write-baseline", "write_baseline_path", type=click.Path(path_type=Path, dir_okay=False), default=None,
              help="Record today's findings as the baseline, then exit 0.")
@click.option("--output-file", type=click.Path(path_type=Path, dir_okay=False), default=None,
              help="Write the formatted findings to this file instead of standard output.")
@click.option("--diff-base", "diff_base", default=None, metavar="REV",
              help="Only findings on lines added or changed since the git revision REV (e.g. origin/main) count.")
@_with_common_options
def check(srcs: tuple[Path, ...], fail_on: str | None, baseline_path: Path | None, write_baseline_path: Path | None,
          output_file: Path | None, diff_base: str | None, exclude: tuple[str, ...], launch_syntax: str | None, jobs: int,
          fmt: str | None, config_path: Path | None, quiet: bool, precise: bool, compile_commands: Path | None,
          include_dirs, defines, cuda_path: Path | None, rules_files: tuple[Path, ...],
          target_libs: str | None) -> None:
    """Report what in the CUDA files or trees SRC... will not port, writing nothing.

    Findings on a line holding `// hipport: ignore[HP1001]` (or a bare `hipport: ignore`), or
    below a comment line holding it, are left out; with --diff-base REV, so are findings on lines
    that did not change since the git revision REV (a pull request's base). Settings may come from [tool.hipport] in
    pyproject.toml.

    Exit status: 0 no finding at or above --fail-on, 1 such findings, 2 bad usage or input,
    130 interrupted (Ctrl-C), 143 terminated (SIGTERM).
    """
    from .config import load_config
    from .convert import check_paths
    from .emit import atomic_write
    from .formats import render
    from .report import plural
    from .suppress import new_findings, read_baseline, write_baseline

    with _input_errors(writes=False):
        config = load_config(srcs[0], config_path)
        options = _options(config, exclude, launch_syntax, None, jobs,
                           precise=_precise_options(precise, compile_commands, include_dirs, defines, cuda_path),
                           target_libs=target_libs)
        fmt = _choice(config, "format", fmt, FORMATS, "text")
        fail_on = _choice(config, "fail-on", fail_on, SEVERITIES, "error")
        if baseline_path is None and config.get("baseline"):
            baseline_path = config.resolve(config.get("baseline"))
        rules = _rules(config, options.target_libs, rules_files)
        with _progress_bar(quiet) as progress:
            report = check_paths(list(srcs), options, rules, progress=progress)
        if write_baseline_path is not None:
            write_baseline(write_baseline_path, report.findings)
            if not quiet:
                click.echo(f"hipport: wrote {plural(len(report.findings), 'finding')} to the baseline {write_baseline_path}")
            return
        if baseline_path is not None:
            keep = {id(f) for f in new_findings(report.findings, read_baseline(baseline_path))}
            for summary in report.files:
                summary.findings = [f for f in summary.findings if id(f) in keep]
        if diff_base is not None:
            from .changed_lines import DiffBaseError, changed_lines

            try:
                changed = changed_lines(diff_base, srcs[0])
            except DiffBaseError as error:
                raise InputError(str(error)) from None
            for summary in report.files:
                summary.findings = [f for f in summary.findings if changed.contains(Path(report.display_path(f)), f.line)]
        if report.found_no_cuda and not quiet:
            click.echo(report.no_cuda_warning(), err=True)
        text = render(report, rules, fmt)
        if output_file is not None:
            atomic_write(output_file, text.encode("utf-8", "surrogateescape"))
        elif not quiet:
            click.echo(text, nl=False)
    limit = SEVERITIES.index(fail_on)
    failing = [f for f in report.findings if SEVERITIES.index(f.severity) <= limit]
    sys.exit(1 if failing else 0)


def describe_mapping(mapping, calls=()) -> str:
    """Plain-text description of one mapping entry (what ``hipport explain cudaMalloc`` prints):
    its HIP (and, in a family with a ROCm library, roc) name, status, versions, and the call
    rewrites of ``rules/calls.yaml`` that apply to it (``calls``)."""
    rows = [
        ("CUDA", mapping.cuda), ("HIP", mapping.hip or "(none: HIP has no equivalent)"),
    ]
    if mapping.roc_library:
        roc_name, roc_status = mapping.target("roc")
        rows.append(("roc", f"{roc_name or f'(none: {mapping.roc_library} has no equivalent)'}"
                            + (f" [{roc_status}]" if roc_status != mapping.status else "")))
    rows += [("kind", mapping.kind), ("status", mapping.status), ("family", mapping.family)]
    if mapping.section:
        rows.append(("section", mapping.section))
    rows += [(key.replace("_", " "), value) for key, value in mapping.versions.items()]
    for call in calls:
        if call.differs or call.narrower:
            condition = f"with {call.arguments} arguments: " if call.arguments is not None else ""
            rows.append(("arguments", f"{condition}{call.differs or call.narrower} "
                                      f"({'HP2010' if call.differs else 'HP2011'})"))
        elif call.hip is not None:
            rows.append(("rewrite", f"with {call.arguments} arguments: {call.hip}"))
        else:
            rows.append(("rewrite", f"argument {call.argument + 1} becomes {call.wrap.replace('{}', '<argument>')}"))
    if mapping.note:
        rows.append(("note", mapping.note))
    if mapping.hip_lacks:
        rows.append(("HIP lacks", "; ".join(f"{mapping.cuda}({s})" for s in mapping.hip_lacks) + " (HP2015)"))
        rows.append(("instead", mapping.overload_fix))
    if mapping.absent_fix:
        rows.append(("absent", f"no HIP 6.4 or ROCm 6.4 package ships {mapping.hip} (HP2016)"))
        rows.append(("instead", mapping.absent_fix))
    if mapping.kind in ("type", "enum"):
        from .elaborated import describe_tag
        for label, name in (("HIP type", mapping.hip), ("roc type", mapping.roc if mapping.roc_library else None)):
            if name and (fact := describe_tag(name)):
                rows.append((label, fact))
    rows.append(("defined at", f"{mapping.path}:{mapping.line}"))
    width = max(len(key) for key, _ in rows)
    return "\n".join(f"{key.ljust(width)}  {value}" for key, value in rows)


def describe_construct(rules, name: str) -> str | None:
    """Plain-text description of the constructs of ``rules/constructs.yaml`` called ``name``
    (``tex2D``, ``__reduce_add_sync``, ``cuda_fp8.h``): where the name counts and the check it
    raises; None when no construct has that name."""
    found = [c for (where, cname), c in sorted(rules.constructs.items()) if cname == name]
    if not found:
        return None
    rows = [("CUDA", name)]
    for construct in found:
        check = rules.check(construct.check)
        rows += [("used as", construct.where), ("reported", f"{check.id} {check.name} ({check.severity})"),
                 ("see", f"hipport explain {check.id}"), ("defined at", f"{construct.path}:{construct.line}")]
    width = max(len(key) for key, _ in rows)
    return "\n".join(f"{key.ljust(width)}  {value}" for key, value in rows)


@main.command()
@click.argument("name")
def explain(name: str) -> None:
    """Explain a check (HP1001 or inline-ptx) or a CUDA name (cudaMalloc, cuda_runtime.h)."""
    from .docs import render_check
    from .rules import RuleError, default_rules
    from .unknown_names import describe_unknown

    try:
        rules = default_rules()
    except RuleError as error:
        raise InputError(str(error)) from None
    check = rules.checks.get(name.upper()) or rules.checks_by_name.get(name)
    if check is not None:
        click.echo(render_check(check, rules), nl=False)
        return
    mapping = rules.identifiers.get(name) or rules.headers.get(name) or rules.namespaces.get(name)
    if mapping is not None:
        click.echo(describe_mapping(mapping, rules.calls.get(name, ())))
        return
    described = describe_construct(rules, name)
    if described is not None:
        click.echo(described)
        return
    known = [*rules.checks, *rules.checks_by_name, *rules.identifiers, *rules.headers, *rules.namespaces,
             *dict.fromkeys(construct for _, construct in rules.constructs)]
    import difflib

    close = difflib.get_close_matches(name, known, n=3)
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    unknown = describe_unknown(rules, name) or ""  # a CUDA-looking name: what hipport check says of it
    raise InputError(f"{name!r} is neither a check id or name nor a CUDA name hipport knows{unknown}{hint}")


@main.command()
@click.option("--format", "fmt", type=click.Choice(("text", "markdown", "json")), default="text", show_default=True,
              help="Plain table, Markdown table (as in the README) or JSON.")
def counts(fmt: str) -> None:
    """Print how many CUDA names hipport knows and maps to HIP (and ROC), per API family, next
    to the counts of HIPIFY's published tables."""
    from .counts import counts_json, counts_markdown, counts_text, family_counts
    from .rules import RuleError, default_rules

    try:
        rules = default_rules()
    except RuleError as error:
        raise InputError(str(error)) from None
    render_counts = {"text": counts_text, "markdown": counts_markdown, "json": counts_json}[fmt]
    click.echo(render_counts(family_counts(rules)), nl=False)


def _default_platform() -> str:
    """``HIP_PLATFORM`` from the environment (``nvidia``/``nvcc`` or ``amd``), else ``amd``."""
    return "nvidia" if os.environ.get("HIP_PLATFORM", "").lower() in ("nvidia", "nvcc") else "amd"


@main.command()
@click.argument("out", type=click.Path(path_type=Path, file_okay=False))
@click.option("--platform", type=click.Choice(["amd", "nvidia"]), default=None,
              help="GPU platform to build for (default: $HIP_PLATFORM, else amd).")
@click.option("--offload-arch", "offload_arch", default=None, metavar="LIST",
              help="GPU architectures, ';' or ',' separated: gfx90a,gfx1100 for amd, 90 or sm_90 for nvidia "
                   "(default: the build's own, set at convert time; 90 for nvidia).")
@click.option("--build-dir", type=click.Path(path_type=Path, file_okay=False), default=None,
              help="Build folder (default: OUT/build-<platform>).")
@click.option("--run", "run_programs", is_flag=True, help="Run every executable built and print their exit statuses.")
@click.option("-j", "--jobs", type=click.IntRange(min=0, max=256), default=0, show_default=True,
              help="Parallel build jobs (0: one per CPU core).")
@click.option("--timeout", "run_timeout", type=click.FloatRange(min=0, min_open=True), default=60.0,
              show_default=True, help="Seconds each program may run with --run.")
def build(out: Path, platform: str | None, offload_arch: str | None, build_dir: Path | None, run_programs: bool,
          jobs: int, run_timeout: float) -> None:
    """Configure and build the ported tree OUT with CMake for AMD or NVIDIA GPUs.

    Checks the toolchain first (CMake 3.21+; amd: clang++ with HIP support, clang-offload-bundler,
    device libraries, HIP headers; nvidia: nvcc and HIP's NVIDIA headers), naming what to install
    for each missing piece. Prints the executables built; --run runs each and prints a table of
    exit statuses.

    Exit status: 0 built (and every program exited 0); 1 CMake failed or a program failed
    (a failed build prints its first compiler error lines, then the log's path); 2 bad usage,
    OUT is not a tree `hipport convert` wrote (nothing is written there), or a toolchain piece
    is missing.
    """
    from .build import (BuildFailed, NotAPort, ToolchainIncomplete, build_tree, check_port, find_tools, format_run_table,
                        normalize_archs)

    platform = platform or _default_platform()
    try:
        archs = normalize_archs(platform, offload_arch) if offload_arch else None
    except ValueError as error:
        raise InputError(f"--offload-arch: {error}") from None
    try:
        check_port(out)  # a CUDA tree or another project: refused before anything is written
    except NotAPort as error:
        raise InputError(str(error)) from None
    signal.signal(signal.SIGTERM, _terminate)
    try:
        tools = find_tools(platform)
        result = build_tree(out, platform, archs, build_dir, jobs or None, run_programs, run_timeout, tools,
                            log=lambda message: click.echo(f"hipport build: {message}", err=True))
    except (KeyboardInterrupt, _Terminated) as stop:
        click.echo("hipport build: interrupted; CMake and the programs it started were stopped", err=True)
        sys.exit(143 if isinstance(stop, _Terminated) else 130)
    except ToolchainIncomplete as error:
        raise InputError(str(error)) from None
    except BuildFailed as error:
        click.echo(f"Error: {error}", err=True)
        sys.exit(1)
    built = [(name, path) for name, path in result.programs if path.is_file()]
    click.echo(f"built {len(built)} executable{'' if len(built) == 1 else 's'} in {result.build_dir}:")
    for name, path in result.programs:
        click.echo(f"  {path}" + ("" if path.is_file() else " (not built)"))
    if run_programs:
        click.echo(format_run_table(result.runs), nl=False)
    sys.exit(0 if result.ok else 1)


@main.command(context_settings={"ignore_unknown_options": True})
@click.argument("out", type=click.Path(path_type=Path))
@click.option("--wave", type=click.Choice(["64", "32"]), required=True,
              help="Wavefront width: 64 as on CDNA (gfx9: gfx90a, gfx942), 32 as on RDNA (gfx1030, gfx1100).")
@click.option("--run", "run_program", is_flag=True, help="Run the program after building it (exit with its status).")
@click.option("--compiler", default=None, metavar="CXX",
              help="Host C++ compiler (default: $HIPPORT_EMULATOR_CXX, else g++-12, clang++-19, g++, clang++).")
@click.option("-I", "include_dirs", multiple=True, metavar="DIR", help="Extra include folder, relative to OUT.")
@click.option("-D", "defines", multiple=True, metavar="NAME[=VALUE]", help="Extra macro definition (e.g. -D NDEBUG).")
@click.option("--build-dir", type=click.Path(path_type=Path, file_okay=False), default=None,
              help="Build folder (default: one per program and width under ~/.cache/hipport/emulator).")
@click.option("-j", "--jobs", type=click.IntRange(min=1, max=256), default=2, show_default=True,
              help="Compiler processes at a time.")
@click.option("--timeout", "run_timeout", type=click.FloatRange(min=0, min_open=True), default=600.0,
              show_default=True, help="Seconds the program may run with --run.")
@click.argument("program_args", nargs=-1, type=click.UNPROCESSED)
def emulate(out: Path, wave: str, run_program: bool, compiler: str | None, include_dirs, defines,
            build_dir: Path | None, jobs: int, run_timeout: float, program_args) -> None:
    """Build the ported program OUT (a `hipport convert` output tree or one .hip file) for the host
    CPU with hipport's wavefront emulator, and with --run run it (arguments after `--`).

    Kernels run on the CPU with the chosen wavefront width: warpSize, __ballot, the shuffles and
    the *_sync forms behave as on an AMD GPU of that width (docs/emulator.md). An API the emulator
    does not support stops the build, naming it with file:line.

    Exit status: with --run, the program's; else 0 built (the executable's path is printed);
    2 the emulator cannot build the program (unsupported API, compiler error) or bad usage.
    """
    from . import emulator

    with _input_errors():
        try:
            exe, seconds = emulator.build(out, int(wave), build_dir=build_dir, compiler=compiler,
                                          include_dirs=include_dirs, defines=defines, jobs=jobs)
        except emulator.EmulatorError as error:
            raise InputError(str(error)) from None
        if not run_program:
            click.echo(str(exe))
            return
        click.echo(f"hipport emulate: built in {seconds:.1f} s (wave{wave}), running {exe}", err=True)
        import subprocess

        try:
            done = subprocess.run([str(exe), *program_args], timeout=run_timeout)
        except subprocess.TimeoutExpired:
            raise InputError(f"{out}: the program ran longer than {run_timeout:g} s in the emulator") from None
        sys.exit(done.returncode)


if __name__ == "__main__":  # pragma: no cover
    main()

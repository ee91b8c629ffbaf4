"""The ``hipport`` command line (built with click).

Exit codes: 0 success; 2 bad usage or input (a message names the file, and the line where
there is one).
"""

from __future__ import annotations

import difflib
import signal
import sys
from pathlib import Path

import click
from tqdm import tqdm

from . import __version__
from .cmake import DEFAULT_OFFLOAD_ARCHS, validate_offload_archs
from .convert import LAUNCH_SYNTAXES, REPORT_MARKDOWN, ConvertOptions, convert_tree
from .discover import DiscoveryError
from .rules import RuleError, default_rules


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


def _split_archs(_ctx, _param, value: str) -> tuple[str, ...]:
    archs = [a.strip() for a in value.replace(",", ";").split(";") if a.strip()]
    try:
        return tuple(validate_offload_archs(archs))
    except ValueError as error:
        raise click.BadParameter(str(error)) from None


@main.command()
@click.argument("src", type=click.Path(path_type=Path))
@click.option("-o", "--output", "out_text", required=True, type=str, metavar="OUT",
              help="Folder to write the HIP tree, CMake build and reports into.")
@click.option("--exclude", multiple=True, metavar="PATTERN",
              help="gitignore-style pattern (relative to SRC) of paths to leave out; repeatable.")
@click.option("--launch-syntax", type=click.Choice(LAUNCH_SYNTAXES), default="chevron", show_default=True,
              help="Keep kernel<<<...>>> launches, or rewrite them to hipLaunchKernelGGL.")
@click.option("--offload-arch", "offload_archs", default=";".join(DEFAULT_OFFLOAD_ARCHS), show_default=True,
              callback=_split_archs, metavar="LIST",
              help="Default CMAKE_HIP_ARCHITECTURES of the generated CMake build (';' or ',' separated).")
@click.option("-j", "--jobs", type=click.IntRange(min=0, max=256), default=0, show_default=True,
              help="Worker processes (0: one per CPU core).")
@click.option("-q", "--quiet", is_flag=True, help="Print nothing but errors.")
def convert(src: Path, out_text: str, exclude: tuple[str, ...], launch_syntax: str,
            offload_archs: tuple[str, ...], jobs: int, quiet: bool) -> None:
    """Port the CUDA file or tree SRC to HIP in the folder OUT (SRC is never modified).

    OUT receives the ported tree (.cu files become .hip), a CMakeLists.txt when SRC has none,
    and the migration report: hipport-report.md (Markdown) and hipport-report.json.

    Exit status: 0 done, 2 bad usage or input, 130 interrupted.
    """
    if not str(out_text):
        raise InputError("the output folder (-o) is empty")
    out = Path(out_text)
    options = ConvertOptions(exclude=exclude, launch_syntax=launch_syntax, offload_archs=offload_archs, jobs=jobs)
    signal.signal(signal.SIGTERM, _terminate)
    try:
        rules = default_rules()
        show_bar = not quiet and sys.stderr.isatty()
        with tqdm(unit="file", disable=not show_bar, leave=False) as bar:
            def progress(done: int, total: int) -> None:
                bar.total = total
                bar.update(done - bar.n)

            result = convert_tree(src, out, options, rules, progress=progress)
    except (DiscoveryError, RuleError) as error:
        raise InputError(str(error)) from None
    except OSError as error:
        where = f"{error.filename}: " if error.filename else ""
        raise InputError(f"{where}{error.strerror or error}") from None
    except (KeyboardInterrupt, _Terminated) as stop:
        click.echo("hipport: interrupted; every file written so far is complete, the reports were not written",
                   err=True)
        sys.exit(143 if isinstance(stop, _Terminated) else 130)  # 128 + SIGTERM / SIGINT
    if not quiet:
        click.echo(result.report.summary_text())
        click.echo(f"report: {out / REPORT_MARKDOWN}")




def describe_mapping(mapping) -> str:
    """Plain-text description of one mapping entry (what ``hipport explain cudaMalloc`` prints)."""
    rows = [
        ("CUDA", mapping.cuda), ("HIP", mapping.hip or "(none: HIP has no equivalent)"),
        ("kind", mapping.kind), ("status", mapping.status), ("family", mapping.family),
    ]
    if mapping.section:
        rows.append(("section", mapping.section))
    rows += [(key.replace("_", " "), value) for key, value in mapping.versions.items()]
    if mapping.note:
        rows.append(("note", mapping.note))
    rows.append(("defined at", f"{mapping.path}:{mapping.line}"))
    width = max(len(key) for key, _ in rows)
    return "\n".join(f"{key.ljust(width)}  {value}" for key, value in rows)


@main.command()
@click.argument("name")
def explain(name: str) -> None:
    """Explain a check (HP1001 or inline-ptx) or a CUDA name (cudaMalloc, cuda_runtime.h)."""
    from .docs import render_check

    try:
        rules = default_rules()
    except RuleError as error:
        raise InputError(str(error)) from None
    check = rules.checks.get(name.upper()) or rules.checks_by_name.get(name)
    if check is not None:
        click.echo(render_check(check), nl=False)
        return
    mapping = rules.identifiers.get(name) or rules.headers.get(name)
    if mapping is not None:
        click.echo(describe_mapping(mapping))
        return
    known = [*rules.checks, *rules.checks_by_name, *rules.identifiers, *rules.headers]
    close = difflib.get_close_matches(name, known, n=3)
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    raise InputError(f"{name!r} is neither a check id or name nor a CUDA name hipport knows{hint}")


if __name__ == "__main__":  # pragma: no cover
    main()

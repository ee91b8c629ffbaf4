#!/usr/bin/env python3
"""Benchmark incremental conversion: a full ``hipport convert``, a re-run with nothing changed
and a re-run after one file changed, on a generated tree (bench/generate_tree.py).

1. generate the tree (reused when its ``MANIFEST.json`` matches) and copy it to
   ``build/bench/incremental/src`` (the one-file runs edit the copy; not timed);
2. time ``hipport convert SRC -o OUT`` as a subprocess (the whole command line: interpreter,
   imports, rules, conversion, reports): into an empty OUT (full), again (no-op), and after
   appending a line to one ``.cu`` file (one file); each ``--repeat`` times;
3. check each run's ``incremental:`` summary line (the no-op run ports 0 files, the one-file
   run exactly 1) and print a Markdown table of wall and CPU seconds (best and median).

Targets: the no-op re-run under 1 s wall; the one-file re-run ports one file. The target is
checked here (``--require-noop-seconds``), never in the tests.

Python bytecode: hipport is run with ``PYTHONDONTWRITEBYTECODE`` removed from its environment,
after one untimed import, so its modules load from ``__pycache__`` as in an installed hipport
(compiling them from source costs about 0.3 s a run).

Usage: python bench/bench_incremental.py [--lines 300000] [--repeat 3] [--wait-idle 60]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_vs_hipify_perl as common  # noqa: E402  (sibling module: tree, timing, machine facts)
import generate_tree  # noqa: E402

REPO = common.REPO
WORK = common.WORK / "incremental"
#: 300,000 lines give about 1,040 files (the generator's median file is 134 lines).
DEFAULT_LINES = 300_000
_INCREMENTAL = re.compile(r"^incremental: (.*)$", re.MULTILINE)
_PORTED = re.compile(r"^([0-9,]+) files? ported again, ([0-9,]+) unchanged")


def _environment() -> dict:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def _convert(hipport: list[str], src: Path, out: Path) -> tuple[common.Run, str]:
    """One timed conversion; returns the run and its ``incremental:`` line ("" when none)."""
    with common.Meter() as meter:
        result = common.run_checked([*hipport, "convert", str(src), "-o", str(out)], env=_environment())
    found = _INCREMENTAL.search(result.stdout)
    return meter.run, found.group(1) if found else ""


def _interpreter(exe: str) -> list[str]:
    """The Python that runs the ``hipport`` script ``exe`` (its ``#!`` line), else this one."""
    try:
        first = Path(exe).read_text(errors="replace").splitlines()[0]
    except (OSError, IndexError):
        return [sys.executable]
    return first[2:].split() if first.startswith("#!") else [sys.executable]


def _ported(line: str) -> tuple[int, int]:
    match = _PORTED.match(line)
    if match is None:
        raise common.BenchError(f"unexpected incremental line: {line!r}")
    return int(match.group(1).replace(",", "")), int(match.group(2).replace(",", ""))


def _edited_file(src: Path) -> Path:
    """The ``.cu`` file the one-file runs edit: the median-sized one (a typical file)."""
    units = sorted((p for p in src.rglob("*.cu")), key=lambda p: (p.stat().st_size, p.as_posix()))
    return units[len(units) // 2]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Benchmark hipport's incremental re-runs on a generated tree.")
    parser.add_argument("--lines", type=int, default=DEFAULT_LINES,
                        help=f"lines of the tree (default {DEFAULT_LINES:,})")
    parser.add_argument("--seed", type=int, default=generate_tree.DEFAULT_SEED, help="generator seed")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each kind (best and median shown; default 3)")
    parser.add_argument("--wait-idle", type=float, default=0.0, metavar="SECONDS",
                        help="before each timed run, wait up to SECONDS for other processes to use < 10%% of the CPUs")
    parser.add_argument("--hipport", default=None, help="hipport executable (default .venv/bin/hipport, else PATH)")
    parser.add_argument("--require-noop-seconds", type=float, default=None, metavar="S",
                        help="exit 1 unless the median no-op re-run takes under S seconds wall")
    parser.add_argument("--json", type=Path, default=WORK / "last-run.json", help="results file")
    args = parser.parse_args(argv)
    common.WAIT_IDLE = args.wait_idle
    hipport, python = common._hipport_command(args.hipport)

    tree = common.WORK / f"tree-{args.lines}"
    manifest = common.ensure_tree(tree, args.lines, args.seed, regenerate=False)
    src, out = WORK / "src", WORK / "out"
    shutil.rmtree(src, ignore_errors=True)
    shutil.copytree(tree, src)
    edited = _edited_file(src)
    subprocess.run([*_interpreter(hipport[0]), "-c", "import hipport.cli, hipport.analyze, hipport.buildfiles, jinja2"],
                   env=_environment(), check=False)  # writes hipport's __pycache__ (not timed)

    results: dict[str, list[common.Run]] = {"full": [], "no-op": [], "one file": []}
    ported: dict[str, tuple[int, int]] = {}
    for i in range(args.repeat):
        shutil.rmtree(out, ignore_errors=True)
        run, line = _convert(hipport, src, out)
        if line:
            raise common.BenchError(f"a conversion into an empty OUT printed {line!r}")
        results["full"].append(run)
        print(f"  full {i + 1}/{args.repeat}: {run.wall:.3f} s, {run.cpu:.2f} CPU s")
    for i in range(args.repeat):
        run, line = _convert(hipport, src, out)
        ported["no-op"] = _ported(line)
        if ported["no-op"][0] != 0:
            raise common.BenchError(f"the no-op re-run ported files again: {line}")
        results["no-op"].append(run)
        print(f"  no-op {i + 1}/{args.repeat}: {run.wall:.3f} s, {run.cpu:.2f} CPU s ({line})")
    for i in range(args.repeat):
        with edited.open("a") as stream:
            stream.write(f"// edit {i + 1}\n")
        run, line = _convert(hipport, src, out)
        ported["one file"] = _ported(line)
        if ported["one file"][0] != 1:
            raise common.BenchError(f"the one-file re-run did not port exactly one file: {line}")
        results["one file"].append(run)
        print(f"  one file {i + 1}/{args.repeat}: {run.wall:.3f} s, {run.cpu:.2f} CPU s ({line})")

    files = sum(1 for p in src.rglob("*") if p.is_file())
    print()
    for key, value in common.machine_info(python, None, None):
        print(f"- {key}: {value}")
    print(f"- load average after the runs: {common._loadavg()}")
    print(f"- tree: {files:,} files ({manifest['files']:,} sources), {manifest['lines']:,} lines; "
          f"the one-file runs append a line to {edited.relative_to(src).as_posix()}")
    print()
    rows = []
    for kind, runs in results.items():
        best, median = common.best_and_median(runs)
        count = {"full": f"{files:,} of {files:,}"}.get(kind) or f"{ported[kind][0]:,} of {sum(ported[kind]):,}"
        rows.append([kind, count, f"{best.wall:.2f}", f"{median.wall:.2f}", f"{best.cpu:.2f}", f"{median.cpu:.2f}",
                     f"{100 * median.others_share(common._nproc()):.0f}%"])
    print(common.markdown_table(["run", "files ported", "wall s (best)", "wall s (median)", "CPU s (best)",
                                 "CPU s (median)", "other load (median run)"], rows))
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps({kind: [vars(r) for r in runs] for kind, runs in results.items()}, indent=1) + "\n")
    noop = common.best_and_median(results["no-op"])[1].wall
    if args.require_noop_seconds is not None and noop >= args.require_noop_seconds:
        print(f"FAIL: the median no-op re-run took {noop:.2f} s, not under {args.require_noop_seconds:.2f} s")
        return 1
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except common.BenchError as error:
        print(f"bench_incremental: {error}", file=sys.stderr)
        sys.exit(1)

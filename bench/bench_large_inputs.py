#!/usr/bin/env python3
"""Benchmark memory and time on large inputs (issue 12, point 4): one ``.cu`` file of 50 MB and a
tree of 1,000,000 lines, each converted by ``hipport convert IN -o OUT -q`` as a subprocess.

Inputs (deterministic, under the git-ignored ``build/bench/``):

- the tree: ``bench/generate_tree.py`` with ``--lines 1000000`` (seed 20261130);
- the large file: the ``.cu``, ``.cuh``, ``.cpp`` and ``.h`` files of the 120,000-line bench
  tree, in path order, concatenated again and again until the file holds at least
  ``--file-mb`` megabytes (10^6 bytes; default 50), cut at a line end.

Each run is measured by a wrapper process that starts hipport and reads
``getrusage(RUSAGE_CHILDREN)`` after it: CPU seconds (user + system) of hipport and its workers,
and the peak resident set of the largest one of them (``ru_maxrss``; for a run with workers that
is one process's peak, not their sum, so the tree is also converted with ``-j 1``). Wall seconds
are taken around the wrapper.

Targets (issue 12): the 50 MB file in under 30 s and 500 MB; peak memory for the 1M-line tree
under 300 MB. The table says for each whether it is met; ``--require`` exits 1 when one is missed.
Targets are checked here, never in the tests.

Usage: python bench/bench_large_inputs.py [--file-mb 50] [--tree-lines 1000000] [--skip-tree] [--require]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_vs_hipify_perl as common  # noqa: E402  (sibling module: tree generation, hipport location)

WORK = common.WORK / "large"
SEED = 20261130
BASE_TREE_LINES = 120_000
_WRAPPER = (
    "import json, resource, subprocess, sys\n"
    "done = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
    "usage = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
    "print(json.dumps({'rc': done.returncode, 'cpu': usage.ru_utime + usage.ru_stime,\n"
    "                  'maxrss_kb': usage.ru_maxrss, 'stderr': done.stderr[-2000:]}))\n"
)


def build_large_file(tree: Path, target_bytes: int, path: Path) -> tuple[int, int]:
    """Write ``path``: the tree's source files concatenated until ``target_bytes`` is reached.

    Returns:
        (bytes, lines) of the file written.
    Raises:
        FileNotFoundError: the tree holds no source file.
    """
    sources = sorted(p for p in tree.rglob("*") if p.suffix in (".cu", ".cuh", ".cpp", ".h") and p.is_file())
    if not sources:
        raise FileNotFoundError(f"no source file under {tree}")
    chunks, size = [], 0
    while size < target_bytes:
        for source in sources:
            data = source.read_bytes()
            if not data.endswith(b"\n"):
                data += b"\n"
            chunks.append(data)
            size += len(data)
            if size >= target_bytes:
                break
    data = b"".join(chunks)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return len(data), data.count(b"\n")


def measure(hipport: list[str], src: Path, out: Path, jobs: int | None) -> dict:
    """Convert ``src`` into a fresh ``out``; returns wall and CPU seconds and peak RSS (MB).

    Raises:
        common.BenchError: hipport failed.
    """
    shutil.rmtree(out, ignore_errors=True)
    cmd = [*hipport, "convert", str(src), "-o", str(out), "-q", *(["-j", str(jobs)] if jobs else [])]
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", _WRAPPER, *cmd], capture_output=True, text=True, check=True)
    wall = time.perf_counter() - start
    result = json.loads(done.stdout)
    if result["rc"] != 0:
        raise common.BenchError(f"hipport convert {src} exited with {result['rc']}:\n{result['stderr']}")
    return {"wall": wall, "cpu": result["cpu"], "peak_mb": result["maxrss_kb"] / 1024}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--file-mb", type=float, default=50.0, help="size of the large file, in 10^6 bytes")
    parser.add_argument("--tree-lines", type=int, default=1_000_000)
    parser.add_argument("--skip-tree", action="store_true", help="measure the large file only")
    parser.add_argument("--hipport", help="hipport executable (default: .venv/bin/hipport, else PATH)")
    parser.add_argument("--require", action="store_true", help="exit 1 when a target is missed")
    args = parser.parse_args(argv)
    hipport, _ = common._hipport_command(args.hipport)

    base = common.WORK / f"tree-{BASE_TREE_LINES}"
    common.ensure_tree(base, BASE_TREE_LINES, SEED, regenerate=False)
    big = WORK / "file" / "large.cu"
    size, lines = build_large_file(base, int(args.file_mb * 1e6), big)
    rows = []
    run = measure(hipport, big.parent, WORK / "file-out", 1)
    rows.append((f"one .cu file, {size / 1e6:.1f} MB, {lines:,} lines (-j 1)", run,
                 run["wall"] < 30 and run["peak_mb"] < 500, "< 30 s wall, < 500 MB"))
    if not args.skip_tree:
        tree = common.WORK / f"tree-{args.tree_lines}"
        manifest = common.ensure_tree(tree, args.tree_lines, SEED, regenerate=False)
        described = f"tree, {manifest.get('files', '?')} files, {manifest.get('lines', args.tree_lines):,} lines"
        for jobs in (1, None):
            run = measure(hipport, tree, WORK / "tree-out", jobs)
            rows.append((f"{described} ({'-j 1' if jobs else 'default jobs'})", run,
                         run["peak_mb"] < 300, "< 300 MB peak"))
    print("| input | wall s | CPU s | peak RSS MB | target | met |")
    print("| --- | ---: | ---: | ---: | --- | --- |")
    for name, run, met, target in rows:
        print(f"| {name} | {run['wall']:.1f} | {run['cpu']:.1f} | {run['peak_mb']:.0f} | {target} | {'yes' if met else 'NO'} |")
    return 1 if args.require and not all(met for _, _, met, _ in rows) else 0


if __name__ == "__main__":
    sys.exit(main())

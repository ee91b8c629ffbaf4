#!/usr/bin/env python3
"""Benchmark the wavefront emulator on corpus/vector_add (50,000 elements) at both widths.

For each width (64, 32): convert ``corpus/vector_add`` with hipport (once), build it for the
emulator without the build cache (``build seconds``: the source transform, the host compiler and
the link), then run it ``--repeat`` times (``run seconds``: the whole program, best of the runs:
allocation, copies, 1 checked launch, 10 warm-up and 100 timed launches of ``vector_add`` over
50,000 elements, the host check). Every run must print ``Test PASSED``.

Prints a Markdown table; exit status 1 when a run fails.

    .venv/bin/python bench/bench_emulator.py [--repeat 3] [--compiler g++-12]
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hipport import emulator  # noqa: E402
from hipport.convert import ConvertOptions, convert_tree  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per width; the best is reported (default 3)")
    parser.add_argument("--compiler", default=None, help="host C++ compiler (default: the emulator's choice)")
    args = parser.parse_args()

    compiler = emulator.find_compiler(args.compiler)
    rows = []
    ok = True
    with tempfile.TemporaryDirectory(prefix="hipport-bench-emulator-") as scratch:
        port = Path(scratch) / "vector_add"
        convert_tree(ROOT / "corpus" / "vector_add", port, ConvertOptions())
        for wave in emulator.WAVES:
            exe, build_seconds = emulator.build(port, wave, build_dir=Path(scratch) / f"w{wave}", compiler=compiler,
                                                cache=False)
            runs = []
            for _ in range(max(1, args.repeat)):
                result = emulator.execute(port, wave, build_dir=Path(scratch) / f"w{wave}", compiler=compiler)
                passed = result.returncode == 0 and result.stdout.rstrip().endswith("Test PASSED")
                ok &= passed
                runs.append(result.run_seconds)
                median_line = next((line for line in result.stdout.splitlines()
                                    if line.startswith("kernel_median_ms")), "")
            rows.append((wave, build_seconds, min(runs), median_line.split()[-1] if median_line else "?",
                         "Test PASSED" if passed else "FAILED"))
    print(f"hipport emulator, corpus/vector_add (50,000 elements); {Path(compiler).name}, {platform.machine()}, "
          f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")
    print()
    print("| wave | build seconds | run seconds (best of %d) | kernel_median_ms | result |" % max(1, args.repeat))
    print("| --- | --- | --- | --- | --- |")
    for wave, build_seconds, run_seconds, kernel_ms, result in rows:
        print(f"| {wave} | {build_seconds:.2f} | {run_seconds:.3f} | {kernel_ms} | {result} |")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

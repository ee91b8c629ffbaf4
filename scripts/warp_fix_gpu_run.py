#!/usr/bin/env python3
"""Build, here, the warp programs whose ``--fix`` ports docs/gpu-runs.md runs on an NVIDIA GPU.

The programs: the generated warp idioms (``tests/warp_idioms.py``, seed 11, 96 kernels) and
every fixture of ``tests/fixtures/warp/`` and ``tests/fixtures/warp32/``. For each, the CUDA
original is built with nvcc for sm_90 and the ``--fix`` port (the fixture's ``fixed.hip``; for
the idioms, ``hipport convert --fix`` of the program) as HIP on NVIDIA, with the project
toolchain (``scripts/install-toolchain.sh``). ``OUT/run.sh`` runs every binary twice, original
and port alternating, each run between ``=== NAME KIND run N`` and ``=== exit CODE`` lines:

    python scripts/warp_fix_gpu_run.py [--out build/gpu-warp]     # here
    bash build/gpu-warp/run.sh > device.log                        # on the GPU machine

Exits 1 naming the program when a compile fails (hipport.toolchain.CompileError).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(REPO / "tests")]

import warp_idioms  # noqa: E402
from hipport.convert import ConvertOptions, convert_tree  # noqa: E402
from hipport.toolchain import CompileError, Toolchain  # noqa: E402

SEED, COUNT = 11, 96


def programs(work: Path) -> list[tuple[str, Path, Path]]:
    """(name, CUDA original, --fix port) of every program, the idioms' written under ``work``."""
    work.mkdir(parents=True, exist_ok=True)
    source = work / "idioms.cu"
    source.write_text(warp_idioms.program(SEED, COUNT))
    convert_tree(source, work / "idioms-fix", ConvertOptions(fix=True))
    found = [("idioms", source, work / "idioms-fix" / "idioms.hip")]
    for family in ("warp", "warp32"):
        for case in sorted((REPO / "tests" / "fixtures" / family).iterdir()):
            if (case / "fixed.hip").exists():
                found.append((f"{family}-{case.name}", case / "original.cu", case / "fixed.hip"))
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=REPO / "build" / "gpu-warp", help="where binaries and run.sh go")
    options = parser.parse_args(argv)
    toolchain = Toolchain.load()
    binaries = options.out / "bin"
    binaries.mkdir(parents=True, exist_ok=True)
    names = []
    for name, original, port in programs(options.out / "work"):
        try:
            toolchain.compile_cuda(original, binaries / f"{name}.cuda", link=True)
            toolchain.compile_nvidia(port, binaries / f"{name}.hip", link=True)
        except CompileError as error:
            print(f"{name}: {error}", file=sys.stderr)
            return 1
        names.append(name)
        print("built", name, flush=True)
    lines = ["#!/bin/bash", 'cd "$(dirname "$0")"/bin']
    for name in names:
        for run in (1, 2):
            for kind in ("cuda", "hip"):
                lines.append(f'echo "=== {name} {kind} run {run}"; ./{name}.{kind}; echo "=== exit $?"')
    (options.out / "run.sh").write_text("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

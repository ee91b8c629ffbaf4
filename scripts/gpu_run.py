#!/usr/bin/env python3
"""Build the corpus twice for NVIDIA (original CUDA and hipport's HIP port) and compare runs.

Both builds use the same nvcc 12.4, host compiler and flags (``hipport.toolchain``); the only
difference is the HIP layer (``-I <HIP NVIDIA headers>`` and the ported source). Binaries are
built here and run on the GPU machine, which needs nothing but the driver.

    python scripts/gpu_run.py build [--out build/gpu]     # here: convert, compile, write run.sh
    bash build/gpu/run.sh > device.log                      # on the GPU machine
    python scripts/gpu_run.py table device.log              # here: Markdown table of the runs

Each program prints ``kernel_median_ms <kernel> <ms>`` (the median of 100 launches timed with
events, after 10 warm-ups) and ``Test PASSED``. Outputs are compared line by line, except the
lines that report a measured time. run.sh runs every pair ``--rounds`` times,
alternating original and port; the table reports the median over rounds.
"""

from __future__ import annotations

import argparse
import re
import shlex
import statistics
import sys
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from hipport.convert import ConvertOptions, convert_tree  # noqa: E402
from hipport.toolchain import Toolchain  # noqa: E402

CORPUS = REPO / "corpus"
#: Multi-file projects with their own CMake or Make builds: built and run by
#: scripts/corpus_projects.py, not here.
PROJECTS = CORPUS / "projects"
FLAGS = ("-std=c++17",)


def build(out: Path, rounds: int) -> None:
    """Convert the corpus into ``out/ported`` and compile both versions into ``out/bin``."""
    toolchain = Toolchain.load()
    ported = out / "ported"
    convert_tree(CORPUS, ported, ConvertOptions(exclude=("projects/",)))
    bin_dir = out / "bin"
    bin_dir.mkdir(parents=True, exist_ok=True)
    programs = []
    commands = []
    for source in sorted(p for p in CORPUS.rglob("*.cu") if not p.is_relative_to(PROJECTS)):
        rel = source.relative_to(CORPUS)
        name = rel.parts[0]
        original_bin, hip_bin = bin_dir / f"{name}_cuda", bin_dir / f"{name}_hip"
        for compile_fn, command_fn, src, binary in (
            (toolchain.compile_cuda, toolchain.cuda_compile_command, source, original_bin),
            (toolchain.compile_nvidia, toolchain.nvidia_compile_command, ported / rel.with_suffix(".hip"), hip_bin),
        ):
            commands.append(shlex.join(command_fn(src, binary, extra_flags=FLAGS)))
            print(f"compiling {binary.name}", flush=True)
            compile_fn(src, binary, extra_flags=FLAGS)
        programs.append(name)
    (out / "build-commands.txt").write_text("\n".join(commands) + "\n")
    lines = [
        "#!/usr/bin/env bash",
        "# Written by scripts/gpu_run.py: runs every original/ported pair, alternating.",
        "set -u",
        'cd "$(dirname "$0")/bin"',
        "nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | sed 's/^/GPU: /'",
        "nvidia-smi -L | sed 's/^/SMI: /'",
        "status=0",
    ]
    for round_number in range(1, rounds + 1):
        for name in programs:
            for variant in ("cuda", "hip"):
                lines += [
                    f'echo "=== {name} {variant} round {round_number}"',
                    f"./{name}_{variant}; rc=$?",
                    f'echo "=== exit {name} {variant} $rc"',
                    '[ "$rc" -eq 0 ] || status=1',
                ]
    lines.append("exit $status")
    run_sh = out / "run.sh"
    run_sh.write_text("\n".join(lines) + "\n")
    run_sh.chmod(0o755)
    print(f"wrote {run_sh} and {len(programs) * 2} binaries in {bin_dir}")


_HEADER = re.compile(r"^=== (\S+) (cuda|hip) round (\d+)$")
_EXIT = re.compile(r"^=== exit (\S+) (cuda|hip) (\d+)$")
_KERNEL = re.compile(r"^kernel_median_ms (\S+) ([0-9.]+)$")
#: Lines that report a measured time (e.g. "stream 0: 1.234 ms") differ run to run: not compared.
_TIMING = re.compile(r"\b[0-9]+\.[0-9]+ ms\b")


def table(log: Path) -> str:
    """Turn a run.sh log into a Markdown table (program, outputs equal, CUDA ms, HIP ms, ratio)."""
    outputs: dict[tuple[str, str], list[list[str]]] = defaultdict(list)
    exits: dict[tuple[str, str], list[int]] = defaultdict(list)
    times: dict[tuple[str, str], list[float]] = defaultdict(list)
    current = None
    for line in log.read_text().splitlines():
        if m := _HEADER.match(line):
            current = (m[1], m[2])
            outputs[current].append([])
        elif m := _EXIT.match(line):
            exits[(m[1], m[2])].append(int(m[3]))
            current = None
        elif current is not None:
            if m := _KERNEL.match(line):
                times[current].append(float(m[2]))
            elif not _TIMING.search(line):
                outputs[current][-1].append(line)
    rows = ["| program | exit codes (CUDA / HIP) | last line | outputs equal | CUDA kernel ms | HIP kernel ms | HIP / CUDA |",
            "| --- | --- | --- | --- | ---: | ---: | ---: |"]
    for name in sorted({key[0] for key in outputs}):
        cuda, hip = (name, "cuda"), (name, "hip")
        equal = outputs[cuda] == outputs[hip] and len(set(map(tuple, outputs[cuda]))) == 1
        cuda_ms, hip_ms = statistics.median(times[cuda]), statistics.median(times[hip])
        last = outputs[hip][-1][-1] if outputs[hip] and outputs[hip][-1] else ""
        codes = " / ".join(",".join(map(str, sorted(set(exits[key])))) for key in (cuda, hip))
        rows.append(f"| {name} | {codes} | `{last}` | {'yes' if equal else 'NO'} | "
                    f"{cuda_ms:.6f} | {hip_ms:.6f} | {hip_ms / cuda_ms:.3f} |")
    return "\n".join(rows) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build", help="convert and compile the corpus, write run.sh")
    b.add_argument("--out", type=Path, default=REPO / "build" / "gpu")
    b.add_argument("--rounds", type=int, default=5, help="runs of every binary (alternating)")
    t = sub.add_parser("table", help="Markdown table from a run.sh log")
    t.add_argument("log", type=Path)
    args = parser.parse_args(argv)
    if args.command == "build":
        build(args.out, args.rounds)
    else:
        sys.stdout.write(table(args.log))
    return 0


if __name__ == "__main__":
    sys.exit(main())

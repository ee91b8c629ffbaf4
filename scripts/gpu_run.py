#!/usr/bin/env python3
"""Build the corpus twice for NVIDIA (original CUDA and hipport's HIP port) and compare runs.

Both builds use the same nvcc 12.4, host compiler and flags (``hipport.toolchain``); the only
difference is the HIP layer (``-I <HIP NVIDIA headers>`` and the ported source). Binaries are
built here and run on the GPU machine, which needs nothing but the driver.

Single-file programs (``corpus/<name>/``) are compiled with one nvcc command each. The
multi-file projects (``corpus/projects/<name>/``) are built with their own builds (CMake, the
legacy FindCUDA module or Make; ``scripts/corpus_projects.py``) for the original, and for the
port with ``hipport convert --fix`` + ``hipport build --platform nvidia`` (the migrated CMake
build, nvcc 12.4). The compile commands of both builds are kept in ``OUT/commands/``
(``compile_commands.json`` of CMake builds, the make log of Make builds).

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
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from hipport.build import executables  # noqa: E402
from hipport.convert import ConvertOptions, convert_tree  # noqa: E402
from hipport.toolchain import Toolchain  # noqa: E402

sys.path.insert(0, str(REPO / "scripts"))
from corpus_projects import build_commands, build_kind, projects  # noqa: E402

CORPUS = REPO / "corpus"
#: Multi-file projects with their own CMake or Make builds: built and run by
#: scripts/corpus_projects.py, not here.
PROJECTS = CORPUS / "projects"
FLAGS = ("-std=c++17",)
#: Projects whose port cannot run on the NVIDIA machine, with the reason (shown in the table).
NOT_RUNNABLE = {
    "blas_rand": "the port links hipBLAS and hipRAND, whose NVIDIA backends Debian does not package "
                 "(hipport build --platform nvidia stops at configure, naming them)",
}


def _run(command: list[str], log: Path, env: dict | None = None) -> None:
    """Run ``command``, appending its output to ``log``; exit with the output tail on failure."""
    done = subprocess.run(command, capture_output=True, text=True, timeout=1800, env=env)
    with log.open("a") as stream:
        stream.write(f"$ {shlex.join(command)}\n{done.stdout}{done.stderr}")
    if done.returncode != 0:
        sys.exit(f"failed: {shlex.join(command)}\n{(done.stdout + done.stderr)[-4000:]}")


def build_projects(out: Path, toolchain: Toolchain, jobs: int) -> tuple[list[str], list[tuple[str, str]]]:
    """Build every runnable project twice into ``out/bin/<name>_cuda`` and ``<name>_hip``.

    Returns:
        (names built, [(name, reason)] of the projects left out).
    """
    bin_dir, commands = out / "bin", out / "commands"
    commands.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "CMAKE_EXPORT_COMPILE_COMMANDS": "ON"}
    built, left_out = [], []
    for project in projects():
        name = project.name
        if name in NOT_RUNNABLE:
            left_out.append((name, NOT_RUNNABLE[name]))
            continue
        log = commands / f"{name}.log"
        log.unlink(missing_ok=True)
        original_dir = (out / "cuda" / name).resolve()
        shutil.rmtree(original_dir, ignore_errors=True)
        print(f"[{name}] original ({build_kind(project)})", flush=True)
        for command in build_commands(project, original_dir, toolchain, jobs):
            if command[0] == "make":
                command = [*command, "VERBOSE=1"]
            _run(command, log, env)
        shutil.copy2(original_dir / name, bin_dir / f"{name}_cuda")
        ported = (out / "ported-projects" / name).resolve()
        shutil.rmtree(ported, ignore_errors=True)
        print(f"[{name}] port (hipport convert --fix, hipport build --platform nvidia)", flush=True)
        convert_tree(project, ported, ConvertOptions(fix=True))
        _run([sys.executable, "-m", "hipport.cli", "build", str(ported), "--platform", "nvidia",
              "--jobs", str(jobs)], log, env)
        programs = executables(ported / "build-nvidia")
        if len(programs) != 1:
            sys.exit(f"{name}: expected one executable in the port, found {programs}")
        shutil.copy2(programs[0][1], bin_dir / f"{name}_hip")
        for variant, folder in (("cuda", original_dir), ("hip", ported / "build-nvidia")):
            if (folder / "compile_commands.json").is_file():
                shutil.copy2(folder / "compile_commands.json", commands / f"{name}-{variant}.json")
        built.append(name)
    return built, left_out


def build(out: Path, rounds: int, jobs: int = 2) -> None:
    """Convert the corpus, build both versions of every program into ``out/bin``, write run.sh."""
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
    built, left_out = build_projects(out, toolchain, jobs)
    programs += built
    (out / "left-out.txt").write_text("".join(f"{name}: {reason}\n" for name, reason in left_out))
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
                    f"timeout 120 ./{name}_{variant}; rc=$?",
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
    """Turn a run.sh log into a Markdown table: one row per program and timed kernel (exit
    codes, last line, outputs equal, median CUDA ms, median HIP ms, ratio).

    "outputs equal" compares every output line of every round of both builds exactly, except
    the ``kernel_median_ms`` lines and lines that report a measured time (``... 0.459 ms``);
    programs print results rounded where the last bits may legitimately differ
    (corpus/README.md), so exact text is the tolerance.
    """
    outputs: dict[tuple[str, str], list[list[str]]] = defaultdict(list)
    exits: dict[tuple[str, str], list[int]] = defaultdict(list)
    times: dict[tuple[str, str, str], list[float]] = defaultdict(list)
    kernels: dict[str, list[str]] = defaultdict(list)
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
                times[(*current, m[1])].append(float(m[2]))
                if m[1] not in kernels[current[0]]:
                    kernels[current[0]].append(m[1])
            elif not _TIMING.search(line):
                outputs[current][-1].append(line)
    rows = ["| program | kernel | exit codes (CUDA / HIP) | last line | outputs equal | CUDA kernel ms | HIP kernel ms | HIP / CUDA |",
            "| --- | --- | --- | --- | --- | ---: | ---: | ---: |"]
    for name in sorted({key[0] for key in outputs}):
        cuda, hip = (name, "cuda"), (name, "hip")
        equal = outputs[cuda] == outputs[hip] and len(set(map(tuple, outputs[cuda]))) == 1
        last = outputs[hip][-1][-1] if outputs[hip] and outputs[hip][-1] else ""
        codes = " / ".join(",".join(map(str, sorted(set(exits[key])))) for key in (cuda, hip))
        for kernel in kernels[name] or ["(none)"]:
            cuda_times, hip_times = times[(name, "cuda", kernel)], times[(name, "hip", kernel)]
            if cuda_times and hip_times:
                cuda_ms, hip_ms = statistics.median(cuda_times), statistics.median(hip_times)
                numbers = f"{cuda_ms:.6f} | {hip_ms:.6f} | {hip_ms / cuda_ms:.3f}"
            else:
                numbers = "- | - | -"
            rows.append(f"| {name} | {kernel} | {codes} | `{last}` | {'yes' if equal else 'NO'} | {numbers} |")
    return "\n".join(rows) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build", help="convert and compile the corpus, write run.sh")
    b.add_argument("--out", type=Path, default=REPO / "build" / "gpu")
    b.add_argument("--rounds", type=int, default=5, help="runs of every binary (alternating)")
    b.add_argument("--jobs", type=int, default=2, help="parallel compile jobs of the project builds")
    t = sub.add_parser("table", help="Markdown table from a run.sh log")
    t.add_argument("log", type=Path)
    args = parser.parse_args(argv)
    if args.command == "build":
        build(args.out, args.rounds, args.jobs)
    else:
        sys.stdout.write(table(args.log))
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Build the multi-file corpus projects (``corpus/projects/*``) as CUDA with their own builds, and
write a script that runs them on a GPU machine.

Each project is built the way its authors would: CMake (``CMakeLists.txt``, modern CUDA language
or the legacy FindCUDA module) or Make (``Makefile`` calling nvcc), with nvcc 12.4 and g++-12
from the toolchain (``hipport.toolchain``), for sm_90. The executables (named after their
project) are copied to ``OUT/bin``; they link cudart statically and need nothing on the GPU
machine but the driver, except the cuBLAS/cuRAND project, which needs ``libcublas.so.12``,
``libcublasLt.so.12`` and ``libcurand.so.10`` (``run.sh`` looks for them; see its comments).

    python scripts/corpus_projects.py build [--out build/corpus-check]   # here
    bash build/corpus-check/run.sh > device.log                            # on the GPU machine
    python scripts/corpus_projects.py summary device.log                   # here: Markdown table

Every program prints ``checksum ...`` lines, ``kernel_median_ms <kernel> <ms>`` (median of 100
launches timed with events after 10 warm-ups) and ends with ``Test PASSED`` (exit 0) or
``Test FAILED`` (exit 1).
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from hipport.toolchain import Toolchain  # noqa: E402

PROJECTS = REPO / "corpus" / "projects"
CUDA_ARCH = "90"
#: Libraries a project may need at run time that the GPU machine may lack (soname -> Debian package).
RUNTIME_LIBS = {"libcublas.so.12": "libcublas12", "libcublasLt.so.12": "libcublaslt12",
                "libcurand.so.10": "libcurand10"}


def projects() -> list[Path]:
    """Every folder of corpus/projects/ with a CMakeLists.txt or a Makefile, sorted by name."""
    return sorted(p for p in PROJECTS.iterdir()
                  if p.is_dir() and ((p / "CMakeLists.txt").is_file() or (p / "Makefile").is_file()))


def build_kind(project: Path) -> str:
    """``make``, ``findcuda`` (CMake with the legacy FindCUDA module) or ``cmake``."""
    cmakelists = project / "CMakeLists.txt"
    if not cmakelists.is_file():
        return "make"
    if re.search(r"find_package\s*\(\s*CUDA\b", cmakelists.read_text(encoding="utf-8")):
        return "findcuda"
    return "cmake"


def build_commands(project: Path, build_dir: Path, toolchain: Toolchain, jobs: int = 2) -> list[list[str]]:
    """The commands that configure and build ``project`` into ``build_dir`` for sm_90."""
    kind = build_kind(project)
    if kind == "make":
        return [["make", "-C", str(project), f"-j{jobs}", f"NVCC={toolchain.nvcc}",
                 f"HOST_COMPILER={toolchain.ccbin}", f"SMS={CUDA_ARCH}", f"BUILD_DIR={build_dir}"]]
    cmake = str(toolchain.cmake or "cmake")
    configure = [cmake, "-S", str(project), "-B", str(build_dir), "-DCMAKE_BUILD_TYPE=Release"]
    if kind == "findcuda":
        configure += [f"-DCUDA_TOOLKIT_ROOT_DIR={toolchain.nvcc.parent.parent}",
                      f"-DCUDA_HOST_COMPILER={toolchain.ccbin}"]
    else:
        configure += [f"-DCMAKE_CUDA_COMPILER={toolchain.nvcc}", f"-DCMAKE_CUDA_HOST_COMPILER={toolchain.ccbin}",
                      f"-DCMAKE_CUDA_ARCHITECTURES={CUDA_ARCH}"]
    return [configure, [cmake, "--build", str(build_dir), "--parallel", str(jobs)]]


def build(out: Path, jobs: int) -> None:
    """Build every project into ``out/<name>``, copy the executables to ``out/bin``, write run.sh."""
    toolchain = Toolchain.load()
    bin_dir = out / "bin"
    bin_dir.mkdir(parents=True, exist_ok=True)
    names, log = [], []
    for project in projects():
        name = project.name
        build_dir = (out / name).resolve()
        for command in build_commands(project, build_dir, toolchain, jobs):
            log.append(shlex.join(command))
            print(f"[{name}] {shlex.join(command)}", flush=True)
            done = subprocess.run(command, capture_output=True, text=True, timeout=900)
            if done.returncode != 0:
                sys.exit(f"{name}: build failed\n{done.stdout[-4000:]}\n{done.stderr[-4000:]}")
        shutil.copy2(build_dir / name, bin_dir / name)
        names.append(name)
    (out / "build-commands.txt").write_text("\n".join(log) + "\n")
    run_sh = out / "run.sh"
    run_sh.write_text(run_script(names, os.path.relpath(REPO, out.resolve())))
    run_sh.chmod(0o755)
    print(f"wrote {run_sh} and {len(names)} executables in {bin_dir}")


def run_script(names: list[str], repo_from_out: str) -> str:
    """The bash script that runs every executable once, from any folder."""
    lines = [
        "#!/usr/bin/env bash",
        "# Written by scripts/corpus_projects.py: runs every corpus project once.",
        "set -u",
        'HERE="$(cd "$(dirname "$0")" && pwd)"',
        f'REPO="$(cd "$HERE/{repo_from_out}" && pwd)"',
        "nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | sed 's/^/GPU: /'",
        "# Shared libraries a program needs (cuBLAS, cuRAND): $HERE/lib if someone put them there,",
        "# else wherever the machine has them (a CUDA 12 install, or pip's nvidia-* wheels).",
        'libdirs="$HERE/lib"',
        "for soname in " + " ".join(RUNTIME_LIBS) + "; do",
        "  found=$(ldconfig -p 2>/dev/null | awk -v s=\"$soname\" '$1 == s {print $NF; exit}')",
        '  [ -n "$found" ] || found=$(timeout 60 find /usr /opt /usr/local /root /home -maxdepth 9 '
        '-name "$soname" -print -quit 2>/dev/null)',
        '  if [ -n "$found" ]; then echo "LIB: $soname at $found"; libdirs="$libdirs:$(dirname "$found")";',
        '  else echo "LIB: $soname not found"; fi',
        "done",
        'export LD_LIBRARY_PATH="$libdirs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"',
        'NVCC="$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)"',
        "# A program whose libraries are missing is rebuilt here from its sources with this",
        "# machine's own CUDA (CMake if present, else one nvcc command) and that build is run.",
        "rebuild_here() {",
        '  local name="$1" src="$REPO/corpus/projects/$1" dir="/tmp/corpus-projects-device/$1"',
        '  [ -x "$NVCC" ] || { echo "REBUILD: no nvcc on this machine"; return 1; }',
        '  echo "REBUILD: $name with $("$NVCC" --version | tail -n 1)"',
        '  mkdir -p "$dir"',
        '  if command -v cmake >/dev/null; then',
        '    cmake -S "$src" -B "$dir/build" -DCMAKE_CUDA_COMPILER="$NVCC" -DCMAKE_CUDA_ARCHITECTURES=90 '
        '-DCMAKE_BUILD_TYPE=Release >"$dir/build.log" 2>&1 && cmake --build "$dir/build" -j 8 >>"$dir/build.log" 2>&1 '
        '&& cp "$dir/build/$name" "$dir/$name.device" && return 0',
        '    echo "REBUILD: CMake build failed:"; tail -n 20 "$dir/build.log"',
        "  fi",
        '  "$NVCC" -std=c++17 -O2 -arch=sm_90 -I"$src/include" $(find "$src" -name "*.cu" -o -name "*.cpp") '
        '-lcublas -lcurand -o "$dir/$name.device"',
        "}",
        'cd "$HERE/bin"',
        "status=0",
    ]
    for name in names:
        lines += [
            f'echo "=== {name}"',
            f'prog=./{name}',
            f'missing=$(ldd "$prog" | grep "not found"); if [ -n "$missing" ]; then echo "$missing" | sed "s/^/MISSING: /";'
            f' rebuild_here {name} && prog=/tmp/corpus-projects-device/{name}/{name}.device; fi',
            f'timeout 60 "$prog"; rc=$?',
            f'echo "=== exit {name} $rc ($prog)"',
            '[ "$rc" -eq 0 ] || status=1',
        ]
    lines.append("exit $status")
    return "\n".join(lines) + "\n"


_HEADER = re.compile(r"^=== (\S+)$")
_EXIT = re.compile(r"^=== exit (\S+) (\d+)")
_KERNEL = re.compile(r"^kernel_median_ms (\S+) ([0-9.]+)$")


def summary(log: Path) -> str:
    """A Markdown table of a run.sh log: program, exit status, last line, kernel times."""
    rows = ["| project | exit | last line | kernel median ms |", "| --- | ---: | --- | --- |"]
    current, last, kernels = None, "", []
    for line in log.read_text().splitlines():
        if m := _HEADER.match(line):
            current, last, kernels = m[1], "", []
        elif (m := _EXIT.match(line)) and current:
            times = ", ".join(f"{k} {float(t):.4f}" for k, t in kernels)
            rows.append(f"| {current} | {m[2]} | `{last}` | {times} |")
            current = None
        elif current:
            if m := _KERNEL.match(line):
                kernels.append((m[1], m[2]))
            if line.strip():
                last = line.strip()
    return "\n".join(rows) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build", help="build every project for sm_90, write run.sh")
    b.add_argument("--out", type=Path, default=REPO / "build" / "corpus-check")
    b.add_argument("-j", "--jobs", type=int, default=2)
    s = sub.add_parser("summary", help="Markdown table from a run.sh log")
    s.add_argument("log", type=Path)
    args = parser.parse_args(argv)
    if args.command == "build":
        build(args.out, args.jobs)
    else:
        sys.stdout.write(summary(args.log))
    return 0


if __name__ == "__main__":
    sys.exit(main())

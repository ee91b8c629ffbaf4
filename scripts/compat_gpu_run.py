#!/usr/bin/env python3
"""Build the corpus projects three ways for an NVIDIA GPU run of ``hipport convert --compat``, and
turn the device log into a table.

For every project of ``corpus/projects/`` (issue 14: one source tree for both vendors):

- ``cuda-original``: the project as written, built with its own build (CMake, the legacy FindCUDA
  module or Make; ``scripts/corpus_projects.py``) for sm_90;
- ``compat-cuda``: ``hipport.compat.compat_tree`` of the project (the ``.cu`` sources unchanged),
  its migrated CMake build configured with ``-DHIPPORT_COMPAT_CUDA=ON
  -DCMAKE_CUDA_ARCHITECTURES=90``: plain CUDA with nvcc, no HIP anywhere;
- ``compat-hipnv``: the same compat tree configured with ``-DHIPPORT_PLATFORM=nvidia``: HIP on
  NVIDIA (nvcc with HIP's NVIDIA headers and the forced ``hipport_compat.h``).

The compat builds are configured as ``tests/test_compat_projects.py`` configures them (Release,
nvcc 12.4 and g++-12 of ``hipport.toolchain``, ``-DHIPPORT_OFFLOAD_ARCHS=90``). Every executable
is copied to ``OUT/bin/<project>-<variant>`` (``-<executable>`` appended when a build makes an
executable not named after its project) and checked with ``ldd``: a binary that needs a shared
library other than the C/C++ system libraries and libcudart is not copied (the GPU machine has
nothing but the driver), and ``OUT/left-out.txt`` says which and why. A project built with CMake
whose binaries need such a library (blas_rand: the
shared cuBLAS 12 and cuRAND 10, which the toolchain has only as link stubs) is instead rebuilt on
the GPU machine by ``run.sh``, each variant with its own CMake build and that machine's CUDA (its
nvcc version is printed): its sources (the project, its compat tree) and HIP's NVIDIA headers
(``OUT/hip-include``) are copied into OUT, which travels to the GPU machine whole. The programs
take no arguments and read no files (``scripts/gpu_run.py`` runs them the same way).

    python scripts/compat_gpu_run.py build --out build/compat-gpu   # here (--fix: --compat --fix)
    bash build/compat-gpu/run.sh > device.log 2>&1                    # on the GPU machine
    python scripts/compat_gpu_run.py table device.log                 # here: Markdown table

``run.sh`` runs each binary 3 times (rounds; within a round every project's variants one after
the other), printing ``=== <binary> round <r>`` before and ``=== exit <binary> <rc>`` after each
run. Also written: ``OUT/build-commands.txt`` (every configure/build command),
``OUT/binaries.txt`` (size, ``ldd`` and ``cuobjdump --list-elf`` of each binary) and
``OUT/build-info.txt`` (the hipport commit and toolchain versions).
"""

from __future__ import annotations

import argparse
import re
import shlex
import shutil
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "scripts"))

from hipport.compat import compat_tree  # noqa: E402
from hipport.convert import ConvertOptions  # noqa: E402
from hipport.toolchain import Toolchain  # noqa: E402

from corpus_projects import build_commands, projects  # noqa: E402

VARIANTS = ("cuda-original", "compat-cuda", "compat-hipnv")
ROUNDS = 3
#: CMake options of each variant's rebuild on the GPU machine (``$HERE``: the folder of run.sh).
DEVICE_FLAGS = {"cuda-original": [], "compat-cuda": ["-DHIPPORT_COMPAT_CUDA=ON"],
                "compat-hipnv": ["-DHIPPORT_PLATFORM=nvidia", "-DHIPPORT_HIP_NVIDIA_INCLUDE=$HERE/hip-include"]}
#: Shared libraries a binary may need on the GPU machine: the C/C++ runtime of the system and
#: the CUDA runtime (the driver's libcuda is loaded by cudart at run time, not linked).
SYSTEM_LIBS = re.compile(r"^(linux-vdso\.so|/lib64/ld-linux-x86-64\.so|libc\.so|libm\.so|libdl\.so|libpthread\.so|"
                         r"librt\.so|libgcc_s\.so|libstdc\+\+\.so|libcudart\.so)")
#: Lines that report a measured time: not compared (as scripts/gpu_run.py).
_TIMING = re.compile(r"\b[0-9]+\.[0-9]+ ms\b|^kernel_median_ms ")
_BINARY = re.compile(r"^(?P<project>.+?)-(?P<variant>" + "|".join(VARIANTS) + r")(?:-(?P<exe>.+))?$")
_HEADER = re.compile(r"^=== (\S+) round (\d+)$")
_EXIT = re.compile(r"^=== exit (\S+) (-?\d+)$")


def _run(command: list[str], log: list[str]) -> subprocess.CompletedProcess:
    """Run ``command`` (recorded in ``log``); exit with its output tail when it fails."""
    log.append(shlex.join(command))
    print(f"$ {shlex.join(command)}", flush=True)
    done = subprocess.run(command, capture_output=True, text=True, timeout=1800)
    if done.returncode != 0:
        sys.exit(f"failed: {shlex.join(command)}\n{(done.stdout + done.stderr)[-4000:]}")
    return done


def built_executables(build_dir: Path) -> list[Path]:
    """The ELF executables a build wrote under ``build_dir`` (not CMake's own probes under
    ``CMakeFiles/``, not shared objects), sorted by path."""
    found = []
    for path in sorted(build_dir.rglob("*")):
        if (not path.is_file() or path.is_symlink() or "CMakeFiles" in path.relative_to(build_dir).parts
                or ".so" in path.name or not path.stat().st_mode & 0o111):
            continue
        with path.open("rb") as stream:
            head = stream.read(18)
        if head[:4] == b"\x7fELF" and int.from_bytes(head[16:18], "little") in (2, 3):  # ET_EXEC / ET_DYN (PIE)
            if int.from_bytes(head[16:18], "little") == 3 and not _has_interpreter(path):
                continue
            found.append(path)
    return found


def _has_interpreter(path: Path) -> bool:
    """Whether an ET_DYN file is a (position-independent) executable: it names a program interpreter."""
    done = subprocess.run(["readelf", "-l", str(path)], capture_output=True, text=True)
    return "Requesting program interpreter" in done.stdout


def needed_libraries(binary: Path) -> list[str]:
    """The ``ldd`` lines of ``binary`` (``libfoo.so.1 => /path (0x...)``), stripped."""
    done = subprocess.run(["ldd", str(binary)], capture_output=True, text=True)
    return [line.strip() for line in done.stdout.splitlines() if line.strip()]


def foreign_libraries(ldd_lines: list[str]) -> list[str]:
    """The libraries of ``ldd_lines`` that are neither system C/C++ libraries nor libcudart."""
    return [line.split()[0] for line in ldd_lines if not SYSTEM_LIBS.match(line.split()[0])]


def variant_builds(project: Path, compat: Path, build_root: Path, toolchain: Toolchain,
                   jobs: int) -> dict[str, tuple[Path, list[list[str]]]]:
    """``{variant: (build folder, commands)}`` of the three builds of ``project`` (compat tree
    ``compat``)."""
    nvidia = [f"-DCMAKE_CUDA_COMPILER={toolchain.nvcc}", f"-DCMAKE_CUDA_HOST_COMPILER={toolchain.ccbin}",
              "-DHIPPORT_OFFLOAD_ARCHS=90", "-DCMAKE_CUDA_ARCHITECTURES=90"]
    cmake = str(toolchain.cmake or "cmake")
    builds = {}
    original = (build_root / "cuda-original").resolve()
    builds["cuda-original"] = (original, build_commands(project, original, toolchain, jobs))
    for variant, flags in (("compat-cuda", DEVICE_FLAGS["compat-cuda"]),
                           ("compat-hipnv", ["-DHIPPORT_PLATFORM=nvidia",
                                             f"-DHIPPORT_HIP_NVIDIA_INCLUDE={toolchain.hip_nvidia_include}"])):
        folder = (build_root / variant).resolve()
        builds[variant] = (folder, [[cmake, "-S", str(compat), "-B", str(folder), "-DCMAKE_BUILD_TYPE=Release",
                                     *flags, *nvidia],
                                    [cmake, "--build", str(folder), "--parallel", str(jobs)]])
    return builds


def _binary_name(project: str, variant: str, executable: str) -> str:
    return f"{project}-{variant}" + ("" if executable == project else f"-{executable}")


def build(out: Path, jobs: int, only: list[str] | None = None, fix: bool = False) -> None:
    """Convert (with ``--compat --fix`` when ``fix``) and build every project three ways into
    ``out``; copy the executables to ``out/bin``; write run.sh, left-out.txt,
    build-commands.txt, binaries.txt, build-info.txt."""
    toolchain = Toolchain.load()
    out = out.resolve()
    bin_dir = out / "bin"
    shutil.rmtree(bin_dir, ignore_errors=True)
    bin_dir.mkdir(parents=True)
    log: list[str] = []
    left_out: list[str] = []
    binaries, described = [], []
    rebuilds: list[tuple[str, str, str, list[str]]] = []
    for project in projects():
        name = project.name
        if only and name not in only:
            continue
        compat = out / "compat" / name
        shutil.rmtree(compat, ignore_errors=True)
        print(f"[{name}] compat_tree{' --fix' if fix else ''} -> {compat}", flush=True)
        compat_tree(project, compat, ConvertOptions(fix=fix))
        for variant, (folder, commands) in variant_builds(project, compat, out / "build" / name, toolchain,
                                                          jobs).items():
            shutil.rmtree(folder, ignore_errors=True)
            print(f"[{name}] {variant}", flush=True)
            for command in commands:
                _run(command, log)
            executables = built_executables(folder)
            if not executables:
                sys.exit(f"{name} {variant}: the build wrote no executable under {folder}")
            for executable in executables:
                binary = _binary_name(name, variant, executable.name)
                ldd = needed_libraries(executable)
                elf = subprocess.run([str(toolchain.cuobjdump), "--list-elf", str(executable)],
                                     capture_output=True, text=True).stdout.splitlines()
                described.append(f"{binary}: {executable.stat().st_size} bytes, from {executable}\n"
                                 + "".join(f"  ldd: {line}\n" for line in ldd)
                                 + "".join(f"  cuobjdump: {line.strip()}\n" for line in elf if line.strip()))
                foreign = foreign_libraries(ldd)
                if foreign and not (project / "CMakeLists.txt").is_file():
                    left_out.append(f"{name} {variant}: {binary} needs {', '.join(foreign)}, which the GPU machine "
                                    "(driver only) lacks and the toolchain has only as link stubs")
                    continue
                binaries.append(binary)
                if not foreign:
                    shutil.copy2(executable, bin_dir / binary)
                    continue
                source = compat if variant != "cuda-original" else out / "device-src" / name
                if variant == "cuda-original":
                    shutil.rmtree(source, ignore_errors=True)
                    shutil.copytree(project, source)
                rebuilds.append((binary, source.relative_to(out).as_posix(),
                                 executable.relative_to(folder).as_posix(), DEVICE_FLAGS[variant]))
                print(f"[{name}] {binary} needs {', '.join(foreign)}: rebuilt on the GPU machine by run.sh")
    (out / "build-commands.txt").write_text("\n".join(log) + "\n")
    (out / "binaries.txt").write_text("".join(described))
    (out / "left-out.txt").write_text("".join(f"{line}\n" for line in left_out))
    commit = subprocess.run(["git", "-C", str(REPO), "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    (out / "build-info.txt").write_text(f"hipport {commit}\ncuda {toolchain.cuda_version}\n"
                                        f"hip (NVIDIA headers) {toolchain.hip_nvidia_version}\nhost {toolchain.ccbin}\n")
    run_sh = out / "run.sh"
    if rebuilds:
        shutil.rmtree(out / "hip-include", ignore_errors=True)
        shutil.copytree(toolchain.hip_nvidia_include / "hip", out / "hip-include" / "hip")
    run_sh.write_text(run_script(binaries, rebuilds=rebuilds))
    run_sh.chmod(0o755)
    total = sum((bin_dir / b).stat().st_size for b in binaries if (bin_dir / b).exists())
    print(f"wrote {run_sh} and {len(binaries)} binaries in {bin_dir} ({total / 2**20:.1f} MiB)")
    if left_out:
        print("left out:\n" + "\n".join(left_out))


def run_script(binaries: list[str], rounds: int = ROUNDS,
               rebuilds: list[tuple[str, str, str, list[str]]] = ()) -> str:
    """The bash script that runs every binary of ``bin/`` ``rounds`` times (from any folder).

    ``rebuilds``: ``(binary, source folder relative to OUT, executable path in its build folder,
    CMake options)`` of the binaries built first on the GPU machine, with its CMake and nvcc, into
    ``bin/`` (a failed build prints ``REBUILD FAILED <binary>`` and its log's tail)."""
    lines = [
        "#!/usr/bin/env bash",
        "# Written by scripts/compat_gpu_run.py: runs every binary of bin/ "
        f"{rounds} times; needs nothing but the NVIDIA driver"
        + (", and CMake and the CUDA toolkit for the binaries it builds first." if rebuilds else "."),
        "set -u",
        'HERE="$(cd "$(dirname "$0")" && pwd)"',
        'cd "$HERE/bin"',
        "nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | sed 's/^/GPU: /'",
        "status=0",
    ]
    if rebuilds:
        lines += [
            'NVCC="$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)"',
            "device_build() {  # binary, source folder, executable in the build folder, CMake options",
            '  local binary="$1" src="$HERE/$2" exe="$3" dir="/tmp/compat-gpu-device/$1"; shift 3',
            '  echo "=== rebuild $binary here with $("$NVCC" --version | tail -n 1)"',
            '  rm -rf "$dir"; mkdir -p "$dir"',
            '  if cmake -S "$src" -B "$dir" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_COMPILER="$NVCC" '
            '-DCMAKE_CUDA_ARCHITECTURES=90 -DHIPPORT_OFFLOAD_ARCHS=90 "$@" >"$dir.log" 2>&1 '
            '&& cmake --build "$dir" -j 8 >>"$dir.log" 2>&1 && cp "$dir/$exe" "$HERE/bin/$binary"; then',
            '    ldd "$HERE/bin/$binary" | grep -E "cublas|curand|hip" | sed "s/^/  ldd: /"',
            "  else",
            '    echo "REBUILD FAILED $binary"; tail -n 40 "$dir.log"; status=1',
            "  fi",
            "}",
        ]
        for binary, source, executable, flags in rebuilds:
            lines.append(f"device_build {binary} {source} {executable} "
                         + " ".join(f'"{flag}"' for flag in flags))
    for round_number in range(1, rounds + 1):
        for binary in binaries:
            lines += [f'echo "=== {binary} round {round_number}"',
                      f"timeout 120 ./{binary}; rc=$?",
                      f'echo "=== exit {binary} $rc"',
                      '[ "$rc" -eq 0 ] || status=1']
    lines.append("exit $status")
    return "\n".join(lines) + "\n"


def table(log: Path) -> str:
    """A Markdown table of a run.sh log: one row per project and executable, with the exit codes
    of every variant (``-`` for a variant that did not run, such as a binary whose rebuild on the
    GPU machine failed: ``timeout`` exits 127 for it), the last line the compat-cuda build
    printed (else the original's), and whether every round of every variant printed the lines of
    the original's first round, and every round of the original the same lines, except lines that
    report a measured time (``kernel_median_ms ...``, ``... 1.234 ms``).
    """
    outputs: dict[tuple[str, str, str], list[list[str]]] = defaultdict(list)
    exits: dict[tuple[str, str, str], list[int]] = defaultdict(list)
    last: dict[tuple[str, str, str], str] = {}
    current = None
    for line in log.read_text(errors="replace").splitlines():
        if (m := _HEADER.match(line)) and (b := _BINARY.match(m[1])):
            current = (b["project"], b["exe"] or b["project"], b["variant"])
            outputs[current].append([])
        elif (m := _EXIT.match(line)) and (b := _BINARY.match(m[1])):
            key = (b["project"], b["exe"] or b["project"], b["variant"])
            if int(m[2]) == 127:  # timeout's "failed to run command": a binary not built (REBUILD FAILED)
                outputs[key].pop()
            else:
                exits[key].append(int(m[2]))
            current = None
        elif current is not None:
            if line.strip():
                last[current] = line.strip()
            if not _TIMING.search(line):
                outputs[current][-1].append(line)
    rows = ["| project | binary | exit codes (" + " / ".join(VARIANTS) + ") | last line | outputs equal the original's |",
            "| --- | --- | --- | --- | --- |"]
    for project, exe in sorted({key[:2] for key in outputs}):
        keys = [(project, exe, v) for v in VARIANTS]
        for k in keys:
            if k in outputs and not outputs[k]:
                del outputs[k]
        codes = " / ".join(" ".join(map(str, exits[k])) if exits.get(k) else "-" for k in keys)
        reference = outputs.get(keys[0])
        ran = [k for k in keys if outputs.get(k)]
        if not reference:
            equal = "no original"
        else:
            equal = "yes" if all(run == reference[0] for k in ran for run in outputs[k]) else "NO"
            if len(ran) < len(VARIANTS):
                equal += " (" + ", ".join(k[2] for k in keys if k not in ran) + " not run)"
        shown = next((last[k] for k in (keys[1], keys[0], keys[2]) if k in last), "")
        rows.append(f"| {project} | {exe} | {codes} | `{shown}` | {equal} |")
    return "\n".join(rows) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build", help="convert and build every project three ways, write run.sh")
    b.add_argument("--out", type=Path, required=True)
    b.add_argument("-j", "--jobs", type=int, default=2, help="parallel compile jobs of each build")
    b.add_argument("--only", nargs="*", help="build only these projects (default: all)")
    b.add_argument("--fix", action="store_true", help="make the compat trees with --compat --fix")
    t = sub.add_parser("table", help="Markdown table from a run.sh log")
    t.add_argument("log", type=Path)
    args = parser.parse_args(argv)
    if args.command == "build":
        build(args.out, args.jobs, args.only, args.fix)
    else:
        sys.stdout.write(table(args.log))
    return 0


if __name__ == "__main__":
    sys.exit(main())

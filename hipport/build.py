"""``hipport build``: configure and build a ported tree with CMake for AMD or NVIDIA, list the
executables, and optionally run them.

Steps: :func:`find_tools` checks the toolchain (every missing piece is reported at once, with
what to install: :class:`ToolchainIncomplete`), :func:`configure_command` and
:func:`build_command` drive CMake (a failure raises :class:`BuildFailed` with the command and
the tail of its output; the whole output is kept in ``BUILD/hipport-configure.log`` and
``BUILD/hipport-build.log``), :func:`executables` reads the executables CMake produced from its
file API (``BUILD/.cmake/api/v1``), :func:`run_executables` runs them and
:func:`format_run_table` prints their exit statuses.

Where the tools come from: hipport's own toolchain when ``toolchain.json`` exists
(``$HIPPORT_TOOLCHAIN_DIR`` or ``<repository>/.toolchain``, written by
``scripts/install-toolchain.sh``; read with :meth:`hipport.toolchain.Toolchain.load`), else
``PATH`` and the standard places: ``$ROCM_PATH``, ``hipconfig --rocmpath``, ``/opt/rocm`` (AMD);
``$CUDA_PATH``, ``PATH``, ``/usr/local/cuda`` (NVIDIA); ``$HIP_PATH``, the ROCm folders and
``/usr/include`` for HIP's NVIDIA headers.

The CMake build must include ``cmake/HipportPlatform.cmake`` (``hipport convert`` writes it; see
``docs/build.md``): the platform and architectures reach it as ``HIPPORT_PLATFORM`` and
``HIPPORT_OFFLOAD_ARCHS``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Sequence

from .cmake import validate_offload_archs
from .toolchain import INSTALL_SCRIPT, Toolchain, ToolchainMissing, default_toolchain_dir

PLATFORMS = ("amd", "nvidia")
#: The oldest CMake with the HIP language (and the CUDA language features the module uses).
MIN_CMAKE = (3, 21)
#: Where a ROCm installation is looked for when neither $ROCM_PATH nor hipconfig names one.
STANDARD_ROCM_ROOTS: tuple[Path, ...] = (Path("/opt/rocm"),)
#: Where a CUDA toolkit is looked for after $CUDA_PATH and PATH.
STANDARD_CUDA_ROOTS: tuple[Path, ...] = (Path("/usr/local/cuda"),)
#: Include folders searched for HIP's NVIDIA headers after $HIP_PATH and the ROCm folders.
STANDARD_INCLUDE_DIRS: tuple[Path, ...] = (Path("/usr/include"),)
#: The header that marks a HIP with the NVIDIA backend.
HIP_NVIDIA_HEADER = "hip/nvidia_detail/nvidia_hip_runtime.h"
#: Lines of a failing command's output shown in the error.
TAIL_LINES = 40
#: Compiler error lines shown for a failed build step.
ERROR_LINES = 10
#: Files that mark a tree hipport wrote: the conversion report, else the platform module with
#: its first line (a hand-written CMake build that includes the module is a port too).
PORT_REPORT = "hipport-report.json"
PORT_MODULE = "cmake/HipportPlatform.cmake"
_MODULE_FIRST_LINE = "# HipportPlatform.cmake: written by hipport"
#: A compiler's error line with its place: clang/gcc ``file:line:col: error: ...`` (also
#: ``fatal error:``), nvcc ``file(line): error: ...`` (also ``catastrophic error``).
_COMPILER_ERROR = re.compile(r"^(?P<file>[^\s:][^:]*?)(?::(?P<line>\d+)(?::\d+)?|\((?P<nvline>\d+)\)):"
                             r" (?:fatal |catastrophic )?error\b")
#: An error line of another tool (the linker, a compiler driver): ``ld.lld: error: ...``.
_TOOL_ERROR = re.compile(r"^\S+: (?:fatal )?error: ")
_SCRIPT_HINT = f"or run {INSTALL_SCRIPT} (hipport's toolchain from Debian's archive)"


@dataclass(frozen=True, slots=True)
class Missing:
    """One missing or unusable toolchain piece.

    Attributes:
        piece: what is needed (``CMake 3.21 or newer``).
        found: what was found or where it was looked for.
        install: what to install to get it.
    """

    piece: str
    found: str
    install: str


class ToolchainIncomplete(RuntimeError):
    """Pieces of the toolchain for ``platform`` are missing; ``missing`` lists every one."""

    def __init__(self, platform: str, missing: list[Missing], source: str) -> None:
        self.platform = platform
        self.missing = missing
        self.source = source
        lines = [f"the {platform.upper() if platform == 'amd' else 'NVIDIA'} build toolchain is incomplete "
                 f"(looked in {source}):"]
        for item in missing:
            lines.append(f"  - {item.piece}: {item.found}.\n    Install {item.install}.")
        super().__init__("\n".join(lines))


class NotAPort(ValueError):
    """``hipport build`` was given a folder that ``hipport convert`` did not write (see
    :func:`check_port`); nothing was written."""


class BuildFailed(RuntimeError):
    """A CMake step failed.

    Attributes:
        step: ``configure`` or ``build``.
        command: the argument list that was run.
        returncode: its exit status (None: it timed out).
        tail: the last :data:`TAIL_LINES` lines of its output.
        log: the file holding its whole output.
        errors: the first :data:`ERROR_LINES` error lines of the output (:func:`error_lines`);
            the message shows them instead of the tail when there are any.
    """

    def __init__(self, step: str, command: Sequence[str], returncode: int | None, tail: str, log: Path,
                 errors: Sequence[str] = (), error_count: int = 0) -> None:
        self.step, self.command, self.returncode, self.tail, self.log = step, list(command), returncode, tail, log
        self.errors, self.error_count = list(errors), max(error_count, len(errors))
        status = "timed out" if returncode is None else f"exit {returncode}"
        if self.errors:
            shown = (f"the first {len(self.errors)} of {self.error_count} error lines"
                     if self.error_count > len(self.errors) else
                     f"{'the' if len(self.errors) > 1 else 'its'} error line{'s' if len(self.errors) > 1 else ''}")
            body = f"{shown}:\n" + "\n".join(f"  {line}" for line in self.errors)
        else:
            body = tail
        super().__init__(f"CMake {step} failed ({status}): {' '.join(self.command)}\n{body}\n(whole output: {log})")


def error_lines(output: str, limit: int = ERROR_LINES) -> tuple[list[str], int]:
    """The error lines of a build's output, first ones first, each once (clang repeats an error
    for every offload architecture): compiler errors with their ``file:line`` (clang, gcc,
    nvcc), else the errors of other tools (``ld.lld: error:``).

    Args:
        output: the build step's output.
        limit: how many lines to return.

    Returns:
        (up to ``limit`` lines, how many distinct error lines there are in all).
    """
    found: dict[str, None] = {}
    others: dict[str, None] = {}
    for line in output.splitlines():
        line = line.rstrip()
        if _COMPILER_ERROR.match(line):
            found[line] = None
        elif _TOOL_ERROR.match(line):
            others[line] = None
    lines = list(found or others)
    return lines[:limit], len(lines)


def check_port(out: Path) -> None:
    """Check that ``out`` is a tree ``hipport convert`` wrote, before anything is written there:
    it holds CMakeLists.txt and hipport-report.json, or a platform module hipport wrote
    (cmake/HipportPlatform.cmake, included by a hand-written CMake build).

    Raises:
        NotAPort: ``out`` is missing, is no folder, is a CUDA tree or another project, or
            has no CMakeLists.txt; the message says what to run.
    """
    if not out.is_dir():
        raise NotAPort(f"{out} is not a folder: give the folder `hipport convert SRC -o OUT` wrote")
    module = out / PORT_MODULE
    try:
        marked = (out / PORT_REPORT).is_file() or (
            module.is_file() and module.read_text(errors="replace").startswith(_MODULE_FIRST_LINE))
    except OSError:
        marked = False
    if not marked:
        raise NotAPort(f"{out} is not a tree that `hipport convert` wrote (it has neither {PORT_REPORT} nor "
                       f"{PORT_MODULE}): port it first with `hipport convert {out} -o OUT`, then run "
                       f"`hipport build OUT`. Nothing was written to {out}")
    if not (out / "CMakeLists.txt").is_file():
        raise NotAPort(f"{out / 'CMakeLists.txt'} does not exist: `hipport convert` writes one where the CUDA tree "
                       f"had a CMake build or none (a Makefile-only port builds with make)")


@dataclass(frozen=True)
class BuildTools:
    """What a build for ``platform`` runs with.

    Attributes:
        platform: ``amd`` or ``nvidia``.
        cmake: the cmake program; ``cmake_version`` its version (``3.25.1``).
        configure_args: platform arguments for the configure step (toolchain file, compilers,
            header folders).
        source: where the tools came from (for messages).
    """

    platform: str
    cmake: Path
    cmake_version: str
    configure_args: tuple[str, ...]
    source: str


# ---------------------------------------------------------------------------- probing tools

def _output(command: Sequence[str], timeout: float = 30) -> str | None:
    """Standard output of ``command``, or None when it cannot run or fails."""
    try:
        done = subprocess.run(list(command), capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout if done.returncode == 0 else None


def cmake_version(cmake: Path) -> tuple[int, ...] | None:
    """The version of ``cmake`` (``(3, 25, 1)``), or None when it does not run."""
    text = _output([str(cmake), "--version"])
    match = re.search(r"cmake version (\d+)\.(\d+)(?:\.(\d+))?", text or "")
    return tuple(int(part) for part in match.groups() if part is not None) if match else None


def _check_cmake(cmake: Path | None, missing: list[Missing]) -> tuple[Path, str]:
    install = "CMake 3.21 or newer: apt-get install cmake (Debian 12 has 3.25), or pip install cmake"
    if cmake is None:
        missing.append(Missing("CMake 3.21 or newer", "no cmake on PATH", install))
        return Path("cmake"), ""
    version = cmake_version(cmake)
    if version is None:
        missing.append(Missing("CMake 3.21 or newer", f"{cmake} does not run", install))
        return cmake, ""
    shown = ".".join(map(str, version))
    if version < MIN_CMAKE:
        missing.append(Missing("CMake 3.21 or newer (the HIP language)", f"{cmake} is {shown}", install))
    return cmake, shown


def _check_amd_clang(clang: Path | None, looked: str, missing: list[Missing], install_clang: str,
                     install_tools: str, install_lld: str, install_rt: str) -> None:
    """clang++ with the AMDGPU target, clang-offload-bundler, lld and compiler-rt next to it."""
    if clang is None or not clang.is_file():
        missing.append(Missing("clang++ with HIP support", looked, install_clang))
        return
    targets = _output([str(clang), "-print-targets"])
    if targets is None or "amdgcn" not in targets:
        missing.append(Missing("clang++ with HIP support", f"{clang} has no amdgcn (AMD GPU) target", install_clang))
        return
    real = clang.resolve().parent
    version = re.search(r"-(\d+)$", clang.name)
    suffix = f"-{version.group(1)}" if version else ""
    bundler = _first_file([real / "clang-offload-bundler", clang.parent / f"clang-offload-bundler{suffix}"],
                          [f"clang-offload-bundler{suffix}", "clang-offload-bundler"])
    if bundler is None:
        missing.append(Missing("clang-offload-bundler", f"not next to {clang} ({real}) nor on PATH", install_tools))
    lld = _first_file([real / "ld.lld"], [f"ld.lld{suffix}", "ld.lld"])
    if lld is None:
        missing.append(Missing("lld (the HIP link step)", f"no ld.lld next to {clang} ({real}) nor on PATH", install_lld))
    runtime = _output([str(clang), "--rtlib=compiler-rt", "-print-libgcc-file-name"])
    if runtime is None or not Path(runtime.strip()).is_file():
        shown = runtime.strip() if runtime else "nothing"
        missing.append(Missing("compiler-rt builtins (linked by CMake's HIP language)",
                               f"{clang} points to {shown}", install_rt))


def _first_file(paths: Sequence[Path], names: Sequence[str]) -> Path | None:
    for path in paths:
        if path.is_file():
            return path
    for name in names:
        found = shutil.which(name)
        if found:
            return Path(found)
    return None


def _has_device_libs(folder: Path | None) -> bool:
    return folder is not None and (folder / "ocml.bc").is_file()


def _rocm_root() -> Path | None:
    """``$ROCM_PATH``, else ``hipconfig --rocmpath``, else the first of STANDARD_ROCM_ROOTS that exists."""
    if os.environ.get("ROCM_PATH"):
        return Path(os.environ["ROCM_PATH"])
    hipconfig = shutil.which("hipconfig")
    if hipconfig:
        text = (_output([hipconfig, "--rocmpath"]) or "").strip()
        if text:
            return Path(text)
    return next((root for root in STANDARD_ROCM_ROOTS if root.is_dir()), None)


def _toolchain() -> tuple[Toolchain | None, str, Missing | None]:
    """The installed hipport toolchain (or None when there is no toolchain.json), where it was
    looked for, and a Missing entry when toolchain.json exists but cannot be used."""
    folder = default_toolchain_dir()
    json_path = folder / "toolchain.json"
    if not json_path.is_file():
        return None, "", None
    try:
        return Toolchain.load(folder), f"hipport's toolchain ({json_path})", None
    except ToolchainMissing as error:
        return None, f"hipport's toolchain ({json_path})", Missing(
            "hipport's toolchain", error.reason, f"it again: run {INSTALL_SCRIPT} (it re-installs missing parts)")


def find_tools(platform: str) -> BuildTools:
    """Check the toolchain for ``platform`` and return what the build runs with.

    Args:
        platform: ``amd`` or ``nvidia``.

    Returns:
        The tools (see :class:`BuildTools`).

    Raises:
        ValueError: platform is neither amd nor nvidia.
        ToolchainIncomplete: a piece is missing; its ``missing`` list names every one, with
            what to install.
    """
    if platform not in PLATFORMS:
        raise ValueError(f"platform must be amd or nvidia, not {platform!r}")
    missing: list[Missing] = []
    toolchain, source, broken = _toolchain()
    if broken is not None:
        raise ToolchainIncomplete(platform, [broken], source)
    if toolchain is not None:
        cmake, version = _check_cmake(toolchain.cmake or _which("cmake"), missing)
        args = _toolchain_args(toolchain, platform, missing)
    else:
        source = "PATH and the standard ROCm/CUDA folders (no hipport toolchain.json at " \
                 f"{default_toolchain_dir() / 'toolchain.json'})"
        cmake, version = _check_cmake(_which("cmake"), missing)
        args = _amd_system_args(missing) if platform == "amd" else _nvidia_system_args(missing)
    if missing:
        raise ToolchainIncomplete(platform, missing, source)
    return BuildTools(platform, cmake, version, tuple(args), source)


def _which(name: str) -> Path | None:
    found = shutil.which(name)
    return Path(found) if found else None


def _toolchain_args(tc: Toolchain, platform: str, missing: list[Missing]) -> list[str]:
    if platform == "amd":
        _check_amd_clang(tc.clang, f"{tc.clang} does not exist", missing,
                         f"clang-19 (apt-get install clang-19 lld-19 clang-tools-19), {_SCRIPT_HINT}",
                         f"clang-tools-19 (apt-get install clang-tools-19), {_SCRIPT_HINT}",
                         f"lld-19 (apt-get install lld-19), {_SCRIPT_HINT}",
                         f"libclang-rt-19-dev (apt-get install libclang-rt-19-dev), {_SCRIPT_HINT}")
        if not _has_device_libs(tc.rocm_device_lib_path):
            missing.append(Missing("AMD device libraries (ocml.bc...)", f"none in {tc.rocm_device_lib_path}",
                                   f"rocm-device-libs-17 (Debian 13), {_SCRIPT_HINT}"))
        if not (tc.hip_amd_include / "hip" / "hip_runtime.h").is_file():
            missing.append(Missing("HIP headers for AMD", f"no hip/hip_runtime.h in {tc.hip_amd_include}",
                                   f"libamdhip64-dev 6.4 (Debian sid), {_SCRIPT_HINT}"))
        if tc.cmake_hip_toolchain_file is None or not tc.cmake_hip_toolchain_file.is_file():
            missing.append(Missing("the CMake HIP toolchain file", "toolchain.json lists none",
                                   f"it with a current {INSTALL_SCRIPT} (run it again)"))
            return []
        return [f"-DCMAKE_TOOLCHAIN_FILE={tc.cmake_hip_toolchain_file}"]
    args = []
    if _output([str(tc.nvcc), "--version"]) is None:
        missing.append(Missing("nvcc (CUDA 12)", f"{tc.nvcc} does not run",
                               f"nvidia-cuda-toolkit 12.4 (Debian 13 non-free), {_SCRIPT_HINT}"))
    else:
        args += [f"-DCMAKE_CUDA_COMPILER={tc.nvcc}", f"-DCMAKE_CUDA_HOST_COMPILER={tc.ccbin}"]
    if not (tc.hip_nvidia_include / HIP_NVIDIA_HEADER).is_file():
        missing.append(Missing("HIP's NVIDIA headers", f"no {HIP_NVIDIA_HEADER} in {tc.hip_nvidia_include}",
                               f"libamdhip64-dev 5.7 (Debian 13: it ships hip/nvidia_detail), {_SCRIPT_HINT}"))
    else:
        args.append(f"-DHIPPORT_HIP_NVIDIA_INCLUDE={tc.hip_nvidia_include}")
    return args


def _amd_system_args(missing: list[Missing]) -> list[str]:
    rocm = _rocm_root()
    install_rocm = (f"ROCm's HIP SDK (rocm-hip-sdk, https://rocm.docs.amd.com) and set ROCM_PATH if it is not "
                    f"/opt/rocm, {_SCRIPT_HINT}")
    no_rocm = "no ROCm installation found ($ROCM_PATH, hipconfig --rocmpath, " + \
        ", ".join(map(str, STANDARD_ROCM_ROOTS)) + ")"
    clang = None
    if rocm is not None and (rocm / "llvm" / "bin" / "clang++").is_file():
        clang = rocm / "llvm" / "bin" / "clang++"
    else:
        clang = next(filter(None, map(_which, ("amdclang++", "clang++", *(f"clang++-{v}" for v in range(21, 16, -1))))),
                     None)
    where = f"none in {rocm}/llvm/bin" if rocm is not None else no_rocm
    _check_amd_clang(clang, f"{where}, and no amdclang++ or clang++(-17...21) on PATH", missing,
                     f"ROCm's llvm (rocm-llvm), or clang 17 or newer with the AMDGPU target, {_SCRIPT_HINT}",
                     f"ROCm's rocm-llvm, or clang-tools for your clang, {_SCRIPT_HINT}",
                     f"ROCm's rocm-llvm, or lld for your clang, {_SCRIPT_HINT}",
                     f"ROCm's rocm-llvm, or compiler-rt for your clang, {_SCRIPT_HINT}")
    pieces = [("HIP headers for AMD", Path("include/hip/hip_runtime.h")),
              ("HIP's CMake language support", Path("lib/cmake/hip-lang/hip-lang-config.cmake"))]
    for piece, rel in pieces:
        if rocm is None or not (rocm / rel).is_file():
            missing.append(Missing(piece, no_rocm if rocm is None else f"no {rel} in {rocm}", install_rocm))
    device_libs = [rocm / "amdgcn" / "bitcode",
                   *sorted((rocm / "lib" / "llvm" / "lib" / "clang").glob("*/lib/amdgcn/bitcode"))] if rocm else []
    if not any(_has_device_libs(folder) for folder in device_libs):
        missing.append(Missing("AMD device libraries (ocml.bc...)",
                               no_rocm if rocm is None else f"no amdgcn/bitcode/ocml.bc in {rocm}",
                               f"ROCm's rocm-device-libs, {_SCRIPT_HINT}"))
    args = []
    if clang is not None:
        args.append(f"-DCMAKE_HIP_COMPILER={clang}")
    if rocm is not None:
        args.append(f"-DCMAKE_HIP_COMPILER_ROCM_ROOT={rocm}")
    return args


def _nvidia_system_args(missing: list[Missing]) -> list[str]:
    candidates = ([Path(os.environ["CUDA_PATH"]) / "bin" / "nvcc"] if os.environ.get("CUDA_PATH") else [])
    nvcc = _first_file(candidates, ["nvcc"]) or _first_file([root / "bin" / "nvcc" for root in STANDARD_CUDA_ROOTS], [])
    args = []
    install_cuda = f"a CUDA 12 toolkit (NVIDIA's cuda-toolkit-12, or Debian 13 non-free nvidia-cuda-toolkit), {_SCRIPT_HINT}"
    if nvcc is None:
        missing.append(Missing("nvcc (CUDA 12)", "none in $CUDA_PATH/bin, on PATH, or in " +
                               ", ".join(str(r / "bin") for r in STANDARD_CUDA_ROOTS), install_cuda))
    elif _output([str(nvcc), "--version"]) is None:
        missing.append(Missing("nvcc (CUDA 12)", f"{nvcc} does not run", install_cuda))
    else:
        args.append(f"-DCMAKE_CUDA_COMPILER={nvcc}")
    roots = [Path(os.environ["HIP_PATH"]) / "include"] if os.environ.get("HIP_PATH") else []
    rocm = _rocm_root()
    roots += [rocm / "include"] if rocm is not None else []
    roots += list(STANDARD_INCLUDE_DIRS)
    include = next((root for root in roots if (root / HIP_NVIDIA_HEADER).is_file()), None)
    if include is None:
        missing.append(Missing("HIP's NVIDIA headers", f"no {HIP_NVIDIA_HEADER} in " + ", ".join(map(str, roots)),
                               f"a HIP that ships them (Debian 13 libamdhip64-dev 5.7, or ROCm's hip-dev), and set "
                               f"HIP_PATH to it, {_SCRIPT_HINT}"))
    else:
        args.append(f"-DHIPPORT_HIP_NVIDIA_INCLUDE={include}")
    return args


# ---------------------------------------------------------------------------- CMake steps

def normalize_archs(platform: str, value: str) -> list[str]:
    """Split an ``--offload-arch`` list (``;`` or ``,``) and check it for ``platform``.

    AMD takes gfx names (``gfx90a``, ``gfx942:xnack+``); NVIDIA takes SM numbers as CMake writes
    them (``90``, ``90a``, ``80-real``) or ``sm_90``, which becomes ``90``.

    Raises:
        ValueError: an entry does not fit the platform, entries repeat, or the list is empty.
    """
    archs = [a.strip() for a in value.replace(",", ";").split(";") if a.strip()]
    if platform == "amd":
        return validate_offload_archs(archs)
    result = []
    for arch in archs:
        match = re.fullmatch(r"(?:sm_)?(\d+[af]?)((?:-real|-virtual)?)", arch)
        if not match:
            raise ValueError(f"{arch!r} is not an NVIDIA architecture such as 90 or sm_90")
        result.append(match.group(1) + match.group(2))
    if not result:
        raise ValueError("at least one offload architecture is needed")
    if len(set(result)) != len(result):
        raise ValueError(f"offload architectures repeat: {';'.join(result)}")
    return result


def configure_command(tools: BuildTools, source_dir: Path, build_dir: Path,
                      offload_archs: Sequence[str] | None = None, build_type: str | None = "Release") -> list[str]:
    """The cmake configure command for ``source_dir`` into ``build_dir``.

    Args:
        tools: from :func:`find_tools`.
        offload_archs: from :func:`normalize_archs`; None keeps the project's default (or the
            build folder's earlier choice).
        build_type: ``CMAKE_BUILD_TYPE`` (None: not set).
    """
    command = [str(tools.cmake), "-S", str(source_dir), "-B", str(build_dir),
               f"-DHIPPORT_PLATFORM={tools.platform}", *tools.configure_args]
    if build_type:
        command.append(f"-DCMAKE_BUILD_TYPE={build_type}")
    if offload_archs:
        joined = ";".join(offload_archs)
        language = "HIP" if tools.platform == "amd" else "CUDA"
        command += [f"-DHIPPORT_OFFLOAD_ARCHS={joined}", f"-DCMAKE_{language}_ARCHITECTURES={joined}"]
    return command


def build_command(tools: BuildTools, build_dir: Path, jobs: int | None = None) -> list[str]:
    """``cmake --build BUILD --parallel N`` (N: ``jobs``, default one per CPU core)."""
    return [str(tools.cmake), "--build", str(build_dir), "--parallel", str(jobs or os.cpu_count() or 1)]


def _tail(text: str, lines: int = TAIL_LINES) -> str:
    kept = text.rstrip("\n").splitlines()
    return "\n".join((["..."] if len(kept) > lines else []) + kept[-lines:])


def _run_in_own_group(command: Sequence[str], timeout: float | None, **popen) -> subprocess.CompletedProcess:
    """Run ``command`` in a new process group (session), returning like :func:`subprocess.run`.

    On a timeout, or when this process is interrupted (Ctrl-C, SIGTERM raised as an exception),
    the whole group is killed -- CMake's make and compiler children, or a program's own
    children -- before the exception propagates, so nothing keeps running.

    Raises:
        subprocess.TimeoutExpired: after ``timeout`` seconds (its ``stdout`` holds the output so far).
        OSError: the command cannot start.
    """
    process = subprocess.Popen(list(command), start_new_session=True, **popen)
    try:
        output, _ = process.communicate(timeout=timeout)
    except BaseException:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        output, _ = process.communicate()
        if isinstance(sys.exc_info()[1], subprocess.TimeoutExpired):
            raise subprocess.TimeoutExpired(process.args, timeout, output=output) from None
        raise
    return subprocess.CompletedProcess(process.args, process.returncode, output)


def run_step(step: str, command: Sequence[str], log: Path, timeout: float | None = None) -> str:
    """Run one CMake step, writing its output (stdout and stderr together) to ``log``.

    Returns:
        The output.

    Raises:
        BuildFailed: the command exited non-zero, could not start, or timed out; its message
            shows the first error lines (or, without any, the output's tail).
    """
    log.parent.mkdir(parents=True, exist_ok=True)
    try:
        done = _run_in_own_group(command, timeout, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                 errors="replace")
    except subprocess.TimeoutExpired as error:
        output = error.stdout.decode(errors="replace") if isinstance(error.stdout, bytes) else (error.stdout or "")
        log.write_text(output)
        raise BuildFailed(step, command, None, _tail(output), log) from None
    except OSError as error:
        log.write_text(str(error))
        raise BuildFailed(step, command, 127, str(error), log) from None
    log.write_text(done.stdout)
    if done.returncode != 0:
        errors, count = error_lines(done.stdout) if step == "build" else ([], 0)
        raise BuildFailed(step, command, done.returncode, _tail(done.stdout), log, errors, count)
    return done.stdout


def request_codemodel(build_dir: Path) -> None:
    """Ask CMake (file API) to describe the build's targets at the next configure."""
    query = build_dir / ".cmake" / "api" / "v1" / "query" / "client-hipport"
    query.mkdir(parents=True, exist_ok=True)
    (query / "query.json").write_text(json.dumps({"requests": [{"kind": "codemodel", "version": 2}]}) + "\n")


def executables(build_dir: Path) -> list[tuple[str, Path]]:
    """The executables of the configured build, from CMake's file API reply: ``(target name,
    absolute path)`` pairs sorted by name (paths of files that may not be built yet).

    Raises:
        BuildFailed: no file API reply (the configure step did not run with
            :func:`request_codemodel`).
    """
    reply = build_dir / ".cmake" / "api" / "v1" / "reply"
    indexes = sorted(reply.glob("index-*.json")) if reply.is_dir() else []
    if not indexes:
        raise BuildFailed("configure", ["(CMake file API)"], 1, f"no reply in {reply}", reply)
    index = json.loads(indexes[-1].read_text())
    responses = index.get("reply", {}).get("client-hipport", {}).get("query.json", {}).get("responses", [])
    model_file = next((r["jsonFile"] for r in responses if r.get("kind") == "codemodel"), None)
    if model_file is None:
        raise BuildFailed("configure", ["(CMake file API)"], 1, f"no codemodel in {indexes[-1]}", indexes[-1])
    model = json.loads((reply / model_file).read_text())
    found: dict[str, Path] = {}
    build_root = Path(model["paths"]["build"])
    for configuration in model.get("configurations", []):
        for ref in configuration.get("targets", []):
            target = json.loads((reply / ref["jsonFile"]).read_text())
            if target.get("type") != "EXECUTABLE":
                continue
            for artifact in target.get("artifacts", []):
                path = Path(artifact["path"])
                found[target["name"]] = path if path.is_absolute() else build_root / path
    return sorted(found.items())


# ---------------------------------------------------------------------------- running

@dataclass(frozen=True, slots=True)
class RunResult:
    """One executable's run.

    Attributes:
        name: its CMake target name; ``path`` the file run.
        returncode: exit status; negative: killed by that signal; None: timed out or could not start.
        status: what the table shows (``0``, ``3``, ``signal SIGSEGV``, ``timeout after 60 s``,
            ``not built``, ``cannot run: ...``).
        output: the tail of its standard output and error together.
        seconds: wall time.
    """

    name: str
    path: Path
    returncode: int | None
    status: str
    output: str
    seconds: float

    @property
    def ok(self) -> bool:
        return self.returncode == 0


def run_executables(programs: Sequence[tuple[str, Path]], timeout: float = 60,
                    env: Mapping[str, str] | None = None) -> list[RunResult]:
    """Run each executable (no arguments, in its own folder) and collect its exit status.

    Args:
        programs: ``(name, path)`` pairs, as from :func:`executables`.
        timeout: seconds before a program is killed (its status is then ``timeout after N s``).
        env: the environment (default: this process's).
    """
    results = []
    for name, path in programs:
        started = time.perf_counter()
        if not path.is_file():
            results.append(RunResult(name, path, None, "not built", "", 0.0))
            continue
        try:
            done = _run_in_own_group([str(path)], timeout, cwd=path.parent, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, env=None if env is None else dict(env))
        except subprocess.TimeoutExpired as error:
            output = (error.stdout or b"").decode(errors="replace")
            results.append(RunResult(name, path, None, f"timeout after {timeout:g} s", _tail(output, 20),
                                     time.perf_counter() - started))
            continue
        except OSError as error:
            results.append(RunResult(name, path, None, f"cannot run: {error.strerror or error}", "",
                                     time.perf_counter() - started))
            continue
        code = done.returncode
        if code < 0:
            try:
                status = f"signal {signal.Signals(-code).name}"
            except ValueError:
                status = f"signal {-code}"
        else:
            status = str(code)
        results.append(RunResult(name, path, code, status, _tail(done.stdout.decode(errors="replace"), 20),
                                 time.perf_counter() - started))
    return results


def format_run_table(results: Sequence[RunResult]) -> str:
    """A plain-text table: one line per program with its exit status, then the output tails of
    the programs that failed."""
    width = max([len("program")] + [len(r.name) for r in results])
    lines = [f"{'program'.ljust(width)}  exit status", f"{'-' * width}  -----------"]
    lines += [f"{r.name.ljust(width)}  {r.status}" for r in results]
    for r in results:
        if not r.ok and r.output:
            lines += ["", f"{r.name} ({r.status}), last lines of its output:", r.output]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------- the whole build

@dataclass
class BuildResult:
    """What :func:`build_tree` did.

    Attributes:
        tools: the tools used; build_dir: the build folder.
        programs: ``(target name, path)`` of every executable target.
        runs: the runs (empty without ``run=True``).
    """

    tools: BuildTools
    build_dir: Path
    programs: list[tuple[str, Path]] = field(default_factory=list)
    runs: list[RunResult] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(path.is_file() for _, path in self.programs) and all(r.ok for r in self.runs)


def default_build_dir(out: Path, platform: str) -> Path:
    """``OUT/build-<platform>``."""
    return out / f"build-{platform}"


def build_tree(out: Path, platform: str, offload_archs: Sequence[str] | None = None, build_dir: Path | None = None,
               jobs: int | None = None, run: bool = False, run_timeout: float = 60,
               tools: BuildTools | None = None, log=lambda message: None) -> BuildResult:
    """Configure, build and (with ``run``) run the ported tree ``out``.

    Args:
        out: the ported tree (holds CMakeLists.txt).
        platform: ``amd`` or ``nvidia``.
        offload_archs: from :func:`normalize_archs`; None: the project's default.
        build_dir: default :func:`default_build_dir`.
        jobs: parallel build jobs (default: one per CPU core).
        run: run every executable after the build.
        run_timeout: seconds each program may run.
        tools: default :func:`find_tools` (platform).
        log: called with a progress line before each step.

    Returns:
        A :class:`BuildResult` (check ``ok``).

    Raises:
        NotAPort: ``out`` is not a tree hipport wrote, or has no CMakeLists.txt (:func:`check_port`;
            nothing is written).
        ToolchainIncomplete: as find_tools.
        BuildFailed: CMake's configure or build step failed.
    """
    check_port(out)
    tools = tools or find_tools(platform)
    build_dir = build_dir or default_build_dir(out, platform)
    request_codemodel(build_dir)
    archs = f" ({';'.join(offload_archs)})" if offload_archs else ""
    log(f"configuring for {platform}{archs} in {build_dir} (CMake {tools.cmake_version})")
    run_step("configure", configure_command(tools, out, build_dir, offload_archs), build_dir / "hipport-configure.log")
    log("building")
    run_step("build", build_command(tools, build_dir, jobs), build_dir / "hipport-build.log")
    result = BuildResult(tools, build_dir, executables(build_dir))
    if run:
        log(f"running {len(result.programs)} program{'s' if len(result.programs) != 1 else ''}")
        result.runs = run_executables(result.programs, run_timeout)
    return result

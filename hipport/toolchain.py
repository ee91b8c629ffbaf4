"""The local HIP/CUDA compile toolchain that ``scripts/install-toolchain.sh`` installs.

The install script writes ``toolchain.json`` (absolute paths) into the toolchain folder:
``$HIPPORT_TOOLCHAIN_DIR`` if set, else ``<repo root>/.toolchain``. This module reads it
and builds the compiler command lines that hipport uses to check ported code:

* AMD: clang++-19 compiles HIP (6.4 headers) to code objects for gfx targets, compile
  only (``-c``): there is no AMD GPU and no matching AMD runtime to link against.
* CMake: a toolchain file lets ``project(x LANGUAGES CXX HIP)`` configure and build for
  AMD with the same clang++-19 and HIP 6.4 (``cmake_configure_command``).
* NVIDIA: nvcc 12.4 compiles the same HIP source with the HIP 5.7.1 NVIDIA headers for
  sm_90 (optionally linking an executable), or the original CUDA source without them.

Typical use::

    tc = Toolchain.load()
    tc.compile_amd(Path("k.hip"), Path("k.o"), AMD_TARGETS)
    tc.code_object_targets(Path("k.o"))   # ['hipv4-amdgcn-amd-amdhsa--gfx1030', ...]
    subprocess.run(tc.cmake_configure_command(src_dir, build_dir, ["gfx90a"]), check=True)

The module-level functions of the same names load the default toolchain on each call.
Standard library only.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import tempfile
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Sequence

__all__ = [
    "AMD_TARGETS",
    "CompileError",
    "INSTALL_SCRIPT",
    "ToolError",
    "Toolchain",
    "ToolchainMissing",
    "amd_compile_command",
    "cmake_configure_command",
    "code_object_targets",
    "compile_amd",
    "compile_cuda",
    "compile_nvidia",
    "cuda_compile_command",
    "default_toolchain_dir",
    "nvidia_compile_command",
]

#: The repository root: this file lives in ``<root>/hipport/``.
REPO_ROOT = Path(__file__).resolve().parent.parent
#: The script that installs the toolchain (relative to the repository root).
INSTALL_SCRIPT = "scripts/install-toolchain.sh"
#: The AMD targets hipport checks by default.
AMD_TARGETS: tuple[str, ...] = ("gfx90a", "gfx942", "gfx1030", "gfx1100")
#: The toolchain.json layout this module understands.
SCHEMA_VERSION = 1

StrPath = str | os.PathLike[str]


class ToolchainMissing(RuntimeError):
    """The toolchain is not installed (or is incomplete): run scripts/install-toolchain.sh.

    Attributes:
        location: the toolchain folder or toolchain.json file that was looked at.
        reason: what exactly was missing or wrong.
    """

    def __init__(self, location: StrPath, reason: str) -> None:
        self.location = Path(location)
        self.reason = reason
        super().__init__(
            f"HIP/CUDA toolchain not usable at {self.location}: {reason}. "
            f"Run {INSTALL_SCRIPT} (from the repository root) to install it, "
            f"or set HIPPORT_TOOLCHAIN_DIR to an installed toolchain folder."
        )


class ToolError(RuntimeError):
    """A toolchain program exited with an error.

    Attributes:
        command: the argument list that was run.
        stderr: its standard error (text), possibly empty.
        returncode: its exit status.
    """

    def __init__(self, command: Sequence[str], stderr: str, returncode: int | None = None) -> None:
        self.command = list(command)
        self.stderr = stderr
        self.returncode = returncode
        tail = stderr.strip()
        if len(tail) > 4000:
            tail = "...\n" + tail[-4000:]
        super().__init__(
            f"command failed (exit {returncode}): {' '.join(self.command)}"
            + (f"\n{tail}" if tail else "")
        )


class CompileError(ToolError):
    """A compiler (clang++-19 or nvcc) rejected the source. Same attributes as ToolError."""


def default_toolchain_dir() -> Path:
    """Return the toolchain folder: ``$HIPPORT_TOOLCHAIN_DIR`` or ``<repo root>/.toolchain``."""
    env = os.environ.get("HIPPORT_TOOLCHAIN_DIR")
    return Path(env) if env else REPO_ROOT / ".toolchain"


def _sm_number(arch: str) -> str:
    """``"sm_90"`` -> ``"90"`` (also ``"sm_90a"`` -> ``"90a"``); ValueError otherwise."""
    m = re.fullmatch(r"sm_(\d+[a-z]?)", arch)
    if not m:
        raise ValueError(f"NVIDIA arch must look like 'sm_90', got {arch!r}")
    return m.group(1)


def _run(command: list[str], error: type[ToolError], timeout: float | None) -> subprocess.CompletedProcess:
    try:
        proc = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as exc:
        err = exc.stderr.decode(errors="replace") if isinstance(exc.stderr, bytes) else (exc.stderr or "")
        raise error(command, f"timed out after {timeout} s\n{err}", None) from exc
    if proc.returncode != 0:
        raise error(command, proc.stderr, proc.returncode)
    return proc


@dataclass(frozen=True)
class Toolchain:
    """The fields of ``toolchain.json``; every path is absolute and existed when loaded.

    Attributes:
        version: layout version of toolchain.json (1).
        clang: clang++-19 (compiles HIP for AMD).
        offload_bundler: clang-offload-bundler-19 (lists code objects in a fat binary).
        objcopy: objcopy used to extract the ``.hip_fatbin`` section.
        hip_amd_root: HIP 6.4 folder to pass as ``--hip-path``.
        hip_amd_include: its ``include`` folder (passed first with ``-isystem``).
        rocm_device_lib_path: ROCm device-library bitcode (``amdgcn/bitcode``).
        nvcc: relocatable nvcc 12.4.
        hip_nvidia_include: HIP 5.7.1 include folder with ``hip/nvidia_detail``.
        ccbin: host compiler for nvcc (g++-12).
        hip_amd_version / hip_nvidia_version / cuda_version: Debian package versions.
        cuobjdump: cuobjdump from the relocatable CUDA folder, or None if not listed.
        cmake: the cmake program, or None if not listed.
        cmake_hip_toolchain_file: CMake toolchain file for ``project(... LANGUAGES HIP)``
            targeting AMD with clang++-19 and HIP 6.4, or None if not listed. It also puts
            the math-library headers on the include path and makes ``find_package(hipblas)``
            (hiprand, rocrand, hipcub, rocprim, rocthrust, hipfft, rocfft, hipsparse,
            hipsolver, miopen) work.
        amd_library_include: include root of the HIP/ROCm math libraries from Debian sid
            (``hipblas/``, ``rocblas/``, ``hiprand/``, ``rocrand/``, ``hipfft/``, ``rocfft/``,
            ``hipsparse/``, ``rocsparse/``, ``hipsolver/``, ``rocsolver/``, ``hipcub/``,
            ``rocprim/``, ``thrust/``, ``miopen/``, ``rccl/``, ``hipblaslt/``), or None if
            not listed (toolchain installed by an older script).
        cuda_library_dir: the relocatable CUDA ``lib64`` folder (static cudart, link stubs of
            cuBLAS, cuRAND, cuFFT, cuSPARSE, cuSOLVER in ``stubs/``), or None if not listed.
            nvcc searches it already; ``libraries=`` of the NVIDIA commands names what to link.
    """

    version: int
    clang: Path
    offload_bundler: Path
    objcopy: Path
    hip_amd_root: Path
    hip_amd_include: Path
    rocm_device_lib_path: Path
    nvcc: Path
    hip_nvidia_include: Path
    ccbin: Path
    hip_amd_version: str
    hip_nvidia_version: str
    cuda_version: str
    cuobjdump: Path | None = None
    cmake: Path | None = None
    cmake_hip_toolchain_file: Path | None = None
    amd_library_include: Path | None = None
    cuda_library_dir: Path | None = None

    # ------------------------------------------------------------------ loading
    @classmethod
    def load(cls, path: StrPath | None = None) -> "Toolchain":
        """Read toolchain.json and check that every listed file exists.

        Args:
            path: the toolchain folder (holding ``toolchain.json``) or the json file itself;
                default: ``default_toolchain_dir()``.

        Returns:
            The loaded Toolchain.

        Raises:
            ToolchainMissing: the file is absent, unreadable, not valid JSON, of another
                layout version, lacks a field, or names a path that does not exist.
        """
        location = Path(path) if path is not None else default_toolchain_dir()
        json_path = location if location.suffix == ".json" else location / "toolchain.json"
        try:
            raw = json.loads(json_path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise ToolchainMissing(json_path, "toolchain.json does not exist") from None
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ToolchainMissing(json_path, f"cannot read toolchain.json ({exc})") from None
        if not isinstance(raw, dict):
            raise ToolchainMissing(json_path, "toolchain.json is not a JSON object")
        if raw.get("version") != SCHEMA_VERSION:
            raise ToolchainMissing(
                json_path, f"toolchain.json version {raw.get('version')!r}, expected {SCHEMA_VERSION}"
            )
        values: dict[str, object] = {}
        for f in fields(cls):
            if f.name not in raw or raw[f.name] is None:
                if f.default is None:  # optional field
                    values[f.name] = None
                    continue
                raise ToolchainMissing(json_path, f"toolchain.json has no {f.name!r}")
            value = raw[f.name]
            if f.name == "version":
                values[f.name] = value
            elif f.name.endswith("_version"):
                values[f.name] = str(value)
            else:
                p = Path(str(value))
                if not p.exists():
                    raise ToolchainMissing(json_path, f"{f.name} {p} does not exist")
                values[f.name] = p
        return cls(**values)  # type: ignore[arg-type]

    # ------------------------------------------------------------------ AMD
    def amd_compile_command(
        self,
        source: StrPath,
        output: StrPath,
        offload_archs: Sequence[str],
        extra_flags: Sequence[str] = (),
    ) -> list[str]:
        """Build the clang++-19 command compiling one HIP file to an object for AMD GPUs.

        ``-isystem <hip_amd_include>`` comes first so that a system-wide (older) HIP in
        /usr/include can never shadow the HIP 6.4 headers; ``-isystem <amd_library_include>``
        (when listed) follows it, so ``#include <hipblas/hipblas.h>``, ``<hipcub/hipcub.hpp>``,
        ``<thrust/sort.h>`` (rocThrust)... resolve as on a ROCm install;
        ``-DHIP_ENABLE_WARP_SYNC_BUILTINS`` declares the warp ``*_sync`` functions (64-bit
        masks) as HIP 7 does by default. Compile only: nothing is linked.

        Args:
            source: the ``.hip`` (or ``.cpp``) file; compiled as HIP whatever its name.
            output: the object file to write.
            offload_archs: gfx targets, e.g. ``AMD_TARGETS``; at least one.
            extra_flags: more arguments, placed before the source file (e.g. ``-I dir``).

        Returns:
            The argument list (first element: the clang++-19 path).

        Raises:
            ValueError: offload_archs is empty or a single string.
        """
        if isinstance(offload_archs, str) or not offload_archs:
            raise ValueError("offload_archs must be a non-empty sequence such as ['gfx90a']")
        libs = ["-isystem", str(self.amd_library_include)] if self.amd_library_include is not None else []
        return [
            str(self.clang),
            "-isystem", str(self.hip_amd_include),
            *libs,
            "-x", "hip",
            "-DHIP_ENABLE_WARP_SYNC_BUILTINS",
            *[f"--offload-arch={a}" for a in offload_archs],
            f"--hip-path={self.hip_amd_root}",
            f"--rocm-device-lib-path={self.rocm_device_lib_path}",
            "-O2",
            *extra_flags,
            "-c", str(source),
            "-o", str(output),
        ]

    def compile_amd(
        self,
        source: StrPath,
        output: StrPath,
        offload_archs: Sequence[str],
        extra_flags: Sequence[str] = (),
        timeout: float | None = 600,
    ) -> subprocess.CompletedProcess:
        """Run ``amd_compile_command`` (arguments as there).

        Args:
            timeout: seconds before the compiler is killed (None: no limit).

        Returns:
            The finished process (text stdout/stderr captured; stderr holds warnings).

        Raises:
            CompileError: clang exited non-zero or timed out.
            ValueError: as amd_compile_command.
        """
        cmd = self.amd_compile_command(source, output, offload_archs, extra_flags)
        return _run(cmd, CompileError, timeout)

    def code_object_targets(self, object_file: StrPath) -> list[str]:
        """List the device code objects bundled in a HIP object file, sorted.

        Dumps the ``.hip_fatbin`` section with objcopy (into a temporary folder; the
        object file is not modified) and lists it with ``clang-offload-bundler --list
        --type=o``. The host entry (``host-...``) is left out.

        Args:
            object_file: an object compiled by ``compile_amd``.

        Returns:
            Entry names such as ``['hipv4-amdgcn-amd-amdhsa--gfx1030', ...]``, sorted.

        Raises:
            FileNotFoundError: object_file does not exist.
            ToolError: objcopy or the bundler failed, or there is no ``.hip_fatbin`` section.
        """
        obj = Path(object_file)
        if not obj.is_file():
            raise FileNotFoundError(obj)
        with tempfile.TemporaryDirectory(prefix="hipport-fatbin-") as tmp:
            fatbin = Path(tmp) / "fatbin.bin"
            # GNU objcopy rewrites its input when given no output file: always give one.
            dump = [str(self.objcopy), f"--dump-section=.hip_fatbin={fatbin}", str(obj), str(Path(tmp) / "copy.o")]
            proc = subprocess.run(dump, capture_output=True, text=True)
            # GNU objcopy exits 0 even when the section does not exist.
            if proc.returncode != 0 or not fatbin.is_file() or fatbin.stat().st_size == 0:
                raise ToolError(dump, proc.stderr or f"no .hip_fatbin section in {obj}", proc.returncode)
            listing = [str(self.offload_bundler), "--list", "--type=o", f"--input={fatbin}"]
            out = _run(listing, ToolError, 120).stdout
        return sorted(line.strip() for line in out.splitlines() if line.strip() and not line.startswith("host-"))

    def cmake_configure_command(
        self,
        source_dir: StrPath,
        build_dir: StrPath,
        offload_archs: Sequence[str] = AMD_TARGETS,
        extra_args: Sequence[str] = (),
    ) -> list[str]:
        """Build the cmake command configuring a HIP-language project for AMD.

        The project declares ``project(NAME LANGUAGES CXX HIP)`` and lists ``.hip`` files;
        the toolchain file sets clang++-19, the HIP 6.4 root and device libraries. Build
        with ``cmake --build BUILD``; executables link (against HIP's runtime library)
        but cannot run here.

        Args:
            source_dir: folder with the CMakeLists.txt.
            build_dir: build folder (created by cmake).
            offload_archs: gfx targets for ``CMAKE_HIP_ARCHITECTURES``; at least one.
            extra_args: more cmake arguments (e.g. ``-G Ninja``), placed last.

        Returns:
            The argument list (first element: the cmake path).

        Raises:
            ToolchainMissing: toolchain.json lists no cmake or CMake toolchain file
                (installed by an older script: run it again).
            ValueError: offload_archs is empty or a single string.
        """
        if self.cmake is None or self.cmake_hip_toolchain_file is None:
            raise ToolchainMissing(default_toolchain_dir(), "toolchain.json lists no CMake HIP toolchain file")
        if isinstance(offload_archs, str) or not offload_archs:
            raise ValueError("offload_archs must be a non-empty sequence such as ['gfx90a']")
        return [
            str(self.cmake),
            "-S", str(source_dir),
            "-B", str(build_dir),
            f"-DCMAKE_TOOLCHAIN_FILE={self.cmake_hip_toolchain_file}",
            f"-DCMAKE_HIP_ARCHITECTURES={';'.join(offload_archs)}",
            *extra_args,
        ]

    # ------------------------------------------------------------------ NVIDIA
    def _nvcc_command(
        self,
        source: StrPath,
        output: StrPath,
        arch: str,
        link: bool,
        extra_flags: Sequence[str],
        hip: bool,
        libraries: Sequence[str] = (),
    ) -> list[str]:
        sm = _sm_number(arch)
        if isinstance(libraries, str):
            raise ValueError("libraries must be a sequence of names such as ['cublas', 'curand']")
        for lib in libraries:
            if not re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9_+.-]*", lib):
                raise ValueError(f"library names look like 'cublas' (no -l, no path), got {lib!r}")
        if libraries and not link:
            raise ValueError("libraries need link=True (an object file links nothing)")
        return [
            str(self.nvcc),
            "-ccbin", str(self.ccbin),
            "-x", "cu",
            *(["-I", str(self.hip_nvidia_include)] if hip else []),
            "-gencode", f"arch=compute_{sm},code=[sm_{sm},compute_{sm}]",
            "-O2",
            "-diag-suppress", "2810",
            "-Xcompiler", "-Wno-deprecated-declarations",
            *extra_flags,
            *([] if link else ["-c"]),
            str(source),
            "-o", str(output),
            *[f"-l{lib}" for lib in libraries],
        ]

    def nvidia_compile_command(
        self,
        source: StrPath,
        output: StrPath,
        arch: str = "sm_90",
        link: bool = True,
        extra_flags: Sequence[str] = (),
        *,
        libraries: Sequence[str] = (),
    ) -> list[str]:
        """Build the nvcc 12.4 command compiling a HIP file for NVIDIA (HIP_PLATFORM nvidia).

        The command is ``nvcc -ccbin g++-12 -x cu -I <hip_nvidia_include> -gencode
        arch=compute_90,code=[sm_90,compute_90] -O2 -diag-suppress 2810 -Xcompiler
        -Wno-deprecated-declarations [extra_flags] [-c] source -o output [-lNAME...]``; the
        HIP headers see ``__NVCC__`` and select the NVIDIA platform. A linked binary carries
        cudart statically and needs glibc >= 2.34 where it runs.

        Args:
            source: the ``.hip`` file (``-x cu`` makes nvcc treat it as CUDA).
            output: the executable (link=True) or object file (link=False) to write.
            arch: ``sm_NN`` (default ``sm_90``); SASS for it plus PTX for ``compute_NN``.
            link: link an executable; False adds ``-c``.
            extra_flags: more arguments, placed before the source file.
            libraries: CUDA libraries to link, by name (``["cublas", "curand"]`` gives
                ``-lcublas -lcurand`` after the source). They resolve in
                ``cuda_library_dir``: NVIDIA's link stubs for cuBLAS, cuBLASLt, cuRAND, cuFFT,
                cuSPARSE, cuSOLVER (the binary then needs the real ``libcublas.so.12``... where
                it runs), ``libcudart.so``.

        Returns:
            The argument list (first element: the relocatable nvcc path).

        Raises:
            ValueError: arch is not of the form ``sm_NN``; a library name holds anything but
                letters, digits and ``_+.-`` or starts with ``-`` (e.g. ``-lcublas``, a path); libraries with
                link=False.
        """
        return self._nvcc_command(source, output, arch, link, extra_flags, hip=True, libraries=libraries)

    def cuda_compile_command(
        self,
        source: StrPath,
        output: StrPath,
        arch: str = "sm_90",
        link: bool = True,
        extra_flags: Sequence[str] = (),
        *,
        libraries: Sequence[str] = (),
    ) -> list[str]:
        """Build the nvcc command for an original CUDA ``.cu`` file.

        Exactly ``nvidia_compile_command`` without ``-I <hip_nvidia_include>``, so an
        original build and its ported build differ only by the HIP layer. Arguments,
        return value and errors as there.
        """
        return self._nvcc_command(source, output, arch, link, extra_flags, hip=False, libraries=libraries)

    def compile_nvidia(
        self,
        source: StrPath,
        output: StrPath,
        arch: str = "sm_90",
        link: bool = True,
        extra_flags: Sequence[str] = (),
        timeout: float | None = 600,
        *,
        libraries: Sequence[str] = (),
    ) -> subprocess.CompletedProcess:
        """Run ``nvidia_compile_command`` (arguments as there).

        Args:
            timeout: seconds before nvcc is killed (None: no limit).

        Returns:
            The finished process (text stdout/stderr captured).

        Raises:
            CompileError: nvcc exited non-zero or timed out.
            ValueError: as nvidia_compile_command.
        """
        cmd = self.nvidia_compile_command(source, output, arch, link, extra_flags, libraries=libraries)
        return _run(cmd, CompileError, timeout)

    def compile_cuda(
        self,
        source: StrPath,
        output: StrPath,
        arch: str = "sm_90",
        link: bool = True,
        extra_flags: Sequence[str] = (),
        timeout: float | None = 600,
        *,
        libraries: Sequence[str] = (),
    ) -> subprocess.CompletedProcess:
        """Run ``cuda_compile_command`` (arguments, result and errors as compile_nvidia)."""
        cmd = self.cuda_compile_command(source, output, arch, link, extra_flags, libraries=libraries)
        return _run(cmd, CompileError, timeout)


# ---------------------------------------------------------------------- module-level
# Convenience wrappers: each loads the toolchain (Toolchain.load(), may raise
# ToolchainMissing) unless one is passed with toolchain=.

def _tc(toolchain: Toolchain | None) -> Toolchain:
    return toolchain if toolchain is not None else Toolchain.load()


def amd_compile_command(source: StrPath, output: StrPath, offload_archs: Sequence[str],
                        extra_flags: Sequence[str] = (), *, toolchain: Toolchain | None = None) -> list[str]:
    """See Toolchain.amd_compile_command. Raises ToolchainMissing, ValueError."""
    return _tc(toolchain).amd_compile_command(source, output, offload_archs, extra_flags)


def compile_amd(source: StrPath, output: StrPath, offload_archs: Sequence[str],
                extra_flags: Sequence[str] = (), *, timeout: float | None = 600,
                toolchain: Toolchain | None = None) -> subprocess.CompletedProcess:
    """See Toolchain.compile_amd. Raises ToolchainMissing, CompileError, ValueError."""
    return _tc(toolchain).compile_amd(source, output, offload_archs, extra_flags, timeout)


def code_object_targets(object_file: StrPath, *, toolchain: Toolchain | None = None) -> list[str]:
    """See Toolchain.code_object_targets. Raises ToolchainMissing, FileNotFoundError, ToolError."""
    return _tc(toolchain).code_object_targets(object_file)


def cmake_configure_command(source_dir: StrPath, build_dir: StrPath, offload_archs: Sequence[str] = AMD_TARGETS,
                            extra_args: Sequence[str] = (), *, toolchain: Toolchain | None = None) -> list[str]:
    """See Toolchain.cmake_configure_command. Raises ToolchainMissing, ValueError."""
    return _tc(toolchain).cmake_configure_command(source_dir, build_dir, offload_archs, extra_args)


def nvidia_compile_command(source: StrPath, output: StrPath, arch: str = "sm_90", link: bool = True,
                           extra_flags: Sequence[str] = (), *, libraries: Sequence[str] = (),
                           toolchain: Toolchain | None = None) -> list[str]:
    """See Toolchain.nvidia_compile_command. Raises ToolchainMissing, ValueError."""
    return _tc(toolchain).nvidia_compile_command(source, output, arch, link, extra_flags, libraries=libraries)


def cuda_compile_command(source: StrPath, output: StrPath, arch: str = "sm_90", link: bool = True,
                         extra_flags: Sequence[str] = (), *, libraries: Sequence[str] = (),
                         toolchain: Toolchain | None = None) -> list[str]:
    """See Toolchain.cuda_compile_command. Raises ToolchainMissing, ValueError."""
    return _tc(toolchain).cuda_compile_command(source, output, arch, link, extra_flags, libraries=libraries)


def compile_nvidia(source: StrPath, output: StrPath, arch: str = "sm_90", link: bool = True,
                   extra_flags: Sequence[str] = (), *, timeout: float | None = 600,
                   libraries: Sequence[str] = (), toolchain: Toolchain | None = None) -> subprocess.CompletedProcess:
    """See Toolchain.compile_nvidia. Raises ToolchainMissing, CompileError, ValueError."""
    return _tc(toolchain).compile_nvidia(source, output, arch, link, extra_flags, timeout, libraries=libraries)


def compile_cuda(source: StrPath, output: StrPath, arch: str = "sm_90", link: bool = True,
                 extra_flags: Sequence[str] = (), *, timeout: float | None = 600,
                 libraries: Sequence[str] = (), toolchain: Toolchain | None = None) -> subprocess.CompletedProcess:
    """See Toolchain.compile_cuda. Raises ToolchainMissing, CompileError, ValueError."""
    return _tc(toolchain).compile_cuda(source, output, arch, link, extra_flags, timeout, libraries=libraries)

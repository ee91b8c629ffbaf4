"""The wavefront emulator: build a ported HIP program for the host CPU and run it.

``hipport emulate OUT --wave 64|32 --run`` (and :func:`run`) copies the program (a hipport
output tree or one ``.hip`` file) to a build folder, rewrites kernel launches and ``__shared__``
declarations there (:mod:`hipport.emulator.transform`; the user's files are never modified),
compiles every translation unit with a host compiler (g++-12 or clang++-19 preferred) against the
header-only HIP layer in ``hipport/emulator/include`` and runs the executable. The width is a
compile-time choice (``warpSize`` is a constant expression, as in HIP 6.4): 64 as on CDNA (gfx9),
32 as on RDNA (gfx10/gfx11). See docs/emulator.md for what it supports.

Python API (what the tests and warp fixtures use)::

    from hipport import emulator
    code, stdout = emulator.run("out/vector_add.hip", wave=64)
    result = emulator.execute("out/", wave=32, args=["--small"])   # RunResult with stderr, timings

Errors: :class:`EmulatorError` (unsupported API named with file:line, compiler failure with the
compiler's message, no compiler, bad path).
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from .transform import HEADER_SUFFIXES, INCLUDE_DIR, SOURCE_SUFFIXES, Refusal, rewrite

__all__ = ["EmulatorError", "RunResult", "build", "execute", "run", "WAVES"]

WAVES = (64, 32)
COMPILERS = ("g++-12", "clang++-19", "g++", "clang++")
SKIPPED_DIRS = frozenset({"cmake", "CMakeFiles", "build", ".git", "__pycache__"})


class EmulatorError(Exception):
    """The emulator cannot build or run the program; the message says why (file:line where known)."""


@dataclass(frozen=True)
class RunResult:
    """One emulated run: exit status, output, and the build/run wall-clock times in seconds."""

    returncode: int
    stdout: str
    stderr: str
    build_seconds: float
    run_seconds: float
    executable: Path


def find_compiler(preferred: str | None = None) -> str:
    """The host C++ compiler: ``preferred``, else ``$HIPPORT_EMULATOR_CXX``, else the first of
    g++-12, clang++-19, g++, clang++ on PATH. Raises EmulatorError when none is found."""
    for name in (preferred, os.environ.get("HIPPORT_EMULATOR_CXX"), *COMPILERS):
        if name and shutil.which(name):
            return shutil.which(name)
    raise EmulatorError("no host C++ compiler found (tried " + ", ".join(COMPILERS) + "; set HIPPORT_EMULATOR_CXX)")


#: Files of an emulator build folder (:func:`build`): the marker, written before anything else
#: there, and the stamp of a finished build; a folder holding one is a build, never the program's.
BUILD_MARKER, BUILD_STAMP = ".hipport-emulator-build", "built.sha256"


def _program_files(root: Path, build_dir: Path | None = None) -> list[Path]:
    """Sources and headers under ``root`` (relative paths), build and CMake folders left out, and
    so are ``build_dir`` and any other emulator build folder placed inside the program (one holding
    :data:`BUILD_MARKER` or :data:`BUILD_STAMP`: its ``src/`` is a rewritten copy of a program)."""
    found = []
    skip = build_dir.resolve() if build_dir is not None else None
    for dirpath, dirnames, filenames in os.walk(root):
        in_build = BUILD_STAMP in filenames or BUILD_MARKER in filenames
        if dirpath != str(root) and (in_build or (skip is not None and Path(dirpath).resolve() == skip)):
            dirnames[:] = []
            continue
        dirnames[:] = sorted(d for d in dirnames if d not in SKIPPED_DIRS and not d.startswith((".", "build")))
        for name in sorted(filenames):
            if name.endswith(SOURCE_SUFFIXES + HEADER_SUFFIXES):
                found.append(Path(dirpath, name).relative_to(root))
    return found


def _summarise(refusals: list[Refusal]) -> list[str]:
    """One line per refused API (its first place, and how many more), in file order."""
    first: dict[str, Refusal] = {}
    more: dict[str, int] = {}
    for refusal in sorted(set(refusals), key=lambda r: (r.path, r.line, r.message)):
        key = refusal.message
        if key in first:
            more[key] = more.get(key, 0) + 1
        else:
            first[key] = refusal
    return [str(r) + (f" (and {more[k]} more)" if more.get(k) else "") for k, r in first.items()]


_INCLUDE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*[<"]([^>"\n]+)[>"]', re.MULTILINE)


def _cuda_include(root: Path, files: dict[Path, bytes]) -> str | None:
    """``"path:line: includes <cuda_runtime.h>, a CUDA header"`` for the first file that includes
    a CUDA header hipport maps to a HIP one (rules/*.yaml ``headers``), which no ``convert``
    output includes (a ``--compat`` tree is told apart by its ``hipport_compat.h``); None when
    none does. A header of that name in the program's own tree is the program's, not CUDA's."""
    from ..rules import default_rules

    mapped = default_rules().headers
    own = {rel.as_posix() for rel in files} | {rel.name for rel in files}
    for rel in sorted(files):
        for match in _INCLUDE.finditer(files[rel]):
            name = match.group(1).decode("utf-8", "replace").strip()
            if name in mapped and name not in own:
                line = files[rel].count(b"\n", 0, match.start()) + 1
                return f"{root / rel}:{line}: includes <{name}>, a CUDA header"
    return None


_HIP_INCLUDE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*[<"]hip/', re.MULTILINE)
_DEVICE_CODE = re.compile(rb"(?<![A-Za-z0-9_])__global__(?![A-Za-z0-9_])")
_MAIN = re.compile(rb"^[ \t]*(?:int|auto|signed|signed int)[ \t]+main[ \t]*\(", re.MULTILINE)


def _unported_unit(root: Path, files: dict[Path, bytes], units: list[Path]) -> str | None:
    """``"path: has __global__ code and no HIP include"`` for the first translation unit with
    device code that includes no HIP header, directly or through a header of the program (every
    unit ``hipport convert`` writes includes ``hip/hip_runtime.h``; nvcc compiles CUDA without
    any include); None when there is none."""
    with_hip = {rel for rel, data in files.items() if _HIP_INCLUDE.search(data)}
    names = {rel.name for rel in with_hip} | {rel.as_posix() for rel in with_hip}
    for rel in sorted(units):
        data = files.get(rel, b"")
        if rel in with_hip or not _DEVICE_CODE.search(data):
            continue
        included = {m.group(1).decode("utf-8", "replace").strip() for m in _INCLUDE.finditer(data)}
        if any(name in names or name.rsplit("/", 1)[-1] in names for name in included):
            continue
        return f"{root / rel}: has __global__ code and includes no HIP header"
    return None


def _default_cache() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "hipport" / "emulator"


def build(path: str | os.PathLike, wave: int = 64, *, build_dir: str | os.PathLike | None = None,
          compiler: str | None = None, include_dirs: Sequence[str] = (), defines: Sequence[str] = (),
          std: str = "c++17", jobs: int = 2, cache: bool = True) -> tuple[Path, float]:
    """Build ``path`` for the emulator at wavefront width ``wave``.

    Args:
        path: a hipport output tree (every ``.hip``/``.cu``/``.cpp``/``.cc``/``.cxx``/``.c`` file is a
            translation unit; ``cmake/`` and ``build*/`` folders are left out) or one source file.
        wave: 64 (CDNA, gfx9) or 32 (RDNA).
        build_dir: where the rewritten copy, objects and executable go; default: a folder in
            ``$XDG_CACHE_HOME/hipport/emulator`` named by a hash of everything that goes into the
            build (so an unchanged program is not rebuilt when ``cache`` is true). A given folder
            must be new, empty or an earlier emulator build (its ``src/`` is replaced).
        compiler: the host compiler (see :func:`find_compiler`).
        include_dirs: extra include folders, relative to the program's root (its root and every
            folder named ``include`` are always searched).
        defines: extra ``NAME`` or ``NAME=VALUE`` macro definitions.
        std: the C++ standard (``-std=``).
        jobs: compiler processes at a time.
        cache: reuse an executable built from the same inputs.

    Returns:
        The executable's path and the build's wall-clock seconds (0 when it came from the cache).

    Raises:
        EmulatorError: bad ``wave`` or path, a ``build_dir`` holding other files, CUDA sources
            (a CUDA header included), an API the emulator does not support (every one
            listed, with file:line), or a compiler error (its output).
    """
    if wave not in WAVES:
        raise EmulatorError(f"--wave must be 64 or 32, not {wave}")
    source = Path(path)
    if not source.exists():
        raise EmulatorError(f"{source}: no such file or folder")
    build_path = Path(build_dir) if build_dir else None
    root, files = (source.parent, [Path(source.name)]) if source.is_file() else (source, _program_files(source, build_path))
    if source.is_file() and not source.name.endswith(SOURCE_SUFFIXES):
        raise EmulatorError(f"{source}: not a source file ({', '.join(SOURCE_SUFFIXES)})")
    units = [f for f in files if f.name.endswith(SOURCE_SUFFIXES)]
    if not units:
        raise EmulatorError(f"{source}: no translation unit ({', '.join(SOURCE_SUFFIXES)}) found")
    if source.is_file():  # headers next to a single file may be included by it
        files = [Path(source.name)] + [f for f in _program_files(root, build_path) if f.name.endswith(HEADER_SUFFIXES)]

    started = time.perf_counter()
    rewritten: dict[Path, bytes] = {}
    refusals: list[Refusal] = []
    defined: set[str] = set()
    for rel in files:
        try:
            data = (root / rel).read_bytes()
        except OSError as error:
            raise EmulatorError(f"{root / rel}: {error.strerror}") from None
        rewritten[rel], found, names = rewrite(rel.as_posix(), data)
        refusals.extend(found)
        defined |= names
    from ..compat import COMPAT_HEADER
    if not (source.is_dir() and Path(COMPAT_HEADER) in rewritten):
        cuda = _cuda_include(root, rewritten) or _unported_unit(root, rewritten, units)
        if cuda is not None:
            raise EmulatorError(f"{cuda}: this is CUDA source, not a hipport port; convert it first "
                                f"(hipport convert {source} -o OUT, or with --compat), then run hipport emulate OUT")
    mains = [rel for rel in sorted(units) if _MAIN.search(rewritten.get(rel, b""))]
    if len(mains) > 1:
        folders = sorted({(root / rel.parent).as_posix() for rel in mains})
        hint = f"; emulate one program's folder (hipport emulate {folders[0]})" if len(folders) > 1 else ""
        raise EmulatorError(f"{source}: {len(mains)} translation units define main ("
                            f"{', '.join(rel.as_posix() for rel in mains[:4])}{', ...' if len(mains) > 4 else ''}), "
                            f"so this is more than one program{hint}")
    refusals = [r for r in refusals if not (r.name and r.name in defined)]
    if refusals:
        raise EmulatorError("the hipport emulator cannot build this program:\n  " + "\n  ".join(_summarise(refusals)))

    cxx = find_compiler(compiler)
    flags = [f"-std={std}", "-O2", "-pthread", "-fno-strict-aliasing", f"-DHIPEMU_WAVE={wave}",
             f"-D__AMDGCN_WAVEFRONT_SIZE={wave}", "-D__HIP_PLATFORM_AMD__=1", "-DHIP_ENABLE_WARP_SYNC_BUILTINS",
             "-DHIPPORT_EMULATOR=1"] + [f"-D{d}" for d in defines]
    includes = ["-I", str(INCLUDE_DIR)]
    key = hashlib.sha256()
    # the program's folder too: __FILE__ and the messages name it (-fmacro-prefix-map below), so a
    # copy of the same program elsewhere is another build
    for part in (cxx, *flags, *include_dirs, str(root.resolve())):
        key.update(part.encode() + b"\0")
    for header in sorted(INCLUDE_DIR.rglob("*.h")):
        key.update(header.read_bytes())
    for rel in sorted(rewritten):
        key.update(rel.as_posix().encode() + b"\0" + rewritten[rel] + b"\0")
    work = Path(build_dir).resolve() if build_dir else _default_cache() / f"{source.name}-w{wave}-{key.hexdigest()[:16]}"
    if build_dir and work.is_dir() and any(work.iterdir()) and not (work / BUILD_MARKER).exists() \
            and not (work / BUILD_STAMP).exists():
        # the build replaces work/src, obj and program: never in a folder of the user's files
        raise EmulatorError(f"--build-dir {build_dir}: the folder holds files and is not an emulator build "
                            "folder; give a new or empty folder (the build writes src/, obj/ and program there)")
    exe = work / "program"
    stamp = work / BUILD_STAMP
    if cache and exe.exists() and stamp.exists() and stamp.read_text() == key.hexdigest():
        return exe, 0.0

    work.mkdir(parents=True, exist_ok=True)
    (work / BUILD_MARKER).write_text("a hipport emulator build folder (hipport emulate); safe to delete\n")
    tree = work / "src"
    if tree.exists():
        shutil.rmtree(tree)
    for rel, data in rewritten.items():
        (tree / rel).parent.mkdir(parents=True, exist_ok=True)
        (tree / rel).write_bytes(data)
    dirs = [tree] + sorted({tree.joinpath(*rel.parent.parts[:i + 1]) for rel in rewritten
                            for i, part in enumerate(rel.parent.parts) if part == "include"})
    dirs += [tree / d for d in include_dirs]
    # __FILE__ and the emulator's messages name the user's files, not the rewritten copies.
    prefix_map = [f"-fmacro-prefix-map={tree}={root.resolve()}"]
    for d in dirs:
        includes += ["-I", str(d)]
    # a `convert --compat` tree: its CUDA sources compile as its AMD build compiles them, with the
    # CUDA-named shim headers first on the include path and hipport_compat.h forced into every
    # GPU unit (cmake/HipportPlatform.cmake of compat mode; hipport/compat.py)
    from ..compat import COMPAT_HEADER, SHIM_DIR

    forced: list[str] = []
    if source.is_dir() and Path(COMPAT_HEADER) in rewritten:
        includes[2:2] = ["-I", str(tree / SHIM_DIR)]
        forced = ["-include", str(tree / COMPAT_HEADER)]

    def compile_unit(rel: Path):
        obj = work / "obj" / (rel.as_posix().replace("/", "__") + ".o")
        obj.parent.mkdir(parents=True, exist_ok=True)
        language = "c" if rel.suffix == ".c" else "c++"
        gpu_unit = forced if rel.suffix in (".cu", ".hip") else []
        command = [cxx, "-x", language, *([] if language == "c" else flags), *prefix_map, *includes, *gpu_unit,
                   "-c", str(tree / rel),
                   "-o", str(obj)]
        if language == "c":
            command[3:3] = ["-O2"]
        done = subprocess.run(command, capture_output=True, text=True)
        return obj, done, rel

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        results = list(pool.map(compile_unit, units))
    failed = [(rel, done) for _obj, done, rel in results if done.returncode != 0]
    if failed:
        message = "\n".join(f"{rel}:\n{done.stderr.strip()}" for rel, done in failed)
        raise EmulatorError(f"the host compiler ({Path(cxx).name}) failed:\n{message}")
    link = subprocess.run([cxx, "-pthread", *[str(obj) for obj, _d, _r in results], "-o", str(exe)],
                          capture_output=True, text=True)
    if link.returncode != 0:
        raise EmulatorError(f"linking failed:\n{link.stderr.strip()}")
    stamp.write_text(key.hexdigest())
    return exe, time.perf_counter() - started


def execute(path: str | os.PathLike, wave: int = 64, args: Sequence[str] = (), *, timeout: float = 600.0,
            **build_options) -> RunResult:
    """Build ``path`` (see :func:`build`, whose keyword options it takes) and run it with ``args``.

    Raises:
        EmulatorError: the build failed, or the run took longer than ``timeout`` seconds.
    """
    exe, build_seconds = build(path, wave, **build_options)
    started = time.perf_counter()
    try:
        done = subprocess.run([str(exe), *args], capture_output=True, text=True, timeout=timeout,
                              errors="replace")
    except subprocess.TimeoutExpired:
        raise EmulatorError(f"the program ran longer than {timeout:g} s in the emulator") from None
    return RunResult(done.returncode, done.stdout, done.stderr, build_seconds, time.perf_counter() - started, exe)


def run(path: str | os.PathLike, wave: int = 64, args: Sequence[str] = (), **options) -> tuple[int, str]:
    """Build and run ``path`` at width ``wave``; return ``(exit status, stdout)``.

    A run the emulator stops (a wavefront operation it cannot order, a HIP trap such as a
    ``*_sync`` mask naming lanes that do not call it) exits with status 134 and a message on
    stderr starting ``hipport emulator:``; :func:`execute` returns stderr too.
    """
    result = execute(path, wave, args, **options)
    return result.returncode, result.stdout

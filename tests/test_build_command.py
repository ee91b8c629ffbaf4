"""``hipport build``: the ported corpus configures, builds and links for AMD gfx90a and NVIDIA
sm_90 through the platform module; --run prints exit statuses; a missing toolchain piece is
named with what to install.

The builds need the toolchain from scripts/install-toolchain.sh (the ``toolchain`` fixture);
nothing GPU-side can run here (no GPU), so --run is tested with a CPU-only project that the
platform module still builds with nvcc.
"""

from __future__ import annotations

import dataclasses
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from hipport import build as build_module
from hipport.build import Missing, ToolchainIncomplete, find_tools, format_run_table, normalize_archs, RunResult
from hipport.cli import main
from hipport.cmake import PLATFORM_MODULE, render_platform_module
from hipport.toolchain import Toolchain

from helpers import CORPUS, CORPUS_PROJECTS


def _convert(src: Path, out: Path, *extra: str) -> None:
    result = CliRunner().invoke(main, ["convert", str(src), "-o", str(out), "-q", *extra])
    assert result.exit_code == 0, result.output


def _build(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["build", *args])
    return result.exit_code, result.stdout, result.stderr


def _one_line(text: str) -> str:
    """CMake wraps long messages: compare them with runs of whitespace made single spaces."""
    return re.sub(r"\s+", " ", text)


@pytest.fixture(scope="module")
def ported(tmp_path_factory):
    """corpus/vector_add and corpus/multi_file, each converted with the default options."""
    root = tmp_path_factory.mktemp("ported")
    for name in ("vector_add", "multi_file"):
        _convert(CORPUS / name, root / name)
    return root


# ---------------------------------------------------------------------------- real builds

@pytest.mark.parametrize("name, target", [("vector_add", "vector_add"), ("multi_file", "main")])
def test_amd_build_links_with_exactly_the_requested_code_object(toolchain, ported, name, target):
    out = ported / name
    code, stdout, stderr = _build(str(out), "--platform", "amd", "--offload-arch", "gfx90a", "-j", "2")
    assert code == 0, stdout + stderr
    build = out / "build-amd"
    assert stdout == f"built 1 executable in {build}:\n  {build / target}\n"
    assert stderr.splitlines()[0] == (f"hipport build: configuring for amd (gfx90a) in {build} "
                                      f"(CMake {'.'.join(map(str, build_module.cmake_version(toolchain.cmake)))})")
    assert toolchain.code_object_targets(build / target) == ["hipv4-amdgcn-amd-amdhsa--gfx90a"]


def test_amd_build_keeps_the_convert_time_architectures(toolchain, tmp_path):
    out = tmp_path / "va"
    _convert(CORPUS / "vector_add", out, "--offload-arch", "gfx942,gfx1100")
    code, stdout, stderr = _build(str(out), "--build-dir", str(tmp_path / "b"))
    assert code == 0, stdout + stderr
    assert stdout == f"built 1 executable in {tmp_path / 'b'}:\n  {tmp_path / 'b' / 'vector_add'}\n"
    assert toolchain.code_object_targets(tmp_path / "b" / "vector_add") == [
        "hipv4-amdgcn-amd-amdhsa--gfx1100", "hipv4-amdgcn-amd-amdhsa--gfx942"]


@pytest.mark.parametrize("name, target", [("vector_add", "vector_add"), ("multi_file", "main")])
def test_nvidia_build_links_sm90(toolchain, ported, name, target):
    out = ported / name
    code, stdout, stderr = _build(str(out), "--platform", "nvidia", "--offload-arch", "sm_90", "-j", "2")
    assert code == 0, stdout + stderr
    build = out / "build-nvidia"
    assert stdout == f"built 1 executable in {build}:\n  {build / target}\n"
    listing = subprocess.run([str(toolchain.cuobjdump), "--list-elf", str(build / target)],
                             capture_output=True, text=True, check=True).stdout
    assert listing.splitlines() == [f"ELF file    1: {target}.1.sm_90.cubin"]


RUN_PROJECT = {
    "CMakeLists.txt": """cmake_minimum_required(VERSION 3.21)
project(cpu_only LANGUAGES CXX)
include(${CMAKE_CURRENT_SOURCE_DIR}/cmake/HipportPlatform.cmake)
hipport_enable_gpu_language()
add_executable(ok ok.hip)
hipport_gpu_target(ok)
target_link_libraries(ok PRIVATE hip::host)
add_executable(three three.cpp)
add_executable(crash crash.cpp)
add_executable(sleeper sleeper.cpp)
""",
    # HIP host code only (no kernel launch, no device needed): compiled by nvcc as CUDA
    "ok.hip": """#include <hip/hip_runtime.h>
#include <cstdio>
int main() {
  dim3 grid(2, 3);
  hipError_t none = hipSuccess;
  std::printf("%u blocks\\n", grid.x * grid.y);
  return none == hipSuccess && grid.x * grid.y == 6 ? 0 : 1;
}
""",
    "three.cpp": '#include <cstdio>\nint main() { std::puts("three says goodbye"); return 3; }\n',
    "crash.cpp": '#include <cstdio>\n#include <cstdlib>\nint main() { std::puts("aborting"); std::fflush(stdout); std::abort(); }\n',
    "sleeper.cpp": "#include <chrono>\n#include <thread>\n"
                   "int main() { std::this_thread::sleep_for(std::chrono::seconds(30)); return 0; }\n",
}


def test_run_prints_the_exit_status_of_every_program(toolchain, tmp_path):
    out = tmp_path / "cpu_only"
    for name, text in RUN_PROJECT.items():
        (out / name).parent.mkdir(parents=True, exist_ok=True)
        (out / name).write_text(text)
    (out / PLATFORM_MODULE).parent.mkdir()
    (out / PLATFORM_MODULE).write_text(render_platform_module(["gfx90a"]))
    code, stdout, stderr = _build(str(out), "--platform", "nvidia", "--run", "--timeout", "1", "-j", "2")
    build = out / "build-nvidia"
    assert code == 1, stdout + stderr
    assert stdout == f"""built 4 executables in {build}:
  {build / 'crash'}
  {build / 'ok'}
  {build / 'sleeper'}
  {build / 'three'}
program  exit status
-------  -----------
crash    signal SIGABRT
ok       0
sleeper  timeout after 1 s
three    3

crash (signal SIGABRT), last lines of its output:
aborting

three (3), last lines of its output:
three says goodbye
"""
    assert stderr.splitlines()[-1] == "hipport build: running 4 programs"


@pytest.fixture(scope="module")
def ported_blas(tmp_path_factory):
    """A cuBLAS + cuRAND program: its port includes hipBLAS and hipRAND, and the generated build
    links their targets."""
    root = tmp_path_factory.mktemp("blas")
    (root / "src").mkdir()
    (root / "src" / "gemm.cu").write_text(
        "#include <cublas_v2.h>\n#include <curand.h>\n"
        "int main() {\n  cublasHandle_t h;\n  if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) return 1;\n"
        "  cublasDestroy(h);\n  curandGenerator_t g;\n"
        "  return curandCreateGenerator(&g, CURAND_RNG_PSEUDO_DEFAULT) == CURAND_STATUS_SUCCESS ? 0 : 2;\n}\n")
    _convert(root / "src", root / "out")
    assert (root / "out" / "gemm.hip").read_text().startswith(
        "#include <hip/hip_runtime.h>\n#include <hipblas/hipblas.h>\n#include <hiprand/hiprand.h>\n")
    assert (root / "out" / "CMakeLists.txt").read_text().endswith(
        'add_executable(gemm "gemm.hip")\nhipport_link_libraries(gemm PRIVATE roc::hipblas hip::hiprand)\n')
    return root / "out"


def test_amd_build_links_the_library_targets(toolchain, ported_blas):
    code, stdout, stderr = _build(str(ported_blas), "--offload-arch", "gfx90a")
    assert code == 0, stdout + stderr
    needed = subprocess.run(["readelf", "-d", str(ported_blas / "build-amd" / "gemm")], capture_output=True,
                            text=True, check=True).stdout
    assert re.findall(r"\(NEEDED\)\s+Shared library: \[(.*)\]", needed) == [
        "libhipblas.so.2", "libhiprand.so.1", "librocrand.so.1", "libamdhip64.so.6", "libstdc++.so.6", "libm.so.6",
        "libgcc_s.so.1", "libc.so.6"]


def test_nvidia_configure_stops_for_a_library_without_nvidia_backend(toolchain, ported_blas):
    out = ported_blas
    code, stdout, stderr = _build(str(out), "--platform", "nvidia")
    assert code == 1 and stdout == ""
    assert stderr.startswith(f"hipport build: configuring for nvidia in {out / 'build-nvidia'} ")
    assert f"\nError: CMake configure failed (exit 1): {toolchain.cmake} -S {out} -B {out / 'build-nvidia'} " in stderr
    assert ("CMake Error at cmake/HipportPlatform.cmake:") in stderr
    assert ("hipport: hipBLAS (roc::hipblas) cannot be built for NVIDIA here: hipBLAS for NVIDIA "
            "(HIP_PLATFORM=nvidia, over cuBLAS) is not packaged by Debian. Build hipBLAS from source for NVIDIA "
            "and pass -Dhipblas_DIR=<folder of its hipblas-config.cmake>") in _one_line(stderr)
    assert stderr.endswith(f"(whole output: {out / 'build-nvidia' / 'hipport-configure.log'})\n")


def test_build_errors_show_the_first_compiler_errors_then_the_log(toolchain, tmp_path):
    """Twelve errors, then a screenful of warnings: the message holds the first ten distinct error lines with their file:line, not
    the tail of the output (the warnings), then the log's path."""
    out = tmp_path / "broken"
    _convert(CORPUS / "vector_add", out)
    errors = "".join(f"int e{n} = undeclared_{n};\n" for n in range(12))
    warnings = "".join(f'#warning "left to do: step {n}"\n' for n in range(30))
    (out / "vector_add.hip").write_text(errors + warnings + "int main() { return 0; }\n")
    code, stdout, stderr = _build(str(out), "--offload-arch", "gfx90a", "-j", "1")
    build = out / "build-amd"
    assert (code, stdout) == (1, "")
    assert stderr.splitlines()[1:] == [
        "hipport build: building",
        f"Error: CMake build failed (exit 2): {toolchain.cmake} --build {build} --parallel 1",
        "the first 10 of 12 error lines:",
        *(f"  {out / 'vector_add.hip'}:{1 + n}:10: error: use of undeclared identifier 'undeclared_{n}'"
          for n in range(10)),
        f"(whole output: {build / 'hipport-build.log'})"]
    log = (build / "hipport-build.log").read_text()
    # the output ends with warnings, which the old tail showed instead of the errors
    assert log.rindex('42:2: warning: "left to do: step 29" [-W#warnings]') > log.rindex("error: use of undeclared")


def test_error_lines_of_clang_nvcc_and_the_linker():
    output = "\n".join([
        "a.hip:3:5: warning: unused variable 'x' [-Wunused-variable]",
        "a.hip:4:1: error: unknown type name 'foo'",
        "a.hip:4:1: error: unknown type name 'foo'",  # again, for the next offload architecture
        "b.cu(12): error: identifier \"hipThing\" is undefined",
        "inc/c.h:7:10: fatal error: 'missing.h' file not found",
        "ld.lld: error: undefined symbol: f()",
    ])
    assert build_module.error_lines(output) == ([
        "a.hip:4:1: error: unknown type name 'foo'", 'b.cu(12): error: identifier "hipThing" is undefined',
        "inc/c.h:7:10: fatal error: 'missing.h' file not found"], 3)
    # no compiler error: the linker's
    assert build_module.error_lines("x.o: in function main\nld.lld: error: undefined symbol: f()\n"
                                    "clang++-19: error: linker command failed\n", limit=1) == (
        ["ld.lld: error: undefined symbol: f()"], 2)


def test_a_cuda_tree_is_refused_and_nothing_is_written(tmp_path):
    """A CUDA source tree (here with a CMake build of its own) is no port: exit 2 before the
    toolchain is looked at, and the tree is left as it was."""
    src = tmp_path / "cuda_src"
    shutil.copytree(CORPUS_PROJECTS / "warp_shuffle_scan", src)
    before = sorted(p.relative_to(src) for p in src.rglob("*"))
    code, stdout, stderr = _build(str(src), "--platform", "amd")
    assert (code, stdout) == (2, "")
    assert stderr == (f"Error: {src} is not a tree that `hipport convert` wrote (it has neither hipport-report.json "
                      f"nor cmake/HipportPlatform.cmake): port it first with `hipport convert {src} -o OUT`, then "
                      f"run `hipport build OUT`. Nothing was written to {src}\n")
    assert sorted(p.relative_to(src) for p in src.rglob("*")) == before
    with pytest.raises(build_module.NotAPort):
        build_module.build_tree(src, "amd")
    assert sorted(p.relative_to(src) for p in src.rglob("*")) == before


# ---------------------------------------------------------------------------- missing pieces

def _script(path: Path, body: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(0o755)
    return path


@pytest.fixture
def fake_toolchain(tmp_path, monkeypatch):
    """A toolchain.json whose every path exists but whose tools are wrong: clang without the
    AMDGPU target, CMake 3.16, nvcc that fails, empty header and device-library folders."""
    folder = tmp_path / "tc"
    bin_dir = folder / "bin"
    values = {"version": 1}
    for f in dataclasses.fields(Toolchain):
        if f.name == "version" or f.default is not dataclasses.MISSING:
            continue
        if f.name.endswith("_version"):
            values[f.name] = "0"
        elif f.name in ("hip_amd_root", "hip_amd_include", "rocm_device_lib_path", "hip_nvidia_include"):
            (folder / f.name).mkdir(parents=True)
            values[f.name] = str(folder / f.name)
        else:
            values[f.name] = str(_script(bin_dir / f.name, "exit 1"))
    values["clang"] = str(_script(bin_dir / "clang++-19", 'echo "  Registered Targets:"; echo "    x86-64 - 64-bit X86"'))
    values["cmake"] = str(_script(bin_dir / "cmake", 'echo "cmake version 3.16.3"'))
    (folder / "toolchain.json").write_text(json.dumps(values))
    monkeypatch.setenv("HIPPORT_TOOLCHAIN_DIR", str(folder))
    return folder


def test_fake_toolchain_amd_names_every_missing_piece(fake_toolchain, tmp_path):
    out = tmp_path / "out"
    _convert(CORPUS / "vector_add", out)
    code, stdout, stderr = _build(str(out))
    tc = fake_toolchain
    script = "or run scripts/install-toolchain.sh (hipport's toolchain from Debian's archive)"
    assert (code, stdout) == (2, "")
    assert stderr == f"""Error: the AMD build toolchain is incomplete (looked in hipport's toolchain ({tc / 'toolchain.json'})):
  - CMake 3.21 or newer (the HIP language): {tc / 'bin' / 'cmake'} is 3.16.3.
    Install CMake 3.21 or newer: apt-get install cmake (Debian 12 has 3.25), or pip install cmake.
  - clang++ with HIP support: {tc / 'bin' / 'clang++-19'} has no amdgcn (AMD GPU) target.
    Install clang-19 (apt-get install clang-19 lld-19 clang-tools-19), {script}.
  - AMD device libraries (ocml.bc...): none in {tc / 'rocm_device_lib_path'}.
    Install rocm-device-libs-17 (Debian 13), {script}.
  - HIP headers for AMD: no hip/hip_runtime.h in {tc / 'hip_amd_include'}.
    Install libamdhip64-dev 6.4 (Debian sid), {script}.
  - the CMake HIP toolchain file: toolchain.json lists none.
    Install it with a current scripts/install-toolchain.sh (run it again).
"""
    assert not (out / "build-amd").exists()


def test_fake_toolchain_nvidia_names_every_missing_piece(fake_toolchain, tmp_path):
    out = tmp_path / "out"
    _convert(CORPUS / "vector_add", out)
    code, stdout, stderr = _build(str(out), "--platform", "nvidia")
    tc = fake_toolchain
    script = "or run scripts/install-toolchain.sh (hipport's toolchain from Debian's archive)"
    assert stderr == f"""Error: the NVIDIA build toolchain is incomplete (looked in hipport's toolchain ({tc / 'toolchain.json'})):
  - CMake 3.21 or newer (the HIP language): {tc / 'bin' / 'cmake'} is 3.16.3.
    Install CMake 3.21 or newer: apt-get install cmake (Debian 12 has 3.25), or pip install cmake.
  - nvcc (CUDA 12): {tc / 'bin' / 'nvcc'} does not run.
    Install nvidia-cuda-toolkit 12.4 (Debian 13 non-free), {script}.
  - HIP's NVIDIA headers: no hip/nvidia_detail/nvidia_hip_runtime.h in {tc / 'hip_nvidia_include'}.
    Install libamdhip64-dev 5.7 (Debian 13: it ships hip/nvidia_detail), {script}.
"""
    assert (code, stdout) == (2, "")


def test_toolchain_json_naming_a_missing_file(fake_toolchain, tmp_path):
    data = json.loads((fake_toolchain / "toolchain.json").read_text())
    data["nvcc"] = str(tmp_path / "gone" / "nvcc")
    (fake_toolchain / "toolchain.json").write_text(json.dumps(data))
    with pytest.raises(ToolchainIncomplete) as caught:
        find_tools("nvidia")
    assert caught.value.missing == [Missing(
        "hipport's toolchain", f"nvcc {tmp_path / 'gone' / 'nvcc'} does not exist",
        "it again: run scripts/install-toolchain.sh (it re-installs missing parts)")]


@pytest.fixture
def bare_system(tmp_path, monkeypatch):
    """No toolchain.json, a PATH holding only a CMake 3.25, no ROCm, CUDA or HIP anywhere."""
    empty = tmp_path / "nothing"
    empty.mkdir()
    _script(tmp_path / "path" / "cmake", 'echo "cmake version 3.25.1"')
    monkeypatch.setenv("HIPPORT_TOOLCHAIN_DIR", str(empty))
    monkeypatch.setenv("PATH", str(tmp_path / "path"))
    for name in ("ROCM_PATH", "CUDA_PATH", "HIP_PATH", "HIP_PLATFORM"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(build_module, "STANDARD_ROCM_ROOTS", (empty / "rocm",))
    monkeypatch.setattr(build_module, "STANDARD_CUDA_ROOTS", (empty / "cuda",))
    monkeypatch.setattr(build_module, "STANDARD_INCLUDE_DIRS", (empty / "include",))
    return empty


def test_bare_system_amd_message(bare_system, tmp_path):
    with pytest.raises(ToolchainIncomplete) as caught:
        find_tools("amd")
    no_rocm = f"no ROCm installation found ($ROCM_PATH, hipconfig --rocmpath, {bare_system / 'rocm'})"
    rocm = ("ROCm's HIP SDK (rocm-hip-sdk, https://rocm.docs.amd.com) and set ROCM_PATH if it is not /opt/rocm, "
            "or run scripts/install-toolchain.sh (hipport's toolchain from Debian's archive)")
    assert [(m.piece, m.found, m.install) for m in caught.value.missing] == [
        ("clang++ with HIP support", f"{no_rocm}, and no amdclang++ or clang++(-17...21) on PATH",
         "ROCm's llvm (rocm-llvm), or clang 17 or newer with the AMDGPU target, "
         "or run scripts/install-toolchain.sh (hipport's toolchain from Debian's archive)"),
        ("HIP headers for AMD", no_rocm, rocm),
        ("HIP's CMake language support", no_rocm, rocm),
        ("AMD device libraries (ocml.bc...)", no_rocm,
         "ROCm's rocm-device-libs, or run scripts/install-toolchain.sh (hipport's toolchain from Debian's archive)"),
    ]
    assert str(caught.value).startswith(
        "the AMD build toolchain is incomplete (looked in PATH and the standard ROCm/CUDA folders (no hipport "
        f"toolchain.json at {bare_system / 'toolchain.json'})):\n  - clang++ with HIP support: ")


def test_bare_system_nvidia_message_and_exit_status(bare_system, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "CMakeLists.txt").write_text("project(x)\n")
    (out / "hipport-report.json").write_text("{}\n")  # a port
    code, stdout, stderr = _build(str(out), "--platform", "nvidia")
    assert (code, stdout) == (2, "")
    assert stderr.splitlines()[1:] == [
        f"  - nvcc (CUDA 12): none in $CUDA_PATH/bin, on PATH, or in {bare_system / 'cuda' / 'bin'}.",
        "    Install a CUDA 12 toolkit (NVIDIA's cuda-toolkit-12, or Debian 13 non-free nvidia-cuda-toolkit), "
        "or run scripts/install-toolchain.sh (hipport's toolchain from Debian's archive).",
        f"  - HIP's NVIDIA headers: no hip/nvidia_detail/nvidia_hip_runtime.h in {bare_system / 'include'}.",
        "    Install a HIP that ships them (Debian 13 libamdhip64-dev 5.7, or ROCm's hip-dev), and set HIP_PATH to it, "
        "or run scripts/install-toolchain.sh (hipport's toolchain from Debian's archive).",
    ]


def test_bare_system_without_cmake(bare_system, tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(bare_system))
    with pytest.raises(ToolchainIncomplete) as caught:
        find_tools("nvidia")
    assert caught.value.missing[0] == Missing(
        "CMake 3.21 or newer", "no cmake on PATH",
        "CMake 3.21 or newer: apt-get install cmake (Debian 12 has 3.25), or pip install cmake")


# ---------------------------------------------------------------------------- usage and pieces

def test_usage_errors(tmp_path):
    code, _, stderr = _build(str(tmp_path), "--platform", "nvidia", "--offload-arch", "gfx90a")
    assert (code, stderr) == (2, "Error: --offload-arch: 'gfx90a' is not an NVIDIA architecture such as 90 or sm_90\n")
    code, _, stderr = _build(str(tmp_path), "--offload-arch", "sm_90")
    assert (code, stderr) == (2, "Error: --offload-arch: 'sm_90' is not an offload architecture name such as gfx90a "
                                 "or gfx1100\n")
    code, _, stderr = _build(str(tmp_path))
    assert (code, stderr) == (2, f"Error: {tmp_path} is not a tree that `hipport convert` wrote (it has neither "
                                 f"hipport-report.json nor cmake/HipportPlatform.cmake): port it first with `hipport "
                                 f"convert {tmp_path} -o OUT`, then run `hipport build OUT`. Nothing was written to "
                                 f"{tmp_path}\n")
    (tmp_path / "hipport-report.json").write_text("{}\n")
    code, _, stderr = _build(str(tmp_path))
    assert (code, stderr) == (2, f"Error: {tmp_path / 'CMakeLists.txt'} does not exist: `hipport convert` writes "
                                 "one where the CUDA tree had a CMake build or none (a Makefile-only port builds "
                                 "with make)\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["hipport-report.json"]


def test_platform_defaults_to_hip_platform(tmp_path, monkeypatch):
    monkeypatch.setenv("HIP_PLATFORM", "nvidia")
    code, _, stderr = _build(str(tmp_path), "--offload-arch", "gfx90a")
    assert stderr.startswith("Error: --offload-arch: 'gfx90a' is not an NVIDIA architecture")


@pytest.mark.parametrize("platform, value, expected", [
    ("nvidia", "sm_90,80", ["90", "80"]),
    ("nvidia", "90a;sm_100-real", ["90a", "100-real"]),
    ("amd", "gfx90a, gfx942:xnack+", ["gfx90a", "gfx942:xnack+"]),
])
def test_normalize_archs(platform, value, expected):
    assert normalize_archs(platform, value) == expected


def test_run_table_format():
    results = [RunResult("a", Path("/a"), 0, "0", "fine", 0.1),
               RunResult("long_name", Path("/l"), None, "not built", "", 0.0)]
    assert format_run_table(results) == (
        "program    exit status\n"
        "---------  -----------\n"
        "a          0\n"
        "long_name  not built\n")


def test_a_timed_out_program_is_killed_with_its_children(tmp_path):
    # --run's timeout stops the whole process group, not only the program (a child it started
    # in the background would otherwise keep running).
    import subprocess
    import time
    from hipport.build import run_executables

    marker = f"{time.time():.6f}"
    program = tmp_path / "spawner"
    program.write_text(f"#!/bin/sh\nsleep 37.{marker.replace('.', '')} &\nwhile :; do :; done\n")
    program.chmod(0o755)
    [result] = run_executables([("spawner", program)], timeout=1)
    assert result.status == "timeout after 1 s"
    time.sleep(0.5)
    left = subprocess.run(["pgrep", "-f", f"sleep 37.{marker.replace('.', '')}"], capture_output=True, text=True)
    assert left.stdout == ""


def test_target_libs_from_pyproject(tmp_path):
    from click.testing import CliRunner
    from hipport.cli import main

    (tmp_path / "pyproject.toml").write_text('[tool.hipport]\ntarget-libs = "roc"\n')
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "b.cu").write_text("#include <cublas_v2.h>\nvoid f(cublasHandle_t *h) { cublasCreate(h); }\n")
    result = CliRunner().invoke(main, ["convert", str(tmp_path / "src"), "-o", str(tmp_path / "out"), "-q"])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "out" / "b.hip").read_text().splitlines()[1:] == [
        "#include <rocblas/rocblas.h>", "void f(rocblas_handle *h) { rocblas_create_handle(h); }"]
    (tmp_path / "pyproject.toml").write_text('[tool.hipport]\ntarget-libs = "rocm"\n')
    bad = CliRunner().invoke(main, ["convert", str(tmp_path / "src"), "-o", str(tmp_path / "out2"), "-q"])
    assert bad.exit_code == 2
    assert "target-libs must be one of hip, roc" in bad.output


# ---------------------------------------------------------------------------- issue 10, point 9: builds by default

#: A program whose main unit includes another .cu file (compiled twice, its host function would
#: be defined twice) and sums with Thrust (the CUDA toolkit's Thrust on NVIDIA).
THRUST_TREE = {
    "main.cu": '#include <cstdio>\n#include <thrust/device_vector.h>\n#include <thrust/reduce.h>\n'
               '#include "scale.cu"\n\nint main() {\n  thrust::device_vector<float> v(256, 1.0f);\n'
               '  scale<<<2, 128>>>(thrust::raw_pointer_cast(v.data()), 3.0f);\n'
               '  float total = thrust::reduce(v.begin(), v.end());\n'
               '  std::printf("%g\\n", total);\n  return total == host_scale(256.0f, 3.0f) ? 0 : 1;\n}\n',
    "scale.cu": "#pragma once\n__global__ void scale(float *x, float a) {\n"
                "  x[blockIdx.x * blockDim.x + threadIdx.x] *= a;\n}\n\n"
                "float host_scale(float v, float a) { return v * a; }\n",
}


@pytest.fixture(scope="module")
def ported_thrust(tmp_path_factory):
    root = tmp_path_factory.mktemp("thrust")
    for rel, text in THRUST_TREE.items():
        (root / "src" / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / "src" / rel).write_text(text)
    _convert(root / "src", root / "out")
    assert (root / "out" / "CMakeLists.txt").read_text().endswith(
        'hipport_gpu_sources(\n  "main.hip"\n)\n\nadd_executable(main "main.hip")\n'
        'hipport_link_libraries(main PRIVATE roc::rocthrust)\n')
    return root / "out"


def test_port_with_an_included_cu_builds_for_amd(toolchain, tmp_path):
    """tests/test_cmake.py's tree whose main.cu includes kernel.cu (which defines a host
    function): kernel.hip is compiled only as part of main.hip, so the link finds each symbol
    once. (rocThrust on AMD is not new: the Thrust tree is built for NVIDIA only, to keep the
    tests' time down.)"""
    from test_cmake import INCLUDED_CU

    for rel, text in INCLUDED_CU.items():
        (tmp_path / "src" / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "src" / rel).write_text(text)
    out = tmp_path / "out"
    _convert(tmp_path / "src", out)
    code, stdout, stderr = _build(str(out), "--offload-arch", "gfx90a,gfx1100", "-j", "2")
    assert code == 0, stdout + stderr
    build = out / "build-amd"
    assert stdout == f"built 1 executable in {build}:\n  {build / 'main'}\n"
    assert toolchain.code_object_targets(build / "main") == [
        "hipv4-amdgcn-amd-amdhsa--gfx1100", "hipv4-amdgcn-amd-amdhsa--gfx90a"]


def test_thrust_port_builds_for_nvidia_against_the_cuda_toolkits_thrust(toolchain, ported_thrust):
    """No rocThrust on NVIDIA: roc::rocthrust is an empty target there, and nvcc compiles the
    port with the CUDA toolkit's Thrust (its include-thrust folder, from nvcc.profile)."""
    code, stdout, stderr = _build(str(ported_thrust), "--platform", "nvidia", "--offload-arch", "90", "-j", "2")
    assert code == 0, stdout + stderr
    build = ported_thrust / "build-nvidia"
    assert stdout == f"built 1 executable in {build}:\n  {build / 'main'}\n"
    listing = subprocess.run([str(toolchain.cuobjdump), "--list-elf", str(build / "main")],
                             capture_output=True, text=True, check=True).stdout
    assert listing.splitlines() == ["ELF file    1: main.1.sm_90.cubin"]
    assert "rocthrust" not in (build / "CMakeCache.txt").read_text().lower()


def test_platform_module_gives_roc_rocthrust_the_cuda_toolkits_thrust_on_nvidia():
    module = render_platform_module(["gfx90a"])
    assert '''  elseif(lib_target STREQUAL "roc::rocthrust")
    set(name "rocThrust")
    set(package "rocthrust")
    set(install "librocthrust-dev (Debian/Ubuntu) or ROCm's rocthrust-dev")
''' in module
    thrust = module[module.index('(lib_target STREQUAL "roc::rocthrust")'):]
    assert thrust[:thrust.index("elseif")].endswith("    set(toolkit TRUE)\n  ")
    assert module.count("    set(toolkit TRUE)\n") == 1


@pytest.fixture(scope="module")
def ported_makefile_tree(tmp_path_factory):
    """tests/test_cmake.py's Makefile program (saxpy, -g -G -std=c++14), converted."""
    from test_cmake import MAKEFILE_TREE

    root = tmp_path_factory.mktemp("make_tree")
    (root / "src").mkdir()
    for rel, text in MAKEFILE_TREE.items():
        (root / "src" / rel).write_text(text)
    _convert(root / "src", root / "out")
    return root / "out"


@pytest.mark.parametrize("platform, arch", [("amd", "gfx90a,gfx1100"), ("nvidia", "90")])
def test_makefile_tree_builds_with_its_program_name_standard_and_debug_flags(toolchain, ported_makefile_tree,
                                                                           platform, arch, monkeypatch):
    """The program is `saxpy` as in the Makefile; every unit compiles with -std=c++14 and one
    -g (clang: host and device debug information), plus -G for nvcc; the program prints 1
    where __cplusplus is C++14's (it is run on NVIDIA hosts only, not here)."""
    from compile_commands import compile_commands

    monkeypatch.setenv("CMAKE_EXPORT_COMPILE_COMMANDS", "ON")
    out = ported_makefile_tree
    code, stdout, stderr = _build(str(out), "--platform", platform, "--offload-arch", arch, "-j", "2")
    assert code == 0, stdout + stderr
    build = out / f"build-{platform}"
    assert stdout == f"built 1 executable in {build}:\n  {build / 'saxpy'}\n"
    commands = compile_commands(build, out)
    assert sorted(commands) == ["main.cu", "saxpy_kernel.cu"]
    for unit, (_, options) in commands.items():
        assert options.count("-g") == 1, (unit, options)
        assert options.count("-std=c++14") == 1, (unit, options)
        assert options.count("-G") == (1 if platform == "nvidia" else 0), (unit, options)
    if platform == "amd":
        assert toolchain.code_object_targets(build / "saxpy") == [
            "hipv4-amdgcn-amd-amdhsa--gfx1100", "hipv4-amdgcn-amd-amdhsa--gfx90a"]

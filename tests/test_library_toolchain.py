"""The toolchain compiles against the HIP/ROCm math libraries (AMD) and links cuBLAS/cuRAND (NVIDIA).

AMD: hand-written HIP programs (tests/fixtures/amd_libs/) that include and call hipBLAS,
rocBLAS, hipRAND, rocRAND, hipFFT, hipSPARSE, rocSPARSE, hipSOLVER, rocSOLVER, hipCUB,
rocThrust and MIOpen compile for gfx90a and gfx1100 against Debian sid's -dev packages
(``amd_library_include``), and a CMake HIP project finds the ROCm CMake packages that can
be found with the installed runtime libraries. NVIDIA: an original CUDA program calling
cuBLAS and cuRAND links for sm_90 with nvcc 12.4, directly and through CMake's
FindCUDAToolkit (``CUDA::cublas``, ``CUDA::curand``).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from helpers import FIXTURES

AMD_LIB_PROGRAMS = sorted((FIXTURES / "amd_libs").glob("*.hip"))
CUBLAS_CURAND = FIXTURES / "cuda_libs" / "cublas_curand.cu"
TWO_TARGETS = ["gfx90a", "gfx1100"]
TWO_ENTRIES = ["hipv4-amdgcn-amd-amdhsa--gfx1100", "hipv4-amdgcn-amd-amdhsa--gfx90a"]

#: ROCm CMake packages that find_package() finds with the installed runtime libraries.
FOUND_PACKAGES = ["hip", "hipblas", "hiprand", "rocrand", "hipcub", "rocprim", "rocthrust",
                  "hipfft", "rocfft", "hipsparse", "hipsolver", "miopen"]


def test_every_library_has_a_program():
    assert [p.stem for p in AMD_LIB_PROGRAMS] == [
        "hipblas", "hipcub", "hipfft", "hiprand", "hipsolver", "hipsparse",
        "miopen", "rocblas", "rocrand", "rocsolver", "rocsparse", "rocthrust"]


def test_amd_command_puts_the_library_headers_after_hip(toolchain, amd_library_include):
    include = amd_library_include
    cmd = toolchain.amd_compile_command(Path("a.hip"), Path("a.o"), ["gfx90a"])
    assert cmd[:5] == [str(toolchain.clang), "-isystem", str(toolchain.hip_amd_include),
                       "-isystem", str(include)]
    for header in ("hipblas/hipblas.h", "rocblas/rocblas.h", "hiprand/hiprand.h", "rocrand/rocrand.h",
                   "hipfft/hipfft.h", "hipsparse/hipsparse.h", "rocsparse/rocsparse.h",
                   "hipsolver/hipsolver.h", "rocsolver/rocsolver.h", "hipcub/hipcub.hpp",
                   "rocprim/rocprim.hpp", "thrust/device_vector.h", "miopen/miopen.h",
                   "rccl/rccl.h", "hipblaslt/hipblaslt.h"):
        assert (include / header).is_file(), header
    # The library prefix never carries its own HIP headers (they would shadow HIP 6.4's).
    assert not (include / "hip").exists()


@pytest.mark.parametrize("program", AMD_LIB_PROGRAMS, ids=lambda p: p.stem)
def test_library_program_compiles_for_gfx90a_and_gfx1100(toolchain, amd_library_include, program, tmp_path):
    obj = tmp_path / f"{program.stem}.o"
    toolchain.compile_amd(program, obj, TWO_TARGETS)
    assert toolchain.code_object_targets(obj) == TWO_ENTRIES


def test_cmake_finds_the_rocm_library_packages_and_links(toolchain, tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    shutil.copy(FIXTURES / "amd_libs" / "hipblas.hip", src / "gemm.hip")
    (src / "main.hip").write_text(
        "#include <hip/hip_runtime.h>\n"
        "int gemm(const float*, const float*, float*, int, hipStream_t);\n"
        "int main() { return gemm(nullptr, nullptr, nullptr, 0, nullptr); }\n")
    finds = "".join(f"find_package({p} CONFIG REQUIRED)\n" for p in FOUND_PACKAGES)
    (src / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.21)\n"
        "project(libs LANGUAGES CXX HIP)\n"
        + finds +
        "add_executable(gemm main.hip gemm.hip)\n"
        "target_link_libraries(gemm PRIVATE roc::hipblas hip::hiprand roc::rocthrust hip::hipcub)\n")
    build = tmp_path / "build"
    configure = toolchain.cmake_configure_command(src, build, ["gfx90a"])
    for cmd in (configure, [str(toolchain.cmake), "--build", str(build)]):
        proc = subprocess.run(cmd, capture_output=True, text=True)
        assert proc.returncode == 0, f"{' '.join(cmd)}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    assert (build / "gemm").is_file()
    assert toolchain.code_object_targets(build / "CMakeFiles" / "gemm.dir" / "gemm.hip.o") == [
        "hipv4-amdgcn-amd-amdhsa--gfx90a"]


def test_cmake_rocblas_package_lacks_its_library(toolchain, tmp_path):
    """rocBLAS's runtime library (1 GB) is not installed: its CMake package says so."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.21)\nproject(r LANGUAGES CXX HIP)\nfind_package(rocblas CONFIG REQUIRED)\n")
    proc = subprocess.run(toolchain.cmake_configure_command(src, tmp_path / "build", ["gfx90a"]),
                          capture_output=True, text=True)
    assert proc.returncode == 1
    assert 'The imported target "roc::rocblas" references the file' in proc.stderr


def _needed(binary: Path) -> list[str]:
    """The DT_NEEDED entries of an ELF file, in order (readelf from binutils, which g++-12 needs)."""
    readelf = shutil.which("readelf")
    assert readelf, "readelf (binutils) not found"
    out = subprocess.run([readelf, "-d", str(binary)], capture_output=True, text=True, check=True).stdout
    return [line.split("[", 1)[1].rstrip("]") for line in out.splitlines() if "(NEEDED)" in line]


def test_original_cuda_program_links_cublas_and_curand_for_sm90(toolchain, tmp_path):
    assert toolchain.cuda_library_dir is not None, (
        "toolchain.json lists no cuda_library_dir: run scripts/install-toolchain.sh again")
    binary = tmp_path / "cublas_curand"
    cmd = toolchain.cuda_compile_command(CUBLAS_CURAND, binary, libraries=["cublas", "curand"])
    assert cmd[-4:] == ["-o", str(binary), "-lcublas", "-lcurand"]
    toolchain.compile_cuda(CUBLAS_CURAND, binary, libraries=["cublas", "curand"])
    assert _needed(binary) == ["libcublas.so.12", "libcurand.so.10", "libc.so.6", "ld-linux-x86-64.so.2"]
    listing = subprocess.run([str(toolchain.cuobjdump), "--list-elf", str(binary)],
                             capture_output=True, text=True, check=True).stdout
    assert [line.split()[-1] for line in listing.splitlines()] == [
        "cublas_curand.1.sm_90.cubin", "cublas_curand.2.sm_90.cubin"]


def test_cmake_cuda_language_finds_cublas_and_curand(toolchain, tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    shutil.copy(CUBLAS_CURAND, src / "cublas_curand.cu")
    (src / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.21)\n"
        "project(orig LANGUAGES CXX CUDA)\n"
        "find_package(CUDAToolkit REQUIRED)\n"
        "add_executable(cublas_curand cublas_curand.cu)\n"
        "set_target_properties(cublas_curand PROPERTIES CUDA_ARCHITECTURES 90)\n"
        "target_link_libraries(cublas_curand PRIVATE CUDA::cublas CUDA::curand)\n")
    build = tmp_path / "build"
    configure = [str(toolchain.cmake), "-S", str(src), "-B", str(build),
                 f"-DCMAKE_CUDA_COMPILER={toolchain.nvcc}", f"-DCMAKE_CUDA_HOST_COMPILER={toolchain.ccbin}"]
    for cmd in (configure, [str(toolchain.cmake), "--build", str(build)]):
        proc = subprocess.run(cmd, capture_output=True, text=True)
        assert proc.returncode == 0, f"{' '.join(cmd)}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    cache = (build / "CMakeCache.txt").read_text()
    stubs = toolchain.cuda_library_dir / "stubs"
    assert f"CUDA_cublas_LIBRARY:FILEPATH={stubs / 'libcublas.so'}" in cache
    assert f"CUDA_curand_LIBRARY:FILEPATH={stubs / 'libcurand.so'}" in cache
    assert _needed(build / "cublas_curand")[:2] == ["libcublas.so.12", "libcurand.so.10"]


@pytest.mark.parametrize("libraries, link", [("cublas", True), (["-lcublas"], True), (["x/y"], True),
                                             (["cublas"], False)])
def test_nvcc_library_names_are_checked(toolchain, libraries, link):
    with pytest.raises(ValueError):
        toolchain.cuda_compile_command("k.cu", "k", link=link, libraries=libraries)

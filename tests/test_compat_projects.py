"""``hipport convert --compat`` of the ten corpus projects (corpus/projects/, each with its own
build): the CMake build is migrated as by ``convert`` but keeps the ``.cu`` names, and its
platform module (compat mode) builds the same unchanged sources three ways: CMake's HIP language
for AMD with ``hipport_compat.h`` forced in and ``hipport_compat/`` on the include path (gfx90a
and gfx1100 code objects checked), plain CUDA for sm_90 (``-DHIPPORT_COMPAT_CUDA=ON``: no HIP
include folder, define or forced include in any compile command) and HIP on NVIDIA
(``-DHIPPORT_PLATFORM=nvidia``). A Makefile (makefile_saxpy) stays as written; the generated
CMakeLists.txt builds it.

A kernel passed where HIP's C function takes ``const void*`` (cudaFuncGetAttributes in
cooperative_reduce, legacy_findcuda and stream_pipeline) is cast by a forwarding function of
hipport_compat.h, and the 2-argument ``cudaEventCreate`` (stream_pipeline) is an overload that
calls hipEventCreateWithFlags. A project that needs a source edit no name mapping can express
is not built for AMD: its test asserts the exact findings that say so (warp_shuffle_scan:
HP1102/HP1112 for 32-bit warp masks). With ``--compat --fix``, warp_shuffle_scan's sources get
the edits of ``convert --fix`` that stay CUDA (its units run as 32-lane logical warps, HP1116:
helpers that are CUDA's own intrinsics under nvcc) and build all three ways too. Every build is Release, as the projects' own builds
(scripts/corpus_projects.py); at -O0, clang 19 stops on stream_pipeline's __syncthreads_count
for gfx1100 ("wavefront shifts are not supported on GFX10+", a backend limit). On NVIDIA the
sources keep their CUDA library names, so blas_rand links cuBLAS and cuRAND in its plain CUDA and
its HIP-on-NVIDIA builds alike (no NVIDIA build of hipBLAS or hipRAND, which the toolchain lacks).
"""

from __future__ import annotations

import json
import re
import subprocess

import pytest

from hipport import warp32
from hipport.compat import compat_tree
from hipport.convert import ConvertOptions

from helpers import CORPUS_PROJECTS

NAMES = ["blas_rand", "constant_filter", "cooperative_reduce", "legacy_findcuda", "makefile_saxpy",
         "rdc_device_functions", "stream_pipeline", "template_library", "texture_sampling",
         "warp_shuffle_scan"]
#: The errors of the projects whose sources need an edit for HIP on AMD (path:line:column rule name).
NEEDS_EDITS = {
    "warp_shuffle_scan": [
        "include/scan/warp_primitives.cuh:12:24 HP1102 kFullMask",
        "include/scan/warp_primitives.cuh:30:39 HP1102 __shfl_up_sync",
        "include/scan/warp_primitives.cuh:43:35 HP1102 __shfl_down_sync",
        "include/scan/warp_primitives.cuh:45:24 HP1102 __shfl_sync",
        "include/scan/warp_primitives.cuh:53:44 HP1102 __shfl_xor_sync",
        "include/scan/warp_primitives.cuh:61:33 HP1102 __ballot_sync",
        "include/scan/warp_primitives.cuh:62:33 HP1112 1u",
        "include/scan/warp_primitives.cuh:64:12 HP1112 __popc",
        "src/compact.cu:23:37 HP1102 __ballot_sync",
        "src/compact.cu:24:18 HP1112 __popc",
        "src/histogram.cu:44:39 HP1102 __ballot_sync",
        "src/histogram.cu:46:25 HP1112 __popc"],
}
AMD_BUILDS = [n for n in NAMES if n not in NEEDS_EDITS]
AMD_CODE_OBJECTS = ["hipv4-amdgcn-amd-amdhsa--gfx1100", "hipv4-amdgcn-amd-amdhsa--gfx90a"]

EXPECTED_CONSTANT_FILTER_CMAKE = """\
# constant_filter: a separable Gaussian blur whose coefficients and image
# geometry live in __constant__ memory, uploaded with cudaMemcpyToSymbol.
cmake_minimum_required(VERSION 3.18)
project(constant_filter LANGUAGES CXX)
include(${CMAKE_CURRENT_SOURCE_DIR}/cmake/HipportPlatform.cmake)
hipport_enable_gpu_language()

if(NOT CMAKE_HIP_ARCHITECTURES)
  set(CMAKE_HIP_ARCHITECTURES "${HIPPORT_OFFLOAD_ARCHS}")
endif()
set(CMAKE_${HIPPORT_GPU_LANGUAGE}_STANDARD 14)
set(CMAKE_CXX_STANDARD 14)

# Host-only helpers (no CUDA in them): a static C++ library.
add_library(filter_host STATIC src/gaussian_weights.cpp src/image_io.cpp)
target_include_directories(filter_host PUBLIC include)

# The device part: kernels and the constant-memory upload.
add_library(filter_device STATIC src/convolution.cu)
hipport_gpu_target(filter_device)
target_include_directories(filter_device PUBLIC include)
target_compile_options(filter_device PRIVATE
  $<$<COMPILE_LANGUAGE:CUDA>:--use_fast_math -Xptxas=-O3>
  $<$<COMPILE_LANGUAGE:HIP>:-ffast-math>
)

add_executable(constant_filter app/main.cu)
hipport_gpu_target(constant_filter)
target_link_libraries(constant_filter PRIVATE filter_device filter_host)
"""


@pytest.fixture(scope="module")
def compat_projects(tmp_path_factory):
    """Every project converted once with --compat for gfx90a and gfx1100: ``{name: OUT}``."""
    root = tmp_path_factory.mktemp("compat-projects")
    for name in NAMES:
        compat_tree(CORPUS_PROJECTS / name, root / name, ConvertOptions(offload_archs=("gfx90a", "gfx1100")))
    return {name: root / name for name in NAMES}


def _error_lines(out) -> list[str]:
    report = json.loads((out / "hipport-report.json").read_text())
    return [f"{f['path']}:{f['line']}:{f['column']} {f['rule_id']} {f['name']}"
            for f in report["findings"] if f["severity"] == "error"]


def _build(toolchain, out, build, *args):
    for command in ([toolchain.cmake, "-S", out, "-B", build, "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON",
                     "-DCMAKE_BUILD_TYPE=Release", *args],
                    [toolchain.cmake, "--build", build, "--parallel", "2"]):
        done = subprocess.run([str(c) for c in command], capture_output=True, text=True)
        assert done.returncode == 0, f"{command}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"


def _nvidia_args(toolchain):
    return [f"-DCMAKE_CUDA_COMPILER={toolchain.nvcc}", f"-DCMAKE_CUDA_HOST_COMPILER={toolchain.ccbin}",
            "-DHIPPORT_OFFLOAD_ARCHS=90"]


def test_sources_are_kept_and_the_cmake_build_is_migrated_keeping_cu_names(compat_projects):
    for name in NAMES:
        project, out = CORPUS_PROJECTS / name, compat_projects[name]
        for source in project.rglob("*"):
            rel = source.relative_to(project)
            if source.is_file() and rel.as_posix() != "CMakeLists.txt":
                assert (out / rel).read_bytes() == source.read_bytes(), rel
        assert not list(out.rglob("*.hip"))
    assert (compat_projects["constant_filter"] / "CMakeLists.txt").read_text() == EXPECTED_CONSTANT_FILTER_CMAKE
    module = (compat_projects["constant_filter"] / "cmake" / "HipportPlatform.cmake").read_text()
    assert 'option(HIPPORT_COMPAT_CUDA "Build the CUDA sources as plain CUDA with nvcc (no HIP)" OFF)' in module
    assert ('    add_compile_options("$<$<COMPILE_LANGUAGE:${HIPPORT_GPU_LANGUAGE}>:SHELL:-include '
            '${_HIPPORT_ROOT}/hipport_compat.h>")\n    if(HIPPORT_PLATFORM STREQUAL "amd")\n'
            '      include_directories(BEFORE "${_HIPPORT_ROOT}/hipport_compat")\n') in module
    # the Makefile stays the plain CUDA build; a CMakeLists.txt is generated next to it
    assert (compat_projects["makefile_saxpy"] / "Makefile").read_bytes() == \
        (CORPUS_PROJECTS / "makefile_saxpy" / "Makefile").read_bytes()
    assert "option(HIPPORT_COMPAT_CUDA" in (compat_projects["makefile_saxpy"] / "CMakeLists.txt").read_text()


@pytest.mark.parametrize("name", sorted(NEEDS_EDITS))
def test_projects_needing_source_edits_report_them(compat_projects, name):
    assert _error_lines(compat_projects[name]) == NEEDS_EDITS[name]


def test_a_kernel_argument_is_cast_by_a_forwarding_function(compat_projects):
    """cudaFuncGetAttributes(&attr, grid_sum_kernel) stays as written: hipport_compat.h maps it
    to hipport_cudaFuncGetAttributes, which casts the kernel to const void* for HIP."""
    header = (compat_projects["cooperative_reduce"] / "hipport_compat.h").read_text().splitlines()
    start = header.index("#include <type_traits>")
    is_kernel = "std::is_function<typename std::remove_pointer<typename std::decay<T>::type>::type>::value"
    assert header[start:start + 7] == [
        "#include <type_traits>",
        "// a kernel passed where HIP's C function takes const void* (CUDA's C++ API takes the kernel itself)",
        f"template <typename T> inline typename std::enable_if<{is_kernel}, const void*>::type",
        "hipport_compat_arg(T&& kernel) { return reinterpret_cast<const void*>(kernel); }",
        f"template <typename T> inline typename std::enable_if<!{is_kernel}, T&&>::type",
        "hipport_compat_arg(T&& value) { return static_cast<T&&>(value); }",
        "template <typename... A> inline hipError_t hipport_cudaFuncGetAttributes(A&&... args) "
        "{ return hipFuncGetAttributes(hipport_compat_arg(static_cast<A&&>(args))...); }",
    ]
    assert ("#define cudaFuncGetAttributes hipport_cudaFuncGetAttributes  // cuda_runtime; CUDA (not recorded), "
            "HIP 1.9.0") in header


def test_a_call_hip_names_otherwise_by_argument_count_gets_overloads(compat_projects):
    """cudaEventCreate(&e, flags) stays as written: the 2-argument overload calls
    hipEventCreateWithFlags (rules/calls.yaml), the variadic one hipEventCreate."""
    header = (compat_projects["stream_pipeline"] / "hipport_compat.h").read_text().splitlines()
    assert [line for line in header if "hipport_cudaEventCreate" in line] == [
        "template <typename... A> inline hipError_t hipport_cudaEventCreate(A&&... args) "
        "{ return hipEventCreate(static_cast<A&&>(args)...); }",
        "template <typename A0, typename A1> inline hipError_t hipport_cudaEventCreate(A0&& a0, A1&& a1) "
        "{ return hipEventCreateWithFlags(static_cast<A0&&>(a0), static_cast<A1&&>(a1)); }",
        "#define cudaEventCreate hipport_cudaEventCreate  // cuda_runtime; CUDA (not recorded), HIP 1.6.0",
    ]


def _check_amd_build(toolchain, out, name, build):
    """Build the compat tree ``out`` for AMD: the compat header forced into every .cu unit,
    gfx90a and gfx1100 code objects in the executable ``name``."""
    _build(toolchain, out, build, f"-DCMAKE_TOOLCHAIN_FILE={toolchain.cmake_hip_toolchain_file}")
    commands = json.loads((build / "compile_commands.json").read_text())
    gpu = [c["command"] for c in commands if c["file"].endswith(".cu")]
    assert gpu and all(f"-include {out}/hipport_compat.h" in c for c in gpu)
    assert toolchain.code_object_targets(build / name) == AMD_CODE_OBJECTS


def _check_plain_cuda_build(toolchain, out, name, build):
    """-DHIPPORT_COMPAT_CUDA=ON: no HIP include folder, HIP define or forced include anywhere;
    sm_90 code in the executable ``name``."""
    _build(toolchain, out, build, "-DHIPPORT_COMPAT_CUDA=ON", *_nvidia_args(toolchain))
    commands = [c["command"] for c in json.loads((build / "compile_commands.json").read_text())]
    assert any("compute_90" in c for c in commands)
    # CMake puts include folders into response files and flags.make: read them all
    flag_files = [p.read_text() for p in (build / "CMakeFiles").rglob("*") if p.name == "flags.make" or p.suffix == ".rsp"]
    assert flag_files
    for text in commands + flag_files:
        assert "hipport_compat" not in text and "__HIP" not in text
        assert str(toolchain.hip_nvidia_include) not in text and "/include/hip" not in text
    done = subprocess.run([str(toolchain.cuobjdump), "--list-elf", str(build / name)], capture_output=True, text=True)
    assert done.returncode == 0 and "sm_90" in done.stdout, done.stderr


def _check_hip_nvidia_build(toolchain, out, name, build):
    """-DHIPPORT_PLATFORM=nvidia: every .cu unit compiled with HIP's NVIDIA platform and the
    forced compat header; the executable ``name`` is built."""
    _build(toolchain, out, build, "-DHIPPORT_PLATFORM=nvidia",
           f"-DHIPPORT_HIP_NVIDIA_INCLUDE={toolchain.hip_nvidia_include}", *_nvidia_args(toolchain))
    commands = [c["command"] for c in json.loads((build / "compile_commands.json").read_text())
                if c["file"].endswith(".cu")]
    assert commands and all("__HIP_PLATFORM_NVIDIA__" in c and "hipport_compat.h" in c for c in commands)
    assert (build / name).is_file()
    return build


def test_blas_rand_on_nvidia_links_cublas_and_curand_in_both_builds(toolchain, compat_projects, tmp_path):
    """The HIP library targets of blas_rand's migrated build (roc::hipblas, hip::hiprand) stand
    for CUDA::cublas and CUDA::curand on NVIDIA, with HIP's NVIDIA headers as in plain CUDA: the
    executable needs libcublas and libcurand and no HIP library."""
    builds = {"hip-nvidia": _check_hip_nvidia_build(toolchain, compat_projects["blas_rand"], "blas_rand",
                                                    tmp_path / "hip-nvidia")}
    _check_plain_cuda_build(toolchain, compat_projects["blas_rand"], "blas_rand", tmp_path / "cuda")
    builds["cuda"] = tmp_path / "cuda"
    for kind, build in builds.items():
        needed = subprocess.run(["readelf", "-d", str(build / "blas_rand")], capture_output=True, text=True).stdout
        libraries = sorted(re.findall(r"Shared library: \[(lib(?:cublas|curand|hip|roc)\w*)\.so", needed))
        assert libraries == ["libcublas", "libcurand"], (kind, needed)


@pytest.mark.parametrize("name", AMD_BUILDS)
def test_compat_project_builds_for_amd(toolchain, compat_projects, name, tmp_path):
    assert _error_lines(compat_projects[name]) == []
    _check_amd_build(toolchain, compat_projects[name], name, tmp_path / "build")


@pytest.mark.parametrize("name", NAMES)
def test_compat_project_builds_as_plain_cuda_for_sm90(toolchain, compat_projects, name, tmp_path):
    _check_plain_cuda_build(toolchain, compat_projects[name], name, tmp_path / "build")


@pytest.mark.parametrize("name", NAMES)
def test_compat_project_builds_with_hip_on_nvidia(toolchain, compat_projects, name, tmp_path):
    _check_hip_nvidia_build(toolchain, compat_projects[name], name, tmp_path / "build")


#: warp_shuffle_scan with --compat --fix: the files --fix edits, each with the logical-warp
#: helpers it gets (the rest of the tree is kept byte for byte).
FIXED_FILES = {
    "include/scan/warp_primitives.cuh": {"hipport_warp32_ballot_sync", "hipport_warp32_shfl_down_sync",
                                         "hipport_warp32_shfl_sync", "hipport_warp32_shfl_up_sync",
                                         "hipport_warp32_shfl_xor_sync"},
    "src/compact.cu": {"hipport_warp32_ballot_sync"},
    "src/histogram.cu": {"hipport_warp32_ballot_sync"},
}


@pytest.fixture(scope="module")
def compat_fixed(tmp_path_factory):
    """warp_shuffle_scan converted with --compat --fix for gfx90a and gfx1100."""
    out = tmp_path_factory.mktemp("compat-fixed") / "warp_shuffle_scan"
    compat_tree(CORPUS_PROJECTS / "warp_shuffle_scan", out,
                ConvertOptions(fix=True, offload_archs=("gfx90a", "gfx1100")))
    return out


def test_compat_fix_edits_warp_shuffle_scan_into_logical_warps_that_stay_cuda(compat_fixed):
    """Each edited file is its original with the helpers block inserted, the warp intrinsics
    called through the helpers (CUDA's own names under nvcc) and the mask kFullMask widened
    (HP1107); no error is left."""
    project = CORPUS_PROJECTS / "warp_shuffle_scan"
    assert _error_lines(compat_fixed) == []
    for source in project.rglob("*"):
        rel = source.relative_to(project).as_posix()
        if not source.is_file() or rel == "CMakeLists.txt":
            continue
        text = (compat_fixed / rel).read_text()
        if rel not in FIXED_FILES:
            assert text == source.read_text(), rel
            continue
        block = warp32.helpers_block(FIXED_FILES[rel]).decode()
        assert text.count(block) == 1, rel
        undone = re.sub(r"\bhipport_warp32_(\w+_sync)\(", r"__\1(", text.replace(block, ""))
        undone = undone.replace("constexpr unsigned long long kFullMask = 0xffffffffffffffffULL;",
                                "constexpr unsigned int kFullMask = 0xffffffffu;")
        assert undone == source.read_text(), rel
    report = json.loads((compat_fixed / "hipport-report.json").read_text())
    assert sorted(f"{f['path']}:{f['line']} {f['name']}" for f in report["findings"] if f["rule_id"] == "HP1116") == [
        "include/scan/warp_primitives.cuh:14 lane_id", "include/scan/warp_primitives.cuh:19 warp_id",
        "include/scan/warp_primitives.cuh:25 warp_inclusive_scan", "include/scan/warp_primitives.cuh:39 warp_sum",
        "include/scan/warp_primitives.cuh:49 warp_max", "include/scan/warp_primitives.cuh:59 rank_in_warp",
        "src/compact.cu:16 count_positive", "src/compact.cu:39 scatter_positive",
        "src/histogram.cu:20 histogram32_kernel", "src/scan.cu:28 scan_tiles", "src/scan.cu:76 add_tile_offsets"]


def test_compat_fix_tree_builds_for_amd_plain_cuda_and_hip_on_nvidia(toolchain, compat_fixed, tmp_path):
    """The same edited .cu files, checked as every compat project's builds are."""
    _check_amd_build(toolchain, compat_fixed, "warp_shuffle_scan", tmp_path / "amd")
    _check_plain_cuda_build(toolchain, compat_fixed, "warp_shuffle_scan", tmp_path / "cuda")
    _check_hip_nvidia_build(toolchain, compat_fixed, "warp_shuffle_scan", tmp_path / "hip-nvidia")

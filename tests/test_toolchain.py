"""The local toolchain compiles HIP for AMD (four gfx targets) and NVIDIA sm_90.

Compile tests use the ``toolchain`` fixture (tests/conftest.py): it fails under CI when the
toolchain is missing and skips with the reason elsewhere.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from hipport.toolchain import (
    AMD_TARGETS,
    CompileError,
    INSTALL_SCRIPT,
    Toolchain,
    ToolchainMissing,
    default_toolchain_dir,
)

KERNEL = r"""
#include <hip/hip_runtime.h>
#include <cstdio>

#define CHECK(x) do { hipError_t e_ = (x); if (e_ != hipSuccess) { \
    std::printf("%s: %s\n", #x, hipGetErrorString(e_)); return 1; } } while (0)

__global__ void saxpy(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

int main() {
  const int n = 1 << 12;
  float *x, *y;
  CHECK(hipMalloc(&x, n * sizeof(float)));
  CHECK(hipMalloc(&y, n * sizeof(float)));
  hipLaunchKernelGGL(saxpy, dim3((n + 255) / 256), dim3(256), 0, 0, n, 2.0f, x, y);
  CHECK(hipGetLastError());
  CHECK(hipDeviceSynchronize());
  CHECK(hipFree(x));
  CHECK(hipFree(y));
  std::printf("ok\n");
  return 0;
}
"""

EXPECTED_AMD_ENTRIES = sorted(f"hipv4-amdgcn-amd-amdhsa--{arch}" for arch in AMD_TARGETS)


@pytest.fixture
def kernel(tmp_path: Path) -> Path:
    source = tmp_path / "saxpy.hip"
    source.write_text(KERNEL)
    return source


def test_amd_targets_are_the_four_checked_ones():
    assert AMD_TARGETS == ("gfx90a", "gfx942", "gfx1030", "gfx1100")


def test_amd_object_holds_exactly_one_code_object_per_target(toolchain, kernel, tmp_path):
    obj = tmp_path / "saxpy.o"
    toolchain.compile_amd(kernel, obj, AMD_TARGETS)
    assert obj.is_file()
    assert toolchain.code_object_targets(obj) == EXPECTED_AMD_ENTRIES


def test_host_code_of_a_hip_unit_can_include_omp_h(toolchain, tmp_path):
    """A ROCm install's clang ships omp.h; the toolchain's clang-19 has it through libomp-19-dev
    (host code of CUDA programs, e.g. Rodinia's mummergpu, includes <omp.h>)."""
    unit = tmp_path / "omp_host.hip"
    unit.write_text("#include <hip/hip_runtime.h>\n#include <omp.h>\n"
                    "__global__ void k(int* a) { a[threadIdx.x] = 1; }\n"
                    "int threads() { return omp_get_max_threads(); }\n")
    obj = tmp_path / "omp_host.o"
    toolchain.compile_amd(unit, obj, ["gfx90a"])
    assert toolchain.code_object_targets(obj) == ["hipv4-amdgcn-amd-amdhsa--gfx90a"]


def test_amd_compile_error_carries_command_and_stderr(toolchain, tmp_path):
    bad = tmp_path / "bad.hip"
    bad.write_text("__global__ void k() { undeclared_name(); }\n")
    with pytest.raises(CompileError) as info:
        toolchain.compile_amd(bad, tmp_path / "bad.o", ["gfx90a"])
    assert info.value.command[0] == str(toolchain.clang)
    assert "undeclared_name" in info.value.stderr


def test_amd_command_puts_the_hip_headers_first(toolchain):
    cmd = toolchain.amd_compile_command(Path("a.hip"), Path("a.o"), ["gfx90a", "gfx1100"])
    assert cmd[:3] == [str(toolchain.clang), "-isystem", str(toolchain.hip_amd_include)]
    assert "-DHIP_ENABLE_WARP_SYNC_BUILTINS" in cmd
    assert ["--offload-arch=gfx90a", "--offload-arch=gfx1100"] == [a for a in cmd if a.startswith("--offload-arch")]
    assert cmd[-4:] == ["-c", "a.hip", "-o", "a.o"]


def test_cmake_hip_language_project_builds_for_amd(toolchain, tmp_path):
    assert toolchain.cmake_hip_toolchain_file is not None, (
        "toolchain.json lists no cmake_hip_toolchain_file: run scripts/install-toolchain.sh again")
    src = tmp_path / "src"
    src.mkdir()
    (src / "saxpy.hip").write_text(KERNEL)
    (src / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.21)\n"
        "project(saxpy LANGUAGES CXX HIP)\n"
        "add_executable(saxpy saxpy.hip)\n"
    )
    build = tmp_path / "build"
    configure = toolchain.cmake_configure_command(src, build, ["gfx90a", "gfx1100"])
    for cmd in (configure, [str(toolchain.cmake), "--build", str(build)]):
        proc = subprocess.run(cmd, capture_output=True, text=True)
        assert proc.returncode == 0, f"{' '.join(cmd)}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    assert (build / "saxpy").is_file()
    obj = build / "CMakeFiles" / "saxpy.dir" / "saxpy.hip.o"
    assert toolchain.code_object_targets(obj) == [
        "hipv4-amdgcn-amd-amdhsa--gfx1100", "hipv4-amdgcn-amd-amdhsa--gfx90a"]


def test_nvidia_sm90_binary_links_and_holds_sm90_code(toolchain, kernel, tmp_path):
    binary = tmp_path / "saxpy"
    toolchain.compile_nvidia(kernel, binary, arch="sm_90", link=True)
    assert binary.is_file() and binary.stat().st_size > 0
    assert toolchain.cuobjdump is not None, "toolchain.json lists no cuobjdump"
    listing = subprocess.run([str(toolchain.cuobjdump), "--list-elf", str(binary)],
                             capture_output=True, text=True, check=True).stdout
    assert "sm_90" in listing


def test_original_and_ported_nvidia_commands_differ_only_by_the_hip_include(toolchain):
    ported = toolchain.nvidia_compile_command("k.hip", "k.o", link=False)
    original = toolchain.cuda_compile_command("k.hip", "k.o", link=False)
    i = ported.index("-I")
    assert ported[i + 1] == str(toolchain.hip_nvidia_include)
    assert ported[:i] + ported[i + 2:] == original
    assert "-c" in original and "-c" not in toolchain.cuda_compile_command("k.cu", "k")
    assert "arch=compute_90,code=[sm_90,compute_90]" in original


def test_nvidia_arch_must_be_an_sm_name(toolchain):
    with pytest.raises(ValueError):
        toolchain.nvidia_compile_command("k.hip", "k", arch="gfx90a")


def test_load_on_an_empty_dir_names_the_install_script(tmp_path):
    with pytest.raises(ToolchainMissing) as info:
        Toolchain.load(tmp_path)
    assert INSTALL_SCRIPT in str(info.value)
    assert "scripts/install-toolchain.sh" in str(info.value)


def test_load_rejects_a_listed_file_that_does_not_exist(toolchain, tmp_path):
    data = json.loads((default_toolchain_dir() / "toolchain.json").read_text())
    data["nvcc"] = str(tmp_path / "no-such-nvcc")
    (tmp_path / "toolchain.json").write_text(json.dumps(data))
    with pytest.raises(ToolchainMissing, match="nvcc"):
        Toolchain.load(tmp_path)

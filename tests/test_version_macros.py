"""CUDA version tests under --fix (HP1220, hipport/version_macros.py): a file that tests
CUDART_VERSION or CUDA_VERSION gets them defined as CUDA 12.4's value for HIP on AMD, so a test
such as NVIDIA's ``#if CUDART_VERSION >= 2020 ... #else #error`` takes its CUDA branch; without
--fix each use stays HP1209 and the port stops at the #error."""

from __future__ import annotations

from pathlib import Path

import pytest

from hipport.convert import ConvertOptions, convert_tree
from hipport.toolchain import CompileError

PROGRAM = """\
#include <cstdio>
#include <cuda_runtime.h>

#if CUDART_VERSION >= 2020
__global__ void fill(int *out) { out[threadIdx.x] = threadIdx.x; }
#else
#error "CUDA 2.2 is required"
#endif

int main() {
  printf("CUDA runtime %d\\n", CUDART_VERSION);
  int *d;
  cudaMalloc(&d, 64 * sizeof(int));
  fill<<<1, 64>>>(d);
  cudaFree(d);
  return 0;
}
"""

BLOCK = ("#if defined(__HIP__) && !defined(CUDART_VERSION) /* hipport --fix (HP1220): CUDA 12.4's value, "
         "so CUDA version tests take their newest branch */\n"
         "#define CUDART_VERSION 12040\n"
         "#endif\n")


def _port(tmp_path: Path, source: str, fix: bool, name: str = "main.cu") -> tuple[str, list[str]]:
    src = tmp_path / f"src-{name}"
    src.mkdir(exist_ok=True)
    (src / name).write_text(source)
    out = tmp_path / f"{'fixed' if fix else 'plain'}-{name}"
    report = convert_tree(src, out, ConvertOptions(fix=fix, jobs=1)).report
    findings = [f"{f.line}:{f.column} {f.rule_id} {f.name}" for f in report.findings if f.rule_id in ("HP1209", "HP1220")]
    return (out / name.replace(".cu", ".hip")).read_text(), findings


def test_fix_defines_the_runtime_version_for_hip_on_amd(tmp_path):
    ported, findings = _port(tmp_path, PROGRAM, fix=True)
    assert ported == BLOCK + PROGRAM.replace("#include <cuda_runtime.h>", "#include <hip/hip_runtime.h>") \
        .replace("cudaMalloc", "hipMalloc").replace("cudaFree", "hipFree")
    assert findings == ["4:5 HP1220 CUDART_VERSION"]


def test_without_fix_every_use_is_reported(tmp_path):
    ported, findings = _port(tmp_path, PROGRAM, fix=False)
    assert "#define CUDART_VERSION" not in ported
    assert findings == ["4:5 HP1209 CUDART_VERSION", "11:31 HP1209 CUDART_VERSION"]


def test_the_fixed_port_compiles_for_amd_and_as_hip_on_nvidia(tmp_path, toolchain):
    fixed, _ = _port(tmp_path, PROGRAM, fix=True)
    plain, _ = _port(tmp_path, PROGRAM, fix=False)
    (tmp_path / "fixed.hip").write_text(fixed)
    (tmp_path / "plain.hip").write_text(plain)
    toolchain.compile_amd(tmp_path / "fixed.hip", tmp_path / "fixed.o", ("gfx90a", "gfx1100"))
    assert toolchain.code_object_targets(tmp_path / "fixed.o") == [
        "hipv4-amdgcn-amd-amdhsa--gfx1100", "hipv4-amdgcn-amd-amdhsa--gfx90a"]
    with pytest.raises(CompileError) as failure:  # without the definition: the #error branch
        toolchain.compile_amd(tmp_path / "plain.hip", tmp_path / "plain.o", ("gfx90a",))
    assert 'error: "CUDA 2.2 is required"' in failure.value.stderr
    # HIP on NVIDIA: nvcc does not define __HIP__, so CUDA's own CUDART_VERSION is used.
    toolchain.compile_nvidia(tmp_path / "fixed.hip", tmp_path / "fixed-nvidia.o", link=False)
    assert (tmp_path / "fixed-nvidia.o").stat().st_size > 0


def test_driver_version_and_a_header_that_defines_its_own(tmp_path):
    driver = "#include <cuda.h>\n#if CUDA_VERSION >= 11000\nint modern();\n#endif\n"
    ported, findings = _port(tmp_path, driver, fix=True, name="driver.cpp")
    assert ported.startswith("#if defined(__HIP__) && !defined(CUDA_VERSION) /* hipport --fix (HP1220): CUDA 12.4's "
                             "value, so CUDA version tests take their newest branch */\n#define CUDA_VERSION 12040\n"
                             "#endif\n#include <hip/hip_runtime.h>\n")
    assert findings == ["2:5 HP1220 CUDA_VERSION"]
    own = "#define CUDART_VERSION 9000\n#if CUDART_VERSION >= 9000\nint nine();\n#endif\n"
    ported, findings = _port(tmp_path, own, fix=True, name="own.cu")
    assert "hipport --fix (HP1220)" not in ported
    assert findings == ["1:9 HP1209 CUDART_VERSION", "2:5 HP1209 CUDART_VERSION"]


def test_the_device_pass_macro_is_left_to_hp1209(tmp_path):
    arch = "__global__ void k(int *o) {\n#if __CUDA_ARCH__ >= 700\n  o[0] = 1;\n#endif\n}\n"
    ported, findings = _port(tmp_path, arch, fix=True)
    assert "#define" not in ported
    assert findings == ["2:5 HP1209 __CUDA_ARCH__"]

"""``__grid_constant__`` kernel parameters (HP1221, hipport/grid_constant.py): ported to
HIPPORT_GRID_CONSTANT, which the port defines as CUDA's qualifier on HIP's NVIDIA platform and as
nothing on AMD (HIP 6.4.3 defines no ``__grid_constant__``), with a finding at each use. The
program is this project's own: a kernel taking a 1 KiB table by value."""

from __future__ import annotations

from pathlib import Path

import pytest

from hipport.convert import ConvertOptions, convert_tree
from hipport.toolchain import CompileError

PROGRAM = """\
#include <cuda_runtime.h>

struct Coefficients {
  float values[256];
};

#define TABLE_PARAMETER const __grid_constant__ Coefficients

__global__ void weigh(const __grid_constant__ Coefficients table, float *data) {
  // a comment naming __grid_constant__ is left alone
  const float *first = &table.values[0];
  data[threadIdx.x] *= first[threadIdx.x % 256];
}

__global__ void shift(TABLE_PARAMETER table, __grid_constant__ const int offset, float *data) {
  data[threadIdx.x] += table.values[(threadIdx.x + offset) % 256];
}

int main() {
  Coefficients table = {};
  float *data;
  cudaMalloc(&data, 256 * sizeof(float));
  weigh<<<1, 256>>>(table, data);
  shift<<<1, 256>>>(table, 3, data);
  cudaFree(data);
  return 0;
}
"""

BLOCK = """\
#ifndef HIPPORT_GRID_CONSTANT
#if defined(__HIP_PLATFORM_NVIDIA__) /* HIP on NVIDIA: CUDA's own */
#define HIPPORT_GRID_CONSTANT __grid_constant__
#else /* hipport (HP1221): HIP on AMD has no __grid_constant__ */
#define HIPPORT_GRID_CONSTANT
#endif
#endif
"""

PORTED = ("#include <hip/hip_runtime.h>\n\nstruct Coefficients {\n  float values[256];\n};\n\n" + BLOCK + """\
#define TABLE_PARAMETER const HIPPORT_GRID_CONSTANT Coefficients

__global__ void weigh(const HIPPORT_GRID_CONSTANT Coefficients table, float *data) {
  // a comment naming __grid_constant__ is left alone
  const float *first = &table.values[0];
  data[threadIdx.x] *= first[threadIdx.x % 256];
}

__global__ void shift(TABLE_PARAMETER table, HIPPORT_GRID_CONSTANT const int offset, float *data) {
  data[threadIdx.x] += table.values[(threadIdx.x + offset) % 256];
}
""" + PROGRAM[PROGRAM.index("\nint main"):].replace("cudaMalloc", "hipMalloc").replace("cudaFree", "hipFree"))

MESSAGE = ("__grid_constant__ on {} is ported to HIPPORT_GRID_CONSTANT, which the port defines as __grid_constant__ "
           "where it is compiled as HIP on NVIDIA and as nothing on AMD (HIP 6.4.3 has no __grid_constant__): there "
           "the parameter is an ordinary const by-value kernel parameter, and taking its address (&parameter, or a "
           "pointer or reference to it or to a member) gives the address of a copy, not of the kernel argument the "
           "whole grid shares")


def _port(tmp_path: Path, source: str, fix: bool, name: str = "main.cu"):
    src = tmp_path / "src"
    src.mkdir(exist_ok=True)
    (src / name).write_text(source)
    out = tmp_path / ("fixed" if fix else "plain")
    report = convert_tree(src, out, ConvertOptions(fix=fix, jobs=1)).report
    ported = (out / name.replace(".cu", ".hip")).read_text()
    return ported, [(f.line, f.column, f.rule_id, f.severity, f.message) for f in report.findings
                    if "grid_constant" in f.message or f.rule_id == "HP2008"]


@pytest.mark.parametrize("fix", [False, True])
def test_each_use_is_renamed_defined_once_and_reported(tmp_path, fix):
    ported, findings = _port(tmp_path, PROGRAM, fix)
    assert ported == PORTED
    assert findings == [
        (7, 31, "HP1221", "warning", MESSAGE.format("the parameters this macro qualifies")),
        (9, 29, "HP1221", "warning", MESSAGE.format("parameter table")),
        (15, 46, "HP1221", "warning", MESSAGE.format("parameter offset")),
    ]


def test_a_header_gets_the_definitions_inside_its_include_guard(tmp_path):
    header = ("#ifndef TABLE_H\n#define TABLE_H\n#include <cuda_runtime.h>\nstruct Row { int cells[64]; };\n"
              "__global__ void sum(const __grid_constant__ Row row, int *out);\n#endif\n")
    ported, findings = _port(tmp_path, header, fix=False, name="table.h")
    assert ported == ("#ifndef TABLE_H\n#define TABLE_H\n#include <hip/hip_runtime.h>\nstruct Row { int cells[64]; };\n"
                      + BLOCK + "__global__ void sum(const HIPPORT_GRID_CONSTANT Row row, int *out);\n#endif\n")
    assert findings == [(5, 27, "HP1221", "warning", MESSAGE.format("parameter row"))]


def test_the_port_compiles_for_amd_and_as_hip_on_nvidia(tmp_path, toolchain):
    ported, _ = _port(tmp_path, PROGRAM, fix=False)
    (tmp_path / "ported.hip").write_text(ported)
    toolchain.compile_amd(tmp_path / "ported.hip", tmp_path / "ported.o", ("gfx90a", "gfx1100"))
    assert toolchain.code_object_targets(tmp_path / "ported.o") == [
        "hipv4-amdgcn-amd-amdhsa--gfx1100", "hipv4-amdgcn-amd-amdhsa--gfx90a"]
    # HIP on NVIDIA keeps CUDA's qualifier: nvcc accepts it only on a const __global__ parameter.
    toolchain.compile_nvidia(tmp_path / "ported.hip", tmp_path / "ported-nvidia.o", link=False)
    assert (tmp_path / "ported-nvidia.o").stat().st_size > 0
    misused = ported.replace("HIPPORT_GRID_CONSTANT const int offset", "HIPPORT_GRID_CONSTANT int offset")
    (tmp_path / "misused.hip").write_text(misused)
    with pytest.raises(CompileError) as failure:
        toolchain.compile_nvidia(tmp_path / "misused.hip", tmp_path / "misused-nvidia.o", link=False)
    assert "__grid_constant__" in failure.value.stderr
    # What the port replaces: HIP 6.4.3 for AMD does not know the qualifier.
    (tmp_path / "kept.hip").write_text(ported.replace(BLOCK, "").replace("HIPPORT_GRID_CONSTANT", "__grid_constant__"))
    with pytest.raises(CompileError) as kept:
        toolchain.compile_amd(tmp_path / "kept.hip", tmp_path / "kept.o", ("gfx90a",))
    assert "__grid_constant__" in kept.value.stderr

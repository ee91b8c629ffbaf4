"""``__NVCC__`` tests in user code (rules/cuda_macros.yaml, section "Compiler macros").

nvcc defines ``__NVCC__`` in its host and device passes, as it does ``__CUDACC__``; code under
``#ifdef __NVCC__`` is the GPU compiler's code, so the port tests ``__HIPCC__`` there (hipcc and
clang's HIP mode define it in both passes). In a ``--compat`` tree the source keeps ``__NVCC__``,
which hipport_compat.h must not define (HIP 6.4.3's hip/hip_common.h:40 reads it as the NVIDIA
platform): HP1402, as for ``__CUDACC__``. The fixture is a small program written for this test.
"""

from __future__ import annotations

import json
from pathlib import Path

from hipport.compat import compat_tree
from hipport.convert import ConvertOptions, convert_tree

from helpers import findings_lines

SOURCE = """\
#ifdef __NVCC__
#define BOTH_SIDES __host__ __device__
#else
#define BOTH_SIDES
#endif
BOTH_SIDES inline float twice(float x) { return 2 * x; }
#if defined(__NVCC__)
__global__ void scale(float* v) { v[threadIdx.x] = twice(v[threadIdx.x]); }
#endif
void run(float* v) { scale<<<1, 32>>>(v); }
"""

PORTED = """\
#include <hip/hip_runtime.h>
#ifdef __HIPCC__
#define BOTH_SIDES __host__ __device__
#else
#define BOTH_SIDES
#endif
BOTH_SIDES inline float twice(float x) { return 2 * x; }
#if defined(__HIPCC__)
__global__ void scale(float* v) { v[threadIdx.x] = twice(v[threadIdx.x]); }
#endif
void run(float* v) { scale<<<1, 32>>>(v); }
"""


def _source(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    src.mkdir()
    (src / "nvcc_only.cu").write_text(SOURCE)
    return src


def test_nvcc_tests_become_hipcc_tests(tmp_path):
    out = tmp_path / "out"
    convert_tree(_source(tmp_path), out, ConvertOptions(jobs=1))
    assert (out / "nvcc_only.hip").read_text() == PORTED


def test_port_compiles_for_amd(tmp_path, toolchain):
    """The kernel that run() launches is under #if defined(__NVCC__): left as it was, the port
    would not compile (scale undeclared)."""
    out = tmp_path / "out"
    convert_tree(_source(tmp_path), out, ConvertOptions(jobs=1))
    toolchain.compile_amd(out / "nvcc_only.hip", tmp_path / "nvcc_only.o", ["gfx90a", "gfx1100"])
    assert (tmp_path / "nvcc_only.o").stat().st_size > 0


def test_compat_tree_reports_the_macro_it_keeps(tmp_path):
    out = tmp_path / "compat"
    compat_tree(_source(tmp_path), out)
    report = json.loads((out / "hipport-report.json").read_text())
    assert [line for line in findings_lines(report) if "HP1402" in line] == [
        "1:8 HP1402 warning __NVCC__ is not defined by hipport_compat.h (HIP's own headers test it to find the "
        "NVIDIA backend), so code under #if __NVCC__ is left out of the HIP build for AMD"]
    assert "__NVCC__" not in (out / "hipport_compat.h").read_text()

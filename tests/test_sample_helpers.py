"""Code in the style of NVIDIA's sample helpers (cuda-samples ``Common/``) compiles after the port
(issue 10, point 2).

tests/fixtures/sample_helpers/ is written in this project's words and reproduces each class of
failure seen when converting cuda-samples' Common/ helpers (helper_cuda.h, helper_cuda_drvapi.h,
helper_math.h):

- common/status_names.h: ``statusName`` overloads for cudaError_t, CUresult and cublasStatus_t,
  each under its API header's include guard (``__DRIVER_TYPES_H__``, ``__cuda_cuda_h__``,
  ``CUBLAS_API_H_``), a ``checkStatus`` template and a driver-API device picker; cudaError_t and
  CUresult both become hipError_t (HP2007 guards the later definition), and the guards map to
  HIP's own headers' guards, so nothing is silently dropped;
- common/vec_math.h: component-wise operators on float2/float3/float4/int2/uint3 next to the
  operators HIP's AMD vector types define (HP2005: kept for NVIDIA only), included through
  ``builtin_types.h``;
- main.cu and blas_status.cu use them; helpers_first.cu includes status_names.h above its own
  ``#include <cuda_runtime.h>`` (nvcc has read the runtime before the first line, so the
  cudaError_t overload exists; the port puts the HIP runtime include at the top); branches.h holds two overloads in exclusive #if branches
  (no finding); dot_operator.cu defines ``float operator*(float3, float3)`` (HP2006); and
  legacy_cutil.cu uses the old cutil API (HP2009).

The originals compile with nvcc 12.4 for sm_90; the ports compile for gfx90a and gfx1100 (and,
main.hip, for sm_90 through HIP's NVIDIA headers).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import FIXTURES
from hipport.convert import ConvertOptions, check_tree, convert_tree

SRC = FIXTURES / "sample_helpers"
TWO_ENTRIES = ["hipv4-amdgcn-amd-amdhsa--gfx1100", "hipv4-amdgcn-amd-amdhsa--gfx90a"]
GUARDED = "is kept for NVIDIA only (#if !defined(__HIP_PLATFORM_AMD__))"


def _guarded(line: int, operator: str, vector: str, where: str) -> tuple:
    return ("common/vec_math.h", line, "HP2005", f"{operator} on two {vector} is {where} of HIP's vector types on AMD: "
                                                 f"this definition {GUARDED}")


EXPECTED = [
    ("common/status_names.h", 12, "HP2007",
     "statusName(cudaError_t) and statusName(CUresult) become one function statusName(hipError_t) in HIP, already "
     "defined on line 8: kept only where the first is not compiled (#ifndef HIPPORT_DEFINED_statusName_1)"),
    _guarded(7, "operator*", "float2", "a friend"), _guarded(9, "operator/", "float2", "a friend"),
    _guarded(10, "operator+=", "float2", "a member"), _guarded(11, "operator*=", "float2", "a member"),
    _guarded(16, "operator*", "float3", "a friend"), _guarded(18, "operator/", "float3", "a friend"),
    _guarded(19, "operator+=", "float3", "a member"), _guarded(20, "operator-=", "float3", "a member"),
    _guarded(21, "operator*=", "float3", "a member"), _guarded(28, "operator*", "float4", "a friend"),
    _guarded(31, "operator*=", "float4", "a member"), _guarded(32, "operator/=", "float4", "a member"),
    _guarded(34, "operator*", "int2", "a friend"), _guarded(35, "operator+=", "int2", "a member"),
    _guarded(36, "operator*", "uint3", "a friend"), _guarded(37, "operator*=", "uint3", "a member"),
    ("dot_operator.cu", 2, "HP2006", "operator* on two float3 returns float, but on AMD HIP's vector types have a "
                                     "friend operator* returning float3: every use is ambiguous"),
    ("legacy_cutil.cu", 2, "HP2009", "cutil_inline.h: the cutil header of the CUDA SDK 4.x and older, which neither "
                                     "CUDA nor HIP has; not ported"),
    *[("legacy_cutil.cu", line, "HP2009", f"{name}: the cutil name of the CUDA SDK 4.x and older, which neither CUDA "
                                          "nor HIP has; not ported")
      for line, name in ((9, "cutilSafeCall"), (10, "cutCreateTimer"), (12, "cutilCheckMsg"))],
]


def test_exact_findings() -> None:
    report = check_tree(SRC, ConvertOptions(jobs=1))
    assert [(f.path, f.line, f.rule_id, f.message) for f in report.findings] == EXPECTED


def test_the_rewrites(tmp_path: Path) -> None:
    out = tmp_path / "out"
    convert_tree(SRC, out, ConvertOptions(jobs=1))
    names = (out / "common" / "status_names.h").read_text()
    assert "#ifdef HIP_INCLUDE_HIP_HIP_RUNTIME_API_H\n#define HIPPORT_DEFINED_statusName_1  // hipport: see below\n" \
           "static const char *statusName(hipError_t status) { return hipGetErrorName(status); }\n#endif\n" in names
    assert "#ifdef HIP_INCLUDE_HIP_HIP_RUNTIME_H\n#ifndef HIPPORT_DEFINED_statusName_1\n" \
           "static const char *statusName(hipError_t status) {\n" in names
    assert '    return text ? text : "unknown driver error";\n}\n#endif  // HIPPORT_DEFINED_statusName_1\n#endif\n' in names
    assert "#ifdef HIPBLAS_H\nstatic const char *statusName(hipblasStatus_t status) {" in names
    vec = (out / "common" / "vec_math.h").read_text()
    assert vec.startswith("// Component-wise arithmetic on CUDA's vector types, which define no operators of their "
                          "own.\n#pragma once\n#include <hip/hip_runtime.h>\n")
    assert ("#if !defined(__HIP_PLATFORM_AMD__)  // hipport: HIP's vector types define this operator on AMD\n"
            "inline __host__ __device__ float3 &operator*=(float3 &a, float3 b) {\n    a.x *= b.x;\n    a.y *= b.y;\n"
            "    a.z *= b.z;\n    return a;\n}\n#endif\n") in vec
    assert vec.count("#if !defined(__HIP_PLATFORM_AMD__)") == 16 == vec.count("#endif")
    assert (out / "branches.h").read_text() == (SRC / "branches.h").read_text().replace(
        "CUresult", "hipError_t").replace("cudaError_t", "hipError_t")


def test_runtime_include_goes_above_a_helper_included_first(tmp_path: Path) -> None:
    out = tmp_path / "out"
    convert_tree(SRC, out, ConvertOptions(jobs=1))
    source = (SRC / "helpers_first.cu").read_text()
    comment, code = source.split("\n#include", 1)
    expected = comment + "\n#include <hip/hip_runtime.h>\n#include" + code.replace(
        "<cuda_runtime.h>", "<hip/hip_runtime.h>").replace("cudaError_t", "hipError_t").replace(
        "cudaMalloc(", "hipMalloc(").replace("cudaFree(", "hipFree(")
    assert (out / "helpers_first.hip").read_text() == expected
    # main.cu includes the runtime first: nothing is added at its top
    assert (out / "main.hip").read_text().startswith('#include <hip/hip_runtime.h>\n#include "common/status_names.h"\n')


def test_originals_compile_for_nvidia(toolchain, tmp_path: Path) -> None:
    for name in ("main.cu", "blas_status.cu", "helpers_first.cu"):
        toolchain.compile_cuda(SRC / name, tmp_path / f"{name}.o", link=False)


@pytest.fixture(scope="module")
def port(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("sample_helpers") / "out"
    convert_tree(SRC, out, ConvertOptions(jobs=1))
    return out


def test_port_compiles_for_amd(toolchain, amd_library_include, port: Path, tmp_path: Path) -> None:
    obj = tmp_path / "main.o"
    toolchain.compile_amd(port / "main.hip", obj, ["gfx90a", "gfx1100"], ["-I", str(port)])
    assert toolchain.code_object_targets(obj) == TWO_ENTRIES
    # host code only (no kernel, so no code objects): the cuBLAS overload compiles against hipBLAS 6.4
    toolchain.compile_amd(port / "blas_status.hip", tmp_path / "blas.o", ["gfx90a", "gfx1100"], ["-I", str(port)])
    first = tmp_path / "first.o"
    toolchain.compile_amd(port / "helpers_first.hip", first, ["gfx90a", "gfx1100"], ["-I", str(port)])
    assert toolchain.code_object_targets(first) == TWO_ENTRIES


def test_port_compiles_for_nvidia(toolchain, port: Path, tmp_path: Path) -> None:
    """HIP's NVIDIA headers: CUDA's vector types have no operators there, so vec_math.h's are used."""
    toolchain.compile_nvidia(port / "main.hip", tmp_path / "main_nv.o", link=False, extra_flags=["-I", str(port)])

"""cuBLAS calls whose hipBLAS twins take other argument types or sizes.

- CUDA 12's ILP64 functions (``cublasCdgmm_64``..., int64_t sizes) port to the ``hipblas*_64``
  functions hipBLAS 6.4 declares (hipblas/hipblas.h; the importer's HIP_FIXES, since HIPIFY's
  table lists no HIP name for them).
- The half-precision GEMMs take ``hipblasHalf*`` (uint16_t, hipblas/hipblas.h:107) where cuBLAS
  takes ``__half*``: the port casts the alpha, beta, A, B and C arguments (rules/calls.yaml), and
  reports HP2010 where a macro supplies the argument list, so nothing can be cast.

The fixtures are small programs written for these tests; the ports are compiled for gfx90a and
gfx1100 with the toolchain.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from hipport.convert import ConvertOptions, convert_tree
from hipport.rules import default_rules

from helpers import REPO
from test_rule_families import _importer

HALF_GEMMS = """\
#include <cublas_v2.h>
#include <cuda_fp16.h>
#define SQUARE_BATCH h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, as, n, bs, n, &zero, cs, n, 2
void half_gemms(cublasHandle_t h, int n, const __half* a, const __half* b, __half* c,
                const __half* const* as, const __half* const* bs, __half* const* cs) {
  const __half one = 1.0f, zero = 0.0f;
  cublasHgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a, n, b, n, &zero, c, n);
  cublasHgemmBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, as, n, bs, n, &zero, cs, n, 2);
  cublasHgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a, n, n * n, b, n, n * n,
                            &zero, c, n, n * n, 2);
}
void from_a_macro(cublasHandle_t h, int n, const __half* const* as, const __half* const* bs,
                  __half* const* cs) {
  const __half one = 1.0f, zero = 0.0f;
  cublasHgemmBatched(SQUARE_BATCH);
}
"""

HALF_GEMMS_PORTED = """\
#include <hip/hip_runtime.h>
#include <hipblas/hipblas.h>
#include <hip/hip_fp16.h>
#define SQUARE_BATCH h, HIPBLAS_OP_N, HIPBLAS_OP_N, n, n, n, &one, as, n, bs, n, &zero, cs, n, 2
void half_gemms(hipblasHandle_t h, int n, const __half* a, const __half* b, __half* c,
                const __half* const* as, const __half* const* bs, __half* const* cs) {
  const __half one = 1.0f, zero = 0.0f;
  hipblasHgemm(h, HIPBLAS_OP_N, HIPBLAS_OP_N, n, n, n, reinterpret_cast<const hipblasHalf*>(&one), \
reinterpret_cast<const hipblasHalf*>(a), n, reinterpret_cast<const hipblasHalf*>(b), n, \
reinterpret_cast<const hipblasHalf*>(&zero), reinterpret_cast<hipblasHalf*>(c), n);
  hipblasHgemmBatched(h, HIPBLAS_OP_N, HIPBLAS_OP_N, n, n, n, reinterpret_cast<const hipblasHalf*>(&one), \
reinterpret_cast<const hipblasHalf* const*>(as), n, reinterpret_cast<const hipblasHalf* const*>(bs), n, \
reinterpret_cast<const hipblasHalf*>(&zero), reinterpret_cast<hipblasHalf* const*>(cs), n, 2);
  hipblasHgemmStridedBatched(h, HIPBLAS_OP_N, HIPBLAS_OP_N, n, n, n, reinterpret_cast<const hipblasHalf*>(&one), \
reinterpret_cast<const hipblasHalf*>(a), n, n * n, reinterpret_cast<const hipblasHalf*>(b), n, n * n,
                            reinterpret_cast<const hipblasHalf*>(&zero), reinterpret_cast<hipblasHalf*>(c), n, n * n, 2);
}
void from_a_macro(hipblasHandle_t h, int n, const __half* const* as, const __half* const* bs,
                  __half* const* cs) {
  const __half one = 1.0f, zero = 0.0f;
  hipblasHgemmBatched(SQUARE_BATCH);
}
"""

ILP64 = """\
#include <cublas_v2.h>
#include <cuComplex.h>
void sizes_of_64_bits(cublasHandle_t h, int64_t n, const float2* a, const float2* x, float2* c,
                      const float* alpha, const float* beta, const float* s, float* t) {
  cublasCdgmm_64(h, CUBLAS_SIDE_LEFT, n, n, a, n, x, 1, c, n);
  cublasSsyrk_64(h, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, n, n, alpha, s, n, beta, t, n);
  cublasDgeam_64(h, CUBLAS_OP_N, CUBLAS_OP_T, n, n, nullptr, nullptr, n, nullptr, nullptr, n, nullptr, n);
}
"""

ILP64_PORTED = """\
#include <hip/hip_runtime.h>
#include <hipblas/hipblas.h>
#include <hip/hip_complex.h>
void sizes_of_64_bits(hipblasHandle_t h, int64_t n, const float2* a, const float2* x, float2* c,
                      const float* alpha, const float* beta, const float* s, float* t) {
  hipblasCdgmm_v2_64(h, HIPBLAS_SIDE_LEFT, n, n, a, n, x, 1, c, n);
  hipblasSsyrk_64(h, HIPBLAS_FILL_MODE_UPPER, HIPBLAS_OP_N, n, n, alpha, s, n, beta, t, n);
  hipblasDgeam_64(h, HIPBLAS_OP_N, HIPBLAS_OP_T, n, n, nullptr, nullptr, n, nullptr, nullptr, n, nullptr, n);
}
"""


def _convert(tmp_path: Path, body: str, target_libs: str = "hip") -> tuple[str, list[dict]]:
    src = tmp_path / "src"
    src.mkdir(exist_ok=True)
    (src / "blas.cu").write_text(body)
    out = tmp_path / f"out-{target_libs}"
    convert_tree(src, out, ConvertOptions(jobs=1, target_libs=target_libs), rules=default_rules(target_libs))
    findings = json.loads((out / "hipport-report.json").read_text())["findings"]
    return (out / "blas.hip").read_text(), findings


def test_half_pointers_are_cast_and_a_macro_argument_list_is_reported(tmp_path):
    ported, findings = _convert(tmp_path, HALF_GEMMS)
    assert ported == HALF_GEMMS_PORTED
    assert [(f["line"], f["column"], f["rule_id"], f["name"], f["message"]) for f in findings
            if f["rule_id"] == "HP2010"] == [
        (15, 3, "HP2010", "cublasHgemmBatched",
         "cublasHgemmBatched is ported to hipblasHgemmBatched, whose parameters differ from CUDA's: hipBLAS takes "
         "its half-precision matrices as hipblasHalf* (uint16_t) where cuBLAS takes __half*, and the arguments of "
         "this call come from a macro, so hipport cannot cast them: reinterpret_cast the A, B and C pointers to "
         "hipblasHalf* and the alpha/beta pointers to const hipblasHalf* (cublas_api.h:3266, HIP "
         "hipblas/hipblas.h:19254)")]


def test_roc_target_leaves_the_half_pointers_alone(tmp_path):
    ported, findings = _convert(tmp_path, HALF_GEMMS, target_libs="roc")
    assert "hipblasHalf" not in ported
    assert [f for f in findings if f["rule_id"] == "HP2010"] == []


def test_ilp64_functions_port_to_hipblas_64(tmp_path):
    ported, findings = _convert(tmp_path, ILP64)
    assert ported == ILP64_PORTED
    assert [f["rule_id"] for f in findings] == []


@pytest.mark.parametrize("body", [HALF_GEMMS, ILP64], ids=["half", "ilp64"])
def test_ports_compile_for_amd(tmp_path, toolchain, amd_library_include, body):
    ported, _ = _convert(tmp_path, body)
    # The macro-supplied call is the one HP2010 names; the rest must compile.
    source = tmp_path / "blas.hip"
    source.write_text(ported.replace("  hipblasHgemmBatched(SQUARE_BATCH);\n", ""))
    toolchain.compile_amd(source, tmp_path / "blas.o", ["gfx90a", "gfx1100"])
    assert (tmp_path / "blas.o").stat().st_size > 0


def test_every_ilp64_fix_names_a_function_hipblas_declares(toolchain, amd_library_include):
    """Each HIP name HIP_FIXES gives a cuBLAS *_64 function is declared in hipBLAS 6.4's
    hipblas/hipblas.h, with int64_t sizes, and is the 32-bit counterpart's HIP name + _64."""
    header = (toolchain.amd_library_include / "hipblas" / "hipblas.h").read_text()
    fixes = {cuda: fix["hip"] for cuda, fix in _importer().HIP_FIXES["cublas"].items()
             if cuda.endswith("_64") and fix.get("hip")}
    assert len(fixes) == 63
    rules = default_rules()
    for cuda, hip in fixes.items():
        declaration = re.search(rf"hipblasStatus_t\s+{hip}\s*\(([^;]*)\);", header)
        assert declaration is not None and "int64_t" in declaration.group(1), hip
        assert rules.identifiers[cuda[:-3]].hip + "_64" == hip, cuda
        assert rules.identifiers[cuda].hip == hip, cuda  # and rules/cublas.yaml was regenerated


LT_INIT = """\
#include <cublasLt.h>
void layouts(cublasLtMatrixLayoutOpaque_t* a, cublasLtMatmulDescOpaque_t* op, int m, int n) {
  cublasLtMatrixLayoutInit(a, CUDA_R_32F, m, n, m);
  cublasLtMatmulDescInit(op, CUBLAS_COMPUTE_32F, CUDA_R_32F);
}
"""


def test_lt_init_functions_say_what_to_use_instead(tmp_path):
    """hipBLASLt 6.4 declares no *Init (hipblaslt/hipblaslt.h has the *Create/*Destroy pairs
    only): HP2001 names the Create function to call."""
    _, findings = _convert(tmp_path, LT_INIT)
    assert [(f["line"], f["rule_id"], f["message"]) for f in findings if f["rule_id"] == "HP2001"] == [
        (3, "HP2001", "cublasLtMatrixLayoutInit (function, cublaslt) has no HIP equivalent (hipBLASLt has no "
                      "MatrixLayoutInit, which fills a descriptor in the caller's memory: declare a "
                      "hipblasLtMatrixLayout_t and create it with hipblasLtMatrixLayoutCreate(&desc, type, rows, "
                      "cols, ld) (hipblaslt/hipblaslt.h:469), then release it with hipblasLtMatrixLayoutDestroy)"),
        (4, "HP2001", "cublasLtMatmulDescInit (function, cublaslt) has no HIP equivalent (hipBLASLt has no "
                      "MatmulDescInit, which fills a descriptor in the caller's memory: declare a "
                      "hipblasLtMatmulDesc_t and create it with hipblasLtMatmulDescCreate(&desc, computeType, "
                      "scaleType) (hipblaslt/hipblaslt.h:573), then release it with hipblasLtMatmulDescDestroy)"),
    ]


def test_lt_create_functions_the_notes_name_are_declared(toolchain, amd_library_include):
    """Each function a cuBLASLt *Init note names is declared in hipBLASLt 6.4's header, at the
    line the note gives, and no *Init is."""
    header = (toolchain.amd_library_include / "hipblaslt" / "hipblaslt.h").read_text().splitlines()
    fixes = _importer().HIP_FIXES["cublaslt"]
    assert sorted(fixes) == ["cublasLtMatmulAlgoInit", "cublasLtMatmulDescInit", "cublasLtMatmulPreferenceInit",
                             "cublasLtMatrixLayoutInit", "cublasLtMatrixTransformDescInit"]
    for cuda, fix in fixes.items():
        named = re.findall(r"(hipblasLt\w+)(?:\([^)]*\)|'s results) \(hipblaslt/hipblaslt\.h:(\d+)\)", fix["note"])
        assert len(named) == 1, cuda
        function, line = named[0]
        assert function + "(" in header[int(line) - 1], (cuda, function, line)
        assert not any(re.search(rf"\b{cuda.replace('cublasLt', 'hipblasLt')}\b", text) for text in header), cuda

"""Calls whose HIP twin takes other arguments (HP2010/HP2011, hipport/signatures.py, the
``differs``/``narrower`` entries of rules/calls.yaml): exact findings, a compile proof that the
reported lines are the lines clang rejects, and tools/compare_signatures.py finding nothing the
data does not record."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import pytest

from hipport.convert import ConvertOptions, convert_tree
from hipport.resources import data_dir
from hipport.rules import default_rules
from hipport.toolchain import CompileError

REPO = Path(__file__).resolve().parent.parent

# Lines 1-4 map to HIP headers one for one, so the port keeps the line numbers.
PROGRAM = """\
#include <cusparse.h>
#include <cublas_v2.h>
#include <cuda_fp16.h>
#include <nvrtc.h>
void solve(cusparseHandle_t h, cusparseSpMatDescr_t a, cusparseDnMatDescr_t b, cusparseDnMatDescr_t c,
           cusparseSpSMDescr_t d, const float* alpha, cudaArray_t* arr, const cudaChannelFormatDesc* desc,
           cudaExtent extent, cusparseMatDescr_t m, int* csr, float* values, int* cols, int* size) {
  cusparseSpSM_solve(h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, alpha, a, b, c,
                     CUDA_R_32F, CUSPARSE_SPSM_ALG_DEFAULT, d);
  cudaMalloc3DArray(arr, desc, extent);
  cudaMalloc3DArray(arr, desc, extent, 0);
  cusparseScsr2gebsr_bufferSize(h, CUSPARSE_DIRECTION_ROW, 4, 4, m, values, csr, cols, 2, 2, size);
}
void half_gemm(cublasHandle_t h, const __half* alpha, const __half* x, __half* y) {
  cublasHgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, alpha, x, 4, x, 4, alpha, y, 4);
}
void rtc(nvrtcProgram* p, const char* source, const char* const* headers, const char** names) {
  nvrtcCreateProgram(p, source, "k.cu", 1, headers, names);
  nvrtcCreateProgram(p, source, "k.cu", 1, names, names);
}
"""


def _convert(tmp_path: Path, body: str, target_libs: str = "hip") -> tuple[Path, list[dict]]:
    src = tmp_path / "src"
    src.mkdir(exist_ok=True)
    (src / "calls.cpp").write_text(body)
    out = tmp_path / f"out-{target_libs}"
    convert_tree(src, out, ConvertOptions(jobs=1, target_libs=target_libs), rules=default_rules(target_libs))
    return out, json.loads((out / "hipport-report.json").read_text())["findings"]


def _signature_findings(findings: list[dict]) -> list[str]:
    return [f"{f['line']}:{f['column']} {f['rule_id']} {f['name']}" for f in findings if f["rule_id"] in ("HP2010", "HP2011")]


def test_signature_differences_are_reported(tmp_path):
    _, findings = _convert(tmp_path, PROGRAM)
    assert _signature_findings(findings) == [
        "8:3 HP2010 cusparseSpSM_solve",
        "10:3 HP2010 cudaMalloc3DArray",  # three arguments; the four-argument call on line 11 is fine
        "12:3 HP2010 cusparseScsr2gebsr_bufferSize",
    ]  # cublasHgemm's __half pointers and nvrtcCreateProgram's header arrays are cast (rules/calls.yaml wraps), not reported
    spsm = next(f for f in findings if f["name"] == "cusparseSpSM_solve")
    assert spsm["message"] == (
        "cusparseSpSM_solve is ported to hipsparseSpSM_solve, whose parameters differ from CUDA's: "
        "hipsparseSpSM_solve takes an 11th argument, void* externalBuffer: the buffer given to "
        "hipsparseSpSM_analysis (CUDA 12 keeps it in the SpSM descriptor; cusparse.h:5795, HIP "
        "hipsparse/hipsparse.h:22391)")
    assert spsm["severity"] == "error"


def test_roc_target_libraries_are_not_described_by_the_hip_entries(tmp_path):
    _, findings = _convert(tmp_path, PROGRAM, target_libs="roc")
    # rocSPARSE/rocBLAS names are other functions; the runtime and NVRTC keep their HIP twins
    assert _signature_findings(findings) == [
        "10:3 HP2010 cudaMalloc3DArray"]


def test_every_entry_names_a_mapped_function():
    rules = default_rules()
    entries = [c for calls in rules.calls.values() for c in calls if c.differs or c.narrower]
    assert len(entries) == 48
    for entry in entries:
        mapping = rules.identifiers[entry.cuda]
        assert mapping.kind == "function" and mapping.hip, entry.cuda


def test_reported_lines_are_the_lines_clang_rejects(tmp_path, toolchain, amd_library_include):
    """The port fails for gfx90a on the HP2010 lines and nowhere else: the cublasHgemm call of line
    15 has its __half pointers cast, and the NVRTC calls of lines 18-19 (an array of const pointers,
    a const char**) compile once cast (rules/calls.yaml)."""
    out, findings = _convert(tmp_path, PROGRAM)
    with pytest.raises(CompileError) as failure:
        toolchain.compile_amd(out / "calls.cpp", tmp_path / "calls.o", ["gfx90a"], ["-w"])
    errors = {int(m.group(1)) for m in re.finditer(r"^[^\n:]*calls\.cpp:(\d+):\d+: error:", failure.value.stderr, re.M)}
    assert errors == {f["line"] for f in findings if f["rule_id"] == "HP2010"} == {8, 10, 12}
    ported = (out / "calls.cpp").read_text()
    assert ("hiprtcCreateProgram(p, source, \"k.cu\", 1, const_cast<const char**>(headers), "
            "const_cast<const char**>(names));") in ported


def _load_tool():
    spec = importlib.util.spec_from_file_location("compare_signatures", REPO / "tools" / "compare_signatures.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_compare_signatures_finds_nothing_the_data_lacks(toolchain):
    """tools/compare_signatures.py over cuSPARSE, cuRAND and NVRTC (CUDA 12.4 against HIP 6.4.3 /
    ROCm 6.4): every parameter count or type it finds different has a differs/narrower entry."""
    tool = _load_tool()
    result = tool.compare(["cusparse", "curand", "nvrtc"])
    calls = tool.check_calls(result, [])
    found = {e["cuda"] for e in result["differs"]} | {e["cuda"] for e in calls if not e["unported_type"]}
    assert found == {"cusparseSpSM_solve", "curandGetScrambleConstants32", "curandGetScrambleConstants64",
                     "cusparseSpVV_bufferSize", "nvrtcCreateProgram", "nvrtcCompileProgram",
                     *(f"cusparse{t}{f}_bufferSize" for t in "SDCZ" for f in ("csr2gebsr", "gebsr2gebsc"))}
    rules = default_rules()
    recorded = {c.cuda for entries in rules.calls.values() for c in entries if c.differs or c.narrower or c.wrap}
    assert found <= recorded
    assert result["compared"] > 400
    assert data_dir("rules").joinpath("calls.yaml").read_text().count("differs:") == 32


def test_explain_shows_the_difference():
    from hipport.cli import describe_mapping
    rules = default_rules()
    text = describe_mapping(rules.identifiers["cudaMalloc3DArray"], rules.calls["cudaMalloc3DArray"])
    assert ("arguments   with 3 arguments: hipMalloc3DArray has no default for flags: pass 0 (hipArrayDefault) as "
            "the fourth argument (cuda_runtime_api.h:6004, HIP hip/hip_runtime_api.h:4969) (HP2010)") in text.splitlines()


def test_cuda_11_form_of_graph_exec_update_is_not_reported(tmp_path):
    _, findings = _convert(tmp_path, (
        "#include <cuda_runtime.h>\n"
        "void update(cudaGraphExec_t e, cudaGraph_t g, cudaGraphNode_t* n, cudaGraphExecUpdateResult* r,\n"
        "            cudaGraphExecUpdateResultInfo* info) {\n"
        "  cudaGraphExecUpdate(e, g, n, r);\n"
        "  cudaGraphExecUpdate(e, g, info);\n"
        "}\n"))
    assert _signature_findings(findings) == ["5:3 HP2010 cudaGraphExecUpdate"]


def test_nvrtc_arrays_are_cast_and_null_is_not(tmp_path):
    out, findings = _convert(tmp_path, (
        "#include <nvrtc.h>\n"
        "void build(nvrtcProgram* p, const char* source, const char* const* options) {\n"
        "  nvrtcCreateProgram(p, source, \"k.cu\", 0, NULL, nullptr);\n"
        "  nvrtcCompileProgram(*p, 0, NULL);\n"
        "  nvrtcCompileProgram(*p, 1, options);\n"
        "}\n"))
    assert _signature_findings(findings) == []
    assert (out / "calls.cpp").read_text().splitlines()[2:5] == [
        "  hiprtcCreateProgram(p, source, \"k.cu\", 0, NULL, nullptr);",
        "  hiprtcCompileProgram(*p, 0, NULL);",
        "  hiprtcCompileProgram(*p, 1, const_cast<const char**>(options));"]

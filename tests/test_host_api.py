"""Host-side API classes (hipport/host_api.py, HP2050-HP2053, and the NVRTC casts of
rules/calls.yaml): the golden pair tests/fixtures/hostside/host_api.cpp ->
expected/host_api.cpp is checked byte for byte and the port compiled for gfx90a and gfx1100;
the reported cases are pinned down on small inline programs."""

from __future__ import annotations

import json
from pathlib import Path

from hipport.convert import ConvertOptions, convert_tree

from helpers import FIXTURES

INPUT = FIXTURES / "hostside" / "host_api.cpp"
PORTED = FIXTURES / "hostside" / "expected" / "host_api.cpp"


def convert(tmp_path: Path, code: str | None = None, name: str = "x.cpp") -> tuple[str, list[str]]:
    """Port one file; returns the port and its findings as "line:column ID message"."""
    source_dir = tmp_path / "src"
    source_dir.mkdir(parents=True)
    (source_dir / name).write_text(INPUT.read_text() if code is None else code)
    convert_tree(source_dir, tmp_path / "out", ConvertOptions())
    report = json.loads((tmp_path / "out" / "hipport-report.json").read_text())
    findings = [f"{f['line']}:{f['column']} {f['rule_id']} {f['message']}" for f in report["findings"]
                if f["rule_id"] not in ("HP2003",)]
    return (tmp_path / "out" / name).read_text(), sorted(findings)


def test_the_port_is_the_golden_file(tmp_path):
    ported, findings = convert(tmp_path, name="host_api.cpp")
    assert ported == PORTED.read_text()
    assert findings == [
        "15:10 HP2050 case CUFFT_LICENSE_ERROR: the cufft enumerator has no HIP counterpart, so the HIP "
        "function never returns it: the case was removed",
        "17:10 HP2050 case CUFFT_NVSHMEM_FAILURE: the cufft enumerator has no HIP counterpart, so the HIP "
        "function never returns it: the label was removed",
    ]


def test_the_port_compiles_for_amd(toolchain, amd_library_include, tmp_path):
    obj = tmp_path / "host_api.o"
    toolchain.compile_amd(PORTED, obj, ("gfx90a", "gfx1100"), extra_flags=("-std=c++17", "-x", "hip",
                                                                         f"-I{amd_library_include}"))
    assert obj.stat().st_size > 0  # host code only: compile_amd raises CompileError on any error


def test_params_with_content_are_reported(tmp_path):
    ported, findings = convert(tmp_path, "#include <cuda.h>\n"
                               "CUresult f(CUcontext* c, CUdevice d, CUctxCreateParams* p) {\n"
                               "  return cuCtxCreate(c, p, 0, d);\n}\n")
    assert "hipCtxCreate(c, p, 0, d)" in ported
    assert [f for f in findings if " HP2051 " in f] == [
        "3:10 HP2051 cuCtxCreate(ctx, p, flags, dev) is CUDA 12.5's form taking CUctxCreateParams: hipCtxCreate "
        "has no such parameter (hipCtxCreate(hipCtx_t*, unsigned int flags, hipDevice_t), hip/hip_runtime_api.h)"]


def test_an_occupancy_callback_is_reported(tmp_path):
    ported, findings = convert(tmp_path, "#include <cuda.h>\n"
                               "int f(CUfunction fn, CUoccupancyB2DSize cb) {\n  int g = 0, b = 0;\n"
                               "  cuOccupancyMaxPotentialBlockSize(&g, &b, fn, cb, 0, 0);\n  return g + b;\n}\n")
    assert "hipModuleOccupancyMaxPotentialBlockSize(&g, &b, fn, cb, 0, 0);" in ported
    assert [f.split(" is ported")[0] for f in findings if " HP2010 " in f] == [
        "4:3 HP2010 cuOccupancyMaxPotentialBlockSize"]


def test_a_member_of_unknown_type_is_reported(tmp_path):
    ported, findings = convert(tmp_path, "#include <cuda.h>\n"
                               "struct Pool { CUmemAllocationProp prop; };\n"
                               "void set(Pool* p) { p->prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_NONE; }\n"
                               "struct Other { int requestedHandleTypes; };\n"
                               "void other(Other o) { o.requestedHandleTypes = 1; }\n")
    assert "p->prop.requestedHandleTypes" in ported and "o.requestedHandleTypes = 1" in ported
    assert findings == [
        "3:29 HP2052 requestedHandleTypes: hipMemAllocationProp spells this member requestedHandleType "
        "(hip/hip_runtime_api.h:1582); the object's type is not known here, so it was left unchanged"]
    # a file that never names the struct: the member is the project's own, nothing is reported
    ported, findings = convert(tmp_path / "own", "struct Launch { unsigned gridDimX; };\n"
                               "struct Holder { Launch l; };\n"
                               "void f(Holder* h) { h->l.gridDimX = 2; }\n")
    assert "h->l.gridDimX = 2;" in ported and findings == []


def test_an_initialised_vla_is_reported_and_constant_sizes_are_not(tmp_path):
    _, findings = convert(tmp_path, "#define PLANES 3\n"
                          "void f(int n) {\n"
                          "  const int k = 4;\n"
                          "  int a[n] = {0};\n"
                          "  int b[k] = {0};\n"
                          "  int c[PLANES] = {0};\n"
                          "  int d[2 * PLANES] = {0};\n"
                          "  (void)a; (void)b; (void)c; (void)d;\n}\n")
    assert findings == ["4:7 HP2053 a[n] = {...}: the size n is not a constant, and clang (hipcc) rejects an "
                        "initialised variable-length array"]


def test_make_uint3_on_other_targets_is_left_alone(tmp_path):
    ported, _ = convert(tmp_path, "#include <cuda_runtime.h>\n"
                        "void f(dim3* out) {\n  uint3 u;\n  u = make_uint3(1, 2, 3);\n"
                        "  dim3 d = make_uint3(4, 5, 6);\n  *out = d;\n  (void)u;\n}\n"
                        "uint3 make_uint3(unsigned s) { return make_uint3(s, s, s); }\n"
                        "void g(dim3* out) {\n  dim3 e;\n  e = make_uint3(7u);\n  *out = e;\n}\n")
    assert "u = make_uint3(1, 2, 3);" in ported and "dim3 d = dim3(4, 5, 6);" in ported
    assert "e = make_uint3(7u);" in ported

"""HP1218: conversions between __half and __nv_bfloat16, ambiguous in HIP 6.4.3
(hipport/half_bfloat16.py; issue 10 class from HeCBench conversion-cuda). The fixture is
tests/fixtures/handle_types/halves.cu, written for these tests."""

from __future__ import annotations

import re

from helpers import FIXTURES
from hipport.analyze import analyze_file
from hipport.convert import ConvertOptions, convert_tree
from hipport.parse import new_parser
from hipport.rules import default_rules
from hipport.toolchain import CompileError

FIXTURE = FIXTURES / "handle_types" / "halves.cu"
TAIL = ("a conversion between __half and bfloat16 is ambiguous in HIP 6.4 (__half has constructors from every "
        "arithmetic type, __hip_bfloat16 converts to several)")
EXPECTED = [
    (13, 10, f"__half, cast of b[i], a __nv_bfloat16: {TAIL}",
     "Convert through float with HIP's functions: __float2half(__bfloat162float(v))"),
    (15, 13, f"__nv_bfloat16, cast of one, a __half: {TAIL}",
     "Convert through float with HIP's functions: __float2bfloat16(__half2float(v))"),
    (20, 3, f"recast, template arguments <__half, __nv_bfloat16>: {TAIL}",
     "Where the template casts one type to the other, convert through float: __float2half(__bfloat162float(v)) "
     "or __float2bfloat16(__half2float(v))"),
]


def test_each_conversion_reported():
    source = FIXTURE.read_bytes()
    result = analyze_file("halves.cu", source, new_parser().parse(source), default_rules(), is_cuda_unit=True)
    assert [(f.line, f.column, f.message, f.fix) for f in result.findings if f.rule_id == "HP1218"] == EXPECTED


def test_reported_lines_are_where_clang_stops(toolchain, tmp_path):
    """The ported fixture compiled for gfx90a: errors in the fixture's own functions are on the
    reported lines, the template's error carries the reported call in its instantiation note, and
    the cast to float and the float instantiation compile."""
    out = tmp_path / "out"
    convert_tree(FIXTURE.parent, out, ConvertOptions(jobs=1))
    shift = (out / "halves.hip").read_text().count("\n") - FIXTURE.read_text().count("\n")
    try:
        toolchain.compile_amd(out / "halves.hip", tmp_path / "h.o", ["gfx90a"], ["-fsyntax-only"])
        stderr = ""
    except CompileError as exc:
        stderr = exc.stderr
    errors = {int(m) - shift for m in re.findall(r"halves\.hip:(\d+):\d+: error", stderr)}
    notes = {int(m) - shift for m in re.findall(r"halves\.hip:(\d+):\d+: note: in instantiation", stderr)}
    assert errors == {8, 13, 15}  # 8: the cast in the template
    assert notes == {20}


FIXED_EXPECTED = [
    (13, 10, "HP2044", "__half, cast of b[i], a __nv_bfloat16: rewritten to __float2half_rn(__bfloat162float(b[i])), "
     "CUDA 12.4's own definition of this conversion (cuda_bf16.h), since the cast is ambiguous in HIP 6.4"),
    (15, 13, "HP2044", "__nv_bfloat16, cast of one, a __half: rewritten to __float2bfloat16(__half2float(one)), "
     "CUDA 12.4's own definition of this conversion (cuda_bf16.h), since the cast is ambiguous in HIP 6.4"),
    (20, 3, "HP1218", f"recast, template arguments <__half, __nv_bfloat16>: {TAIL}"),
]


def test_fix_rewrites_the_casts_through_float(toolchain, tmp_path):
    """--fix: the two direct casts become CUDA's conversions through float (HP2044); the generic
    cast in the template keeps HP1218 and is then the only line clang stops at."""
    out = tmp_path / "out"
    report = convert_tree(FIXTURE.parent, out, ConvertOptions(jobs=1, fix=True)).report
    assert [(f.line, f.column, f.rule_id, f.message) for f in report.findings
            if f.rule_id in ("HP1218", "HP2044") and f.path.endswith("halves.cu")] == FIXED_EXPECTED
    ported = (out / "halves.hip").read_text()
    assert "  h[i] = __float2half_rn(__bfloat162float(b[i]));\n" in ported
    assert "  back[i] = __float2bfloat16(__half2float(one));\n" in ported
    assert "  f[i] = static_cast<float>(b[i]);\n" in ported
    shift = ported.count("\n") - FIXTURE.read_text().count("\n")
    try:
        toolchain.compile_amd(out / "halves.hip", tmp_path / "h.o", ["gfx90a", "gfx1100"], ["-fsyntax-only"])
        stderr = ""
    except CompileError as exc:
        stderr = exc.stderr
    assert {int(m) - shift for m in re.findall(r"halves\.hip:(\d+):\d+: error", stderr)} == {8}
    # Without the template, the fixed port compiles for AMD and as HIP on NVIDIA.
    direct = ported[:ported.index("template <typename To")] + ported[ported.index("__global__ void direct"):]
    direct = direct.replace("  recast<__half, __hip_bfloat16><<<1, 32>>>(h, b, n);\n", "")
    direct = direct.replace("  recast<float, __hip_bfloat16><<<1, 32>>>(f, b, n);\n", "")
    (tmp_path / "direct.hip").write_text(direct)
    toolchain.compile_amd(tmp_path / "direct.hip", tmp_path / "direct.o", ["gfx90a", "gfx1100"])
    toolchain.compile_nvidia(tmp_path / "direct.hip", tmp_path / "direct-nvidia.o", link=False)

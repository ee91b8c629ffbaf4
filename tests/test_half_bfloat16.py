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
    (20, 3, "HP2044", "recast, template arguments <__half, __nv_bfloat16>: rewritten to hipport_convert<T>(v) in place "
     "of static_cast<T>(v) in the file's templates (T a template parameter), which converts between the two through "
     "float, CUDA 12.4's own definition of this conversion (cuda_bf16.h), since the cast is ambiguous in HIP 6.4"),
]


def test_fix_rewrites_the_casts_through_float(toolchain, tmp_path):
    """--fix: the two direct casts become CUDA's conversions through float, the generic cast in the
    template instantiated with both types becomes hipport_convert<To>, defined once before the
    template (HP2044 each); the port compiles for gfx90a, gfx1100 and as HIP on NVIDIA."""
    from hipport.half_bfloat16 import CONVERT_BLOCK

    out = tmp_path / "out"
    report = convert_tree(FIXTURE.parent, out, ConvertOptions(jobs=1, fix=True)).report
    assert [(f.line, f.column, f.rule_id, f.message) for f in report.findings
            if f.rule_id in ("HP1218", "HP2044") and f.path.endswith("halves.cu")] == FIXED_EXPECTED
    ported = (out / "halves.hip").read_text()
    assert CONVERT_BLOCK.replace("{nl}", "\n") + "template <typename To, typename From>\n" in ported
    assert "  if (i < n) out[i] = hipport_convert<To>(in[i]);\n" in ported
    assert "  h[i] = __float2half_rn(__bfloat162float(b[i]));\n" in ported
    assert "  back[i] = __float2bfloat16(__half2float(one));\n" in ported
    assert "  f[i] = static_cast<float>(b[i]);\n" in ported
    toolchain.compile_amd(out / "halves.hip", tmp_path / "h.o", ["gfx90a", "gfx1100"])
    toolchain.compile_nvidia(out / "halves.hip", tmp_path / "h-nvidia.o", link=False)


CONVERT_CHECK = """\
#include <hip/hip_runtime.h>
#include <hip/hip_bf16.h>
#include <hip/hip_fp16.h>
#include <cstdio>
#include <cstring>
{block}
int main() {{
  int differ = 0;
  for (unsigned int bits = 0; bits < 0x10000u; ++bits) {{
    unsigned short raw = (unsigned short)bits, got, want;
    __hip_bfloat16 b; std::memcpy(&b, &raw, 2);
    __half h; std::memcpy(&h, &raw, 2);
    if (__bfloat162float(b) == __bfloat162float(b)) {{  // not a NaN
      __half to_half = hipport_convert<__half>(b), reference = __float2half_rn(__bfloat162float(b));
      std::memcpy(&got, &to_half, 2); std::memcpy(&want, &reference, 2); differ += got != want;
    }}
    if (__half2float(h) == __half2float(h)) {{
      __hip_bfloat16 to_bf16 = hipport_convert<const __hip_bfloat16>(h), reference = __float2bfloat16(__half2float(h));
      std::memcpy(&got, &to_bf16, 2); std::memcpy(&want, &reference, 2); differ += got != want;
    }}
  }}
  printf("%d %g %g\\n", differ, hipport_convert<float>(hipport_convert<__hip_bfloat16>(__float2half(65504.0f))),
         __half2float(hipport_convert<__half>(__float2bfloat16(70000.0f))));
  return 0;
}}
"""


def test_hipport_convert_is_cudas_conversion_for_every_value(toolchain, tmp_path):
    """hipport_convert, built for the host by HIP's clang, gives CUDA's through-float result for
    every non-NaN bit pattern of both types; 65504 (the largest __half) rounds to bfloat16 65536,
    and bfloat16 70144 overflows __half to infinity."""
    import subprocess

    from hipport.half_bfloat16 import CONVERT_BLOCK

    (tmp_path / "check.hip").write_text(CONVERT_CHECK.format(block=CONVERT_BLOCK.replace("{nl}", "\n")))
    toolchain.compile_amd(tmp_path / "check.hip", tmp_path / "check.o", ["gfx90a"], ["--cuda-host-only"])
    subprocess.run([str(toolchain.clang), str(tmp_path / "check.o"), "-o", str(tmp_path / "check")], check=True)
    result = subprocess.run([str(tmp_path / "check")], capture_output=True, text=True, check=True)
    assert result.stdout == "0 65536 inf\n"

"""Device functions HIP 6.4.3 lacks that the port defines itself (HP2042,
hipport/port_definitions.py, rules/definitions/device_functions.yaml): CUDA's sm_61 integer dot
products __dp4a, __dp2a_lo, __dp2a_hi. The programs are this project's own."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from hipport.convert import ConvertOptions, convert_tree
from hipport.port_definitions import port_definitions

DOT_PROGRAM = """\
#include <cuda_runtime.h>

#define DOT_ZERO(a, b) __dp4a(a, b, 0)

__global__ void dots(const int *a, const int *b, int *out) {
  int i = threadIdx.x;
  out[i] = __dp4a(a[i], b[i], 7) + DOT_ZERO(a[i], b[i]);  // __dp4a in a comment stays
}

__global__ void vector_dots(const char4 *a, const uchar4 *b, unsigned int *out) {
  int i = threadIdx.x;
  uchar4 ua = make_uchar4(a[i].x, a[i].y, a[i].z, a[i].w);
  short2 halves = make_short2(a[i].x, a[i].y);
  out[i] = __dp4a(ua, b[i], 1u) + (unsigned int)__dp2a_lo(halves, a[i], 2) + __dp2a_hi(0x00010002u, 0x01020304u, 3u);
}

int main() {
  int *d;
  cudaMalloc(&d, 64 * sizeof(int));
  dots<<<1, 32>>>(d, d, d);
  cudaFree(d);
  return 0;
}
"""

MESSAGE = ("{} is ported to hipport_{}, which the port defines once in the file: CUDA's own {} where it is compiled "
           "as HIP on NVIDIA, and on AMD, where HIP 6.4.3 does not declare it, four (or two) byte products added to "
           "the accumulator in wrap-around 32-bit arithmetic, as the PTX dp4a/dp2a instructions CUDA's "
           "sm_61_intrinsics.hpp uses")


def _port(tmp_path: Path, source: str, name: str = "main.cu", fix: bool = False):
    src = tmp_path / "src"
    src.mkdir(exist_ok=True)
    (src / name).write_text(source)
    out = tmp_path / "out"
    report = convert_tree(src, out, ConvertOptions(fix=fix, jobs=1)).report
    ported = (out / name.replace(".cu", ".hip")).read_text()
    return ported, [(f.line, f.column, f.rule_id, f.severity, f.message) for f in report.findings]


def _block() -> str:
    (entry,) = [e for e in port_definitions() if "__dp4a" in e.names]
    return entry.block("\n")


@pytest.mark.parametrize("fix", [False, True])
def test_calls_are_renamed_and_the_definitions_inserted_once(tmp_path, fix):
    ported, findings = _port(tmp_path, DOT_PROGRAM, fix=fix)
    body = DOT_PROGRAM[DOT_PROGRAM.index("#define DOT_ZERO"):]
    for name in ("__dp4a", "__dp2a_lo", "__dp2a_hi"):
        body = body.replace(f"{name}(", f"hipport_{name[2:]}(")
    body = body.replace("hipport_dp4a in a comment", "__dp4a in a comment")
    body = body.replace("cudaMalloc", "hipMalloc").replace("cudaFree", "hipFree")
    assert ported == "#include <hip/hip_runtime.h>\n\n" + _block() + body
    assert findings == [
        (3, 24, "HP2042", "info", MESSAGE.format("__dp4a", "dp4a", "__dp4a")),
        (7, 12, "HP2042", "info", MESSAGE.format("__dp4a", "dp4a", "__dp4a")),
        (14, 12, "HP2042", "info", MESSAGE.format("__dp4a", "dp4a", "__dp4a")),
        (14, 49, "HP2042", "info", MESSAGE.format("__dp2a_lo", "dp2a_lo", "__dp2a_lo")),
        (14, 78, "HP2042", "info", MESSAGE.format("__dp2a_hi", "dp2a_hi", "__dp2a_hi")),
    ]


def test_a_header_gets_the_block_inside_its_include_guard(tmp_path):
    header = ("#ifndef DOT_H\n#define DOT_H\n#include <cuda_runtime.h>\n"
              "__device__ inline int dot(int a, int b) { return __dp4a(a, b, 0); }\n#endif\n")
    ported, findings = _port(tmp_path, header, name="dot.h")
    assert ported == ("#ifndef DOT_H\n#define DOT_H\n#include <hip/hip_runtime.h>\n" + _block()
                      + "__device__ inline int dot(int a, int b) { return hipport_dp4a(a, b, 0); }\n#endif\n")
    assert [f[:3] for f in findings] == [(4, 50, "HP2042")]


def test_a_file_with_its_own_dp4a_keeps_it(tmp_path):
    source = ("__device__ int __dp4a(int a, int b, int c) { return a * b + c; }\n"
              "__global__ void k(int *out) { out[0] = __dp4a(out[1], out[2], 0); }\n")
    ported, findings = _port(tmp_path, source)
    assert "HIPPORT_DP4A_DEFINED" not in ported
    assert [f for f in findings if f[2] == "HP2042"] == []


def test_the_port_compiles_for_amd_and_as_hip_on_nvidia(tmp_path, toolchain):
    ported, _ = _port(tmp_path, DOT_PROGRAM)
    (tmp_path / "ported.hip").write_text(ported)
    toolchain.compile_amd(tmp_path / "ported.hip", tmp_path / "ported.o", ("gfx90a", "gfx1100"))
    assert toolchain.code_object_targets(tmp_path / "ported.o") == [
        "hipv4-amdgcn-amd-amdhsa--gfx1100", "hipv4-amdgcn-amd-amdhsa--gfx90a"]
    toolchain.compile_nvidia(tmp_path / "ported.hip", tmp_path / "ported-nvidia.o", link=False)
    assert (tmp_path / "ported-nvidia.o").stat().st_size > 0


# Edge values: INT8_MIN bytes, 0xff bytes, INT16_MIN/INT16_MAX halves, mixed signs, and
# accumulators at the ends of the int range so the sum wraps.
WORDS = [0x00000000, 0x00000001, 0x0000007F, 0x00000080, 0x000000FF, 0x80808080, 0x7F7F7F7F, 0xFFFFFFFF,
         0x12345678, 0x8000FFFF, 0x7FFF8000, 0x00FF7F80, 0xDEADBEEF, 0x7FFFFFFF, 0x80000000]
ACCUMULATORS = [0x00000000, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 0x00003039]


def _signed(value: int, bits: int) -> int:
    value &= (1 << bits) - 1
    return value - (1 << bits) if value >> (bits - 1) else value


def _reference(kind: str, a: int, b: int, c: int, is_signed: bool) -> int:
    """The PTX ISA's dp4a / dp2a (d = c + the products of the bytes, or of the 16-bit halves of a
    with two bytes of b), computed with Python's unbounded integers, then taken modulo 2^32."""
    byte = (lambda w, i: _signed(w >> (8 * i), 8)) if is_signed else (lambda w, i: (w >> (8 * i)) & 0xFF)
    half = (lambda w, i: _signed(w >> (16 * i), 16)) if is_signed else (lambda w, i: (w >> (16 * i)) & 0xFFFF)
    if kind == "dp4a":
        total = sum(byte(a, i) * byte(b, i) for i in range(4))
    else:
        first = 0 if kind == "dp2a_lo" else 2
        total = half(a, 0) * byte(b, first) + half(a, 1) * byte(b, first + 1)
    return (c + total) % (1 << 32)


HOST_CHECK = """\
#include <hip/hip_runtime.h>
#include <cstdio>
{block}
static const unsigned int words[] = {{{words}}};
static const unsigned int accumulators[] = {{{accumulators}}};
static char4 c4(unsigned int w) {{ return make_char4((signed char)(w & 0xff), (signed char)(w >> 8 & 0xff), (signed char)(w >> 16 & 0xff), (signed char)(w >> 24)); }}
static uchar4 u4(unsigned int w) {{ return make_uchar4(w & 0xff, w >> 8 & 0xff, w >> 16 & 0xff, w >> 24); }}
static short2 s2(unsigned int w) {{ return make_short2((short)(w & 0xffff), (short)(w >> 16)); }}
static ushort2 us2(unsigned int w) {{ return make_ushort2(w & 0xffff, w >> 16); }}
int main() {{
  for (unsigned int a : words) for (unsigned int b : words) for (unsigned int c : accumulators) {{
    printf("%u %u %u %u\\n", (unsigned int)hipport_dp4a((int)a, (int)b, (int)c), hipport_dp4a(a, b, c),
           (unsigned int)hipport_dp4a(c4(a), c4(b), (int)c), hipport_dp4a(u4(a), u4(b), c));
    printf("%u %u %u %u\\n", (unsigned int)hipport_dp2a_lo((int)a, (int)b, (int)c), hipport_dp2a_lo(a, b, c),
           (unsigned int)hipport_dp2a_lo(s2(a), c4(b), (int)c), hipport_dp2a_lo(us2(a), u4(b), c));
    printf("%u %u %u %u\\n", (unsigned int)hipport_dp2a_hi((int)a, (int)b, (int)c), hipport_dp2a_hi(a, b, c),
           (unsigned int)hipport_dp2a_hi(s2(a), c4(b), (int)c), hipport_dp2a_hi(us2(a), u4(b), c));
  }}
  return 0;
}}
"""


def test_the_amd_definitions_give_cudas_values(tmp_path, toolchain):
    """The AMD branch of the inserted block, compiled by HIP's clang for the host (the functions
    are __host__ __device__) and run: every overload against the PTX ISA's definition."""
    source = HOST_CHECK.format(block=_block(), words=", ".join(f"{w:#x}u" for w in WORDS),
                               accumulators=", ".join(f"{c:#x}u" for c in ACCUMULATORS))
    (tmp_path / "check.hip").write_text(source)
    toolchain.compile_amd(tmp_path / "check.hip", tmp_path / "check.o", ("gfx90a",), ("--cuda-host-only",))
    subprocess.run([str(toolchain.clang), str(tmp_path / "check.o"), "-o", str(tmp_path / "check")], check=True)
    lines = subprocess.run([str(tmp_path / "check")], capture_output=True, text=True, check=True).stdout.splitlines()
    expected = []
    for a in WORDS:
        for b in WORDS:
            for c in ACCUMULATORS:
                for kind in ("dp4a", "dp2a_lo", "dp2a_hi"):
                    signed_value = _reference(kind, a, b, c, is_signed=True)
                    unsigned_value = _reference(kind, a, b, c, is_signed=False)
                    expected.append(f"{signed_value} {unsigned_value} {signed_value} {unsigned_value}")
    assert lines == expected

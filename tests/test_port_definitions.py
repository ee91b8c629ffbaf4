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


ATOMIC_PROGRAM = """\
#include <cuda_fp16.h>
#include <cuda_bf16.h>

__global__ void histogram(__half2 *pairs, __half *counts, __nv_bfloat162 *wide, __nv_bfloat16 *narrow, float *total) {
  atomicAdd(total, 1.0f);
  atomicAdd(pairs, __floats2half2_rn(1.0f, 0.5f));
  atomicAdd(&counts[threadIdx.x % 2], __float2half(1.0f));
  atomicAdd(wide, __halves2bfloat162(__float2bfloat16(0.125f), __float2bfloat16(2.0f)));
  atomicAdd(&narrow[threadIdx.x % 2], __float2bfloat16(0.125f));
}
"""

OVERLOAD_MESSAGE = ("atomicAdd may be called here with an argument type HIP 6.4.3 declares no overload for: the port "
                    "defines {} once in the file on AMD (a relaxed compare-and-swap loop on the aligned 32-bit word "
                    "that holds the value, right on any memory (coarse- or fine-grained), the sum rounded to nearest "
                    "even as CUDA's); HIP on NVIDIA keeps CUDA's")


def _blocks_for(*functions: str) -> str:
    return "".join(e.block("\n") for e in port_definitions() if e.overloads and any(
        p.startswith(functions) for lists in e.overloads.values() for p in lists))


def test_missing_half_and_bfloat16_atomic_adds_are_defined(tmp_path):
    ported, findings = _port(tmp_path, ATOMIC_PROGRAM)
    body = ATOMIC_PROGRAM[ATOMIC_PROGRAM.index("__global__"):].replace("__nv_bfloat162", "__hip_bfloat162")
    body = body.replace("__nv_bfloat16", "__hip_bfloat16")
    assert ported == ("#include <hip/hip_runtime.h>\n#include <hip/hip_fp16.h>\n#include <hip/hip_bf16.h>\n\n"
                      + _blocks_for("__half") + _blocks_for("__nv_bfloat16") + body)
    # No HP2015 is left: each of the four calls had one before.
    assert findings == [
        (5, 3, "HP2043", "info", OVERLOAD_MESSAGE.format("atomicAdd(__half *, __half), atomicAdd(__half2 *, __half2)")),
        (5, 3, "HP2043", "info", OVERLOAD_MESSAGE.format(
            "atomicAdd(__nv_bfloat16 *, __nv_bfloat16), atomicAdd(__nv_bfloat162 *, __nv_bfloat162)")),
    ]


def test_a_file_without_those_types_gets_no_atomics(tmp_path):
    ported, findings = _port(tmp_path, "__global__ void k(float *t) { atomicAdd(t, 1.0f); }\n")
    assert "HIPPORT_ATOMIC" not in ported and findings == []


def test_a_file_with_its_own_half_atomic_add_keeps_it(tmp_path):
    source = ("#include <cuda_fp16.h>\n"
              "__device__ __half atomicAdd(__half *a, __half v) { __half old = *a; *a = __hadd(old, v); return old; }\n"
              "__global__ void k(__half *c) { atomicAdd(c, __float2half(1.0f)); }\n")
    ported, findings = _port(tmp_path, source)
    assert "HIPPORT_ATOMIC_ADD_HALF_DEFINED" not in ported
    assert [f[2] for f in findings if f[2] == "HP2043"] == []


def test_the_atomic_port_compiles_for_amd_and_as_hip_on_nvidia(tmp_path, toolchain):
    ported, _ = _port(tmp_path, ATOMIC_PROGRAM)
    (tmp_path / "ported.hip").write_text(ported)
    toolchain.compile_amd(tmp_path / "ported.hip", tmp_path / "ported.o", ("gfx90a", "gfx1100"))
    assert toolchain.code_object_targets(tmp_path / "ported.o") == [
        "hipv4-amdgcn-amd-amdhsa--gfx1100", "hipv4-amdgcn-amd-amdhsa--gfx90a"]
    toolchain.compile_nvidia(tmp_path / "ported.hip", tmp_path / "ported-nvidia.o", link=False)
    assert (tmp_path / "ported-nvidia.o").stat().st_size > 0


CONCURRENT_ADDS = """\
#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>
#include <hip/hip_bf16.h>
#include <cstdio>
#include <thread>
#include <vector>
{blocks}
// Two 16-bit values share each 32-bit word, so threads adding to the neighbour race on the same word.
alignas(4) static __half2 pair;
alignas(4) static __half halves[2];
alignas(4) static __hip_bfloat162 wide;
alignas(4) static __hip_bfloat16 narrow[2];
int main() {{
  pair = __floats2half2_rn(0.0f, 0.0f);
  halves[0] = halves[1] = __float2half(0.0f);
  wide = __halves2bfloat162(__float2bfloat16(0.0f), __float2bfloat16(0.0f));
  narrow[0] = narrow[1] = __float2bfloat16(0.0f);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([t] {{
      for (int i = 0; i < 250; ++i) {{
        atomicAdd(&pair, __floats2half2_rn(1.0f, 0.5f));      // 2000 and 1000: exact in __half
        atomicAdd(&halves[t % 2], __float2half(1.0f));        // 1000 each
        if (i < 30) {{
          atomicAdd(&wide, __halves2bfloat162(__float2bfloat16(0.125f), __float2bfloat16(1.0f)));  // 30 and 240: exact in bfloat16
          atomicAdd(&narrow[t % 2], __float2bfloat16(0.125f));   // 15 each
        }}
      }}
    }});
  for (std::thread &thread : threads) thread.join();
  printf("%g %g %g %g %g %g %g %g\\n", __half2float(__low2half(pair)), __half2float(__high2half(pair)),
         __half2float(halves[0]), __half2float(halves[1]), __bfloat162float(__low2bfloat16(wide)),
         __bfloat162float(__high2bfloat16(wide)), __bfloat162float(narrow[0]), __bfloat162float(narrow[1]));
  return 0;
}}
"""


def test_concurrent_adds_give_the_exact_sum(tmp_path, toolchain):
    """The AMD definitions, compiled by HIP's clang for the host (they are __host__ __device__, the
    CAS a real atomic there too) and run by 8 threads at once, lose no add."""
    source = CONCURRENT_ADDS.format(blocks=_blocks_for("__half") + _blocks_for("__nv_bfloat16"))
    (tmp_path / "adds.hip").write_text(source)
    toolchain.compile_amd(tmp_path / "adds.hip", tmp_path / "adds.o", ("gfx90a",), ("--cuda-host-only",))
    subprocess.run([str(toolchain.clang), str(tmp_path / "adds.o"), "-pthread", "-o", str(tmp_path / "adds")],
                   check=True)
    result = subprocess.run([str(tmp_path / "adds")], capture_output=True, text=True, check=True)
    assert result.stdout == "2000 1000 1000 1000 30 240 15 15\n"


def test_half_atomic_add_rounds_as_cuda(tmp_path, toolchain):
    """One add whose float sum is not a __half: 2048 + 1 is a tie, rounded to even (2048), and
    2048 + 3 rounds up to 2052; bfloat16 256 + 1 ties to 256, 256 + 3 rounds to 260."""
    source = CONCURRENT_ADDS.format(blocks=_blocks_for("__half") + _blocks_for("__nv_bfloat16"))
    main = source.index("int main()")
    source = source[:main] + """int main() {
  __half2 h = __floats2half2_rn(2048.0f, 2048.0f);
  atomicAdd(&h, __floats2half2_rn(1.0f, 3.0f));
  __hip_bfloat162 b = __halves2bfloat162(__float2bfloat16(256.0f), __float2bfloat16(256.0f));
  atomicAdd(&b, __halves2bfloat162(__float2bfloat16(1.0f), __float2bfloat16(3.0f)));
  printf("%g %g %g %g\\n", __half2float(__low2half(h)), __half2float(__high2half(h)),
         __bfloat162float(__low2bfloat16(b)), __bfloat162float(__high2bfloat16(b)));
  return 0;
}
"""
    (tmp_path / "round.hip").write_text(source)
    toolchain.compile_amd(tmp_path / "round.hip", tmp_path / "round.o", ("gfx90a",), ("--cuda-host-only",))
    subprocess.run([str(toolchain.clang), str(tmp_path / "round.o"), "-pthread", "-o", str(tmp_path / "round")],
                   check=True)
    result = subprocess.run([str(tmp_path / "round")], capture_output=True, text=True, check=True)
    assert result.stdout == "2048 2052 256 260\n"


def test_inserted_blocks_are_shielded_from_the_files_macros():
    """A macro of the file named like a word of the block (``value``, ``mask``) is saved,
    undefined and restored around it; macros defined below the block, or by it, are not."""
    from hipport.port_definitions import shield_from_macros
    source = b"#define value 3\n  #  define mask 0xFFFFFFFF\nint x;\n#define to 1\n"
    block = b"#ifndef G\n#define G\nint f(int value, int mask, int to) { return value + mask + to; }\n#endif\n"
    offset = source.index(b"int x;")
    assert shield_from_macros(source, offset, block) == (
        b'#pragma push_macro("mask")\n#undef mask\n#pragma push_macro("value")\n#undef value\n' + block
        + b'#pragma pop_macro("mask")\n#pragma pop_macro("value")\n')
    assert shield_from_macros(b"#define G 1\nint x;\n", 12, block) == block  # the block's own guard
    assert shield_from_macros(b"int x;\n", 0, block) == block


@pytest.mark.parametrize("where", ["file", "header"])
def test_a_macro_named_like_an_ordinary_word_does_not_reach_the_atomic_definitions(tmp_path, toolchain, where):
    """``#define value 2.0f`` and ``#define address 0`` in the file or in a header it includes
    (which the port does not see): the atomicAdd definitions name only hipport_ words
    (tests/test_inserted_blocks.py), so nothing needs saving around them and they compile."""
    src = tmp_path / "src"
    src.mkdir()
    macros = "#define value 2.0f\n#define address 0\n"
    (src / "m.h").write_text(macros)
    (src / "k.cu").write_text("#include <cuda_fp16.h>\n" + (macros if where == "file" else '#include "m.h"\n')
                              + "__global__ void k(__half* s) { atomicAdd(s, __float2half(value)); }\n")
    convert_tree(src, tmp_path / "out", ConvertOptions())
    ported = tmp_path / "out" / "k.hip"
    text = ported.read_text()
    assert "#ifndef HIPPORT_ATOMIC_ADD_HALF_DEFINED" in text and "push_macro" not in text
    toolchain.compile_amd(ported, tmp_path / "k.o", ("gfx90a",))


def test_a_definition_naming_a_non_identifier_is_a_rule_error(tmp_path, monkeypatch):
    """The names of device_functions.yaml are found as whole words (hipport.alternation.word_matches),
    so a name that is no identifier (``std::foo``) is refused with the file named."""
    import hipport.port_definitions as port_definitions_module
    from hipport.rules import RuleError

    (tmp_path / "definitions").mkdir()
    (tmp_path / "definitions" / "device_functions.yaml").write_text(
        "definitions:\n- guard: G\n  what: w\n  nvidia: ''\n  amd: ''\n  names: {'std::foo': hipFoo}\n")
    monkeypatch.setattr(port_definitions_module, "data_dir", lambda name: tmp_path)
    port_definitions_module.port_definitions.cache_clear()
    try:
        with pytest.raises(RuleError, match="definition 1: the names, overloads and requires must be identifiers"):
            port_definitions_module.port_definitions()
    finally:
        monkeypatch.undo()
        port_definitions_module.port_definitions.cache_clear()
    assert port_definitions_module.port_definitions()  # the shipped file loads again

"""Wavefront-size analysis (hipport/warp.py): flagged inputs, the widened mask, and inputs that
must not be flagged."""

from __future__ import annotations

import json

import pytest

from hipport.convert import ConvertOptions, convert_tree


def port(tmp_path, body, fix=False):
    src = tmp_path / "k.cpp"
    src.write_text(body)
    convert_tree(src, tmp_path / "out", ConvertOptions(fix=fix))
    report = json.loads((tmp_path / "out" / "hipport-report.json").read_text())
    return (tmp_path / "out" / "k.cpp").read_text(), [f"{f['line']}:{f['column']} {f['rule_id']} {f['message']}"
                                                       for f in report["findings"]]


def test_full_masks_are_widened_and_reported(tmp_path):
    text, findings = port(tmp_path, (
        "__device__ float sum(float v) {\n"
        "  for (int o = warpSize / 2; o > 0; o /= 2) v += __shfl_down_sync(0xffffffff, v, o);\n"
        "  return __shfl_sync(0xFFFFFFFFu, v, 0) + __any_sync(0xffffffff, v > 0);\n"
        "}\n"))
    assert text == (
        "__device__ float sum(float v) {\n"
        "  for (int o = warpSize / 2; o > 0; o /= 2) v += __shfl_down_sync(0xffffffffffffffffULL, v, o);\n"
        "  return __shfl_sync(0xffffffffffffffffULL, v, 0) + __any_sync(0xffffffffffffffffULL, v > 0);\n"
        "}\n")
    assert findings == [
        "2:67 HP1101 the full lane mask 0xffffffff of __shfl_down_sync was widened to 0xffffffffffffffffULL: "
        "HIP's warp builtins take 64-bit masks",
        "3:22 HP1101 the full lane mask 0xFFFFFFFFu of __shfl_sync was widened to 0xffffffffffffffffULL: "
        "HIP's warp builtins take 64-bit masks",
        "3:54 HP1101 the full lane mask 0xffffffff of __any_sync was widened to 0xffffffffffffffffULL: "
        "HIP's warp builtins take 64-bit masks",
    ]


def test_32bit_masks_and_ballots(tmp_path):
    _, findings = port(tmp_path, (
        "__device__ int votes(bool p, unsigned m) {\n"
        "  unsigned mask = __ballot_sync(0xffffffffffffffffULL, p);\n"
        "  uint32_t live = __activemask();\n"
        "  int n = __popc(__ballot_sync(m, p));\n"
        "  return __shfl_sync(m, n, 0) + mask + live;\n"
        "}\n"))
    assert [f.split(" HP")[0] + " HP" + f.split(" HP")[1][:4] for f in findings] == [
        "2:19 HP1102", "3:19 HP1102", "4:18 HP1102", "4:32 HP1102", "5:22 HP1102"]
    assert findings[0] == ("2:19 HP1102 __ballot_sync: its result is stored as unsigned, but AMD wavefronts have 64 lanes "
                           "and HIP lane masks are 64-bit")
    assert "__activemask: its result is stored as uint32_t" in findings[1]
    assert "its result is counted with __popc (32 bits)" in findings[2]
    assert "__ballot_sync: the mask m is declared unsigned" in findings[3]
    assert "__shfl_sync: the mask m is declared unsigned" in findings[4]


def test_lane_arithmetic_literals(tmp_path):
    _, findings = port(tmp_path, (
        "__global__ void k(int* out) {\n"
        "  int lane = threadIdx.x % 32;\n"
        "  int warp = threadIdx.x >> 5;\n"
        "  int lane2 = threadIdx.x & 0x1f;\n"
        "  int w = threadIdx.x / 32;\n"
        "  if (laneId == 31) out[warp] = lane + lane2 + w;\n"
        "}\n"))
    assert [f.split(": the literal")[0] for f in findings] == [
        "2:28 HP1103 threadIdx.x % 32", "3:29 HP1103 threadIdx.x >> 5", "4:29 HP1103 threadIdx.x & 0x1f",
        "5:25 HP1103 threadIdx.x / 32", "6:17 HP1103 laneId == 31"]


def test_shuffle_loop_from_16_and_warp_constants_and_shared_arrays(tmp_path):
    _, findings = port(tmp_path, (
        "#define WARP_SIZE 32\n"
        "constexpr int kWarpSize = 32;\n"
        "static_assert(kWarpSize == 32, \"warp\");\n"
        "__device__ float r(float v) {\n"
        "  __shared__ float partial[32];\n"
        "  __shared__ float per_warp[BLOCK / 32];\n"
        "  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_xor_sync(0xffffffffffffffffULL, v, offset);\n"
        "  return v + partial[0] + per_warp[0];\n"
        "}\n"))
    assert [f.split(" ", 2)[:2] for f in findings] == [
        ["1:1", "HP1105"], ["2:15", "HP1105"], ["3:1", "HP1105"], ["5:28", "HP1106"], ["6:29", "HP1106"],
        ["7:21", "HP1104"]]


@pytest.mark.parametrize("body", [
    "int bytes = 32; int x = bytes % 32;\n",                             # 32 as an ordinary constant
    "__shared__ float tile[32][33];\n",                                  # a 2-D tile, unrelated to warps
    "float v[32]; int n = sizeof(v) / 32;\n",                            # array size unrelated to warps
    "for (int i = 16; i > 0; i /= 2) total += i;\n",                     # a loop from 16 without shuffles
    "// int lane = threadIdx.x % 32;  (a comment)\n",
    'const char* s = "__shfl_sync(0xffffffff, v, 0)";\n',
    "unsigned long long mask = __ballot_sync(0xffffffffffffffffULL, p);\n",
    "uint64_t m = __activemask(); int n = __popcll(m);\n",
    "#define BLOCK_SIZE 32\n",
])
def test_inputs_that_must_not_be_flagged(tmp_path, body):
    text, findings = port(tmp_path, "__device__ void f(bool p, float v, int total) {\n" + body + "}\n"
                          if not body.startswith("#") else body)
    assert [f for f in findings if " HP11" in f] == []


def test_fix_applies_the_safe_rewrites(tmp_path):
    text, findings = port(tmp_path, fix=True, body=(
        "__global__ void k(int* out, bool p) {\n"
        "  unsigned mask = __ballot_sync(0xffffffff, p);\n"
        "  int voters = __popc(__ballot_sync(mask, p));\n"
        "  int lane = threadIdx.x % 32;\n"
        "  int warp = threadIdx.x >> 5;\n"
        "  int low = threadIdx.x & 0x1f;\n"
        "  int other = blockIdx.x % 32;\n"
        "  int guess = laneId & 31;\n"
        "  out[warp] = lane + low + voters + other + guess + __shfl_sync(mask, lane, 0);\n"
        "}\n"))
    assert text == (
        "__global__ void k(int* out, bool p) {\n"
        "  unsigned long long mask = __ballot_sync(0xffffffffffffffffULL, p);\n"
        "  int voters = __popcll(__ballot_sync(mask, p));\n"
        "  int lane = threadIdx.x % warpSize;\n"
        "  int warp = threadIdx.x / warpSize;\n"
        "  int low = threadIdx.x & (warpSize - 1);\n"
        "  int other = blockIdx.x % 32;\n"
        "  int guess = laneId & 31;\n"
        "  out[warp] = lane + low + voters + other + guess + __shfl_sync(mask, lane, 0);\n"
        "}\n")
    assert [f.split(" ")[1] for f in findings] == ["HP1107", "HP1101", "HP1107", "HP1107", "HP1107", "HP1107", "HP1103"]
    assert findings[0] == "2:19 HP1107 the result of __ballot_sync: unsigned rewritten to unsigned long long (--fix)"
    assert findings[-1] == "8:24 HP1103 laneId & 31: the literal 31 assumes 32-wide warps"


def test_fixed_code_compiles_for_amd(toolchain, tmp_path):
    body = ("#include <hip/hip_runtime.h>\n"
            "__global__ void k(int* out, bool p) {\n"
            "  unsigned mask = __ballot_sync(0xffffffff, p);\n"
            "  out[threadIdx.x >> 5] = __popc(__ballot_sync(mask, p)) + threadIdx.x % 32;\n"
            "}\n")
    text, _ = port(tmp_path, body, fix=True)
    (tmp_path / "fixed.hip").write_text(text)
    toolchain.compile_amd(tmp_path / "fixed.hip", tmp_path / "fixed.o", ("gfx90a",))
    assert toolchain.code_object_targets(tmp_path / "fixed.o") == ["hipv4-amdgcn-amd-amdhsa--gfx90a"]


def test_syncwarp_and_warp_reductions_are_reported(tmp_path):
    _, findings = port(tmp_path, (
        "__device__ int f(int v) {\n"
        "  __syncwarp();\n"
        "  return __reduce_add_sync(0xffffffff, v);\n"
        "}\n"))
    assert findings == [
        "2:3 HP1108 __syncwarp: HIP has __syncwarp only from HIP 7.0 (ROCm 7)",
        "3:10 HP1109 __reduce_add_sync: HIP has no __reduce_*_sync warp reductions",
        "3:28 HP1101 the full lane mask 0xffffffff of __reduce_add_sync was widened to 0xffffffffffffffffULL: "
        "HIP's warp builtins take 64-bit masks",
    ]


def test_fix_widens_a_full_mask_initializer_with_its_variable(tmp_path):
    text, findings = port(tmp_path, (
        "__device__ int any(bool p) {\n"
        "  unsigned int mask   = 0xffffffff;\n"
        "  return __any_sync(mask, p);\n"
        "}\n"), fix=True)
    assert text.splitlines()[1] == "  unsigned long long mask   = 0xffffffffffffffffULL;"
    assert [f.split(" ")[1] for f in findings] == ["HP1107", "HP1107"]


MASK_HEADER = """\
#pragma once
constexpr unsigned int kFullMask = 0xffffffffu;
#define FULL_MASK 0xffffffff
static const uint32_t kLowMask = 0x0000ffff;  // not the full mask: left alone
const unsigned kOther = 5;  // kFullMask = 0xffffffff in a comment
"""


def test_named_full_mask_constants_outside_functions(tmp_path):
    # Other files pass these to the *_sync builtins, where HIP 6.4 requires 64-bit masks.
    source = tmp_path / "masks.cuh"
    source.write_text(MASK_HEADER)
    report = convert_tree(source, tmp_path / "plain").report
    assert [(f.line, f.rule_id, f.message) for f in report.findings] == [
        (2, "HP1102", "kFullMask: the full mask kFullMask is declared unsigned int, but AMD wavefronts have 64 lanes "
                      "and HIP lane masks are 64-bit"),
        (3, "HP1102", "FULL_MASK: the macro FULL_MASK is the 32-bit full mask, but AMD wavefronts have 64 lanes "
                      "and HIP lane masks are 64-bit"),
    ]
    assert (tmp_path / "plain" / "masks.cuh").read_text() == MASK_HEADER
    convert_tree(source, tmp_path / "fixed", ConvertOptions(fix=True))
    assert (tmp_path / "fixed" / "masks.cuh").read_text().splitlines()[1:3] == [
        "constexpr unsigned long long kFullMask = 0xffffffffffffffffULL;",
        "#define FULL_MASK 0xffffffffffffffffULL",
    ]

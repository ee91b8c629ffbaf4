"""Wavefront-size analysis and ``--fix`` (hipport/warp.py): flagged inputs, the all-or-nothing
rewrite per function (issue 11, point 3), ``warpSize`` as a constant expression (point 4), and
inputs that must not be flagged.

The fixtures in tests/fixtures/warp/ are complete programs (original.cu); for each, fixed.hip is
the exact ``convert --fix`` output, findings-port.txt and findings-fix.txt the exact HP11xx
findings without and with --fix. old_fix.hip is what --fix wrote before issue 11 (the half-fixed
code the issue describes); tests/test_warp_emulated.py runs them all in the wavefront emulator.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from hipport.convert import ConvertOptions, convert_tree
from hipport.warp import _literal_type

FIXTURES = Path(__file__).parent / "fixtures" / "warp"
CASES = sorted(p.name for p in FIXTURES.iterdir() if (p / "original.cu").exists())
#: A function that --fix rewrote has none of these left (HP1101 is the always-applied widening).
ASSUMPTIONS = ("HP1102", "HP1103", "HP1104", "HP1105", "HP1106", "HP1110", "HP1112", "HP1113")
_THROUGH_MACRO = ("hipport follows a collective's result through a macro only where the macro is one shuffle of its "
                  "two parameters (M(v, o): __shfl_down_sync or __shfl_xor_sync) and the call is the step v += M(v, o) "
                  "of a halving loop")
_WIDTH = " (a CUDA warp has 32 lanes, a gfx9 wavefront 64, and the port keeps this code as written)"
#: What the port inserts once, before the first construct whose full mask it widens (HP1101):
#: the lanes of the calling thread's wavefront that its block has.
WAVE_LANES_BLOCK = (
    "#ifndef HIPPORT_WAVE_LANES\n"
    "#define HIPPORT_WAVE_LANES\n"
    "/* hipport (HP1101): CUDA's full warp mask 0xffffffff as the lanes of this thread's wavefront\n"
    "   that the block has: all of them, but in a last wavefront the block fills in part (a block of\n"
    "   32 or 96 threads on a 64-lane gfx9), where HIP traps on a mask naming absent lanes. */\n"
    "#if defined(__HIP_PLATFORM_AMD__) || (defined(__clang__) && defined(__HIP__))\n"
    "__device__ inline unsigned long long hipport_wave_lanes() {\n"
    "  unsigned int hipport_threads = blockDim.x * blockDim.y * blockDim.z;\n"
    "  unsigned int hipport_first = (threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z))\n"
    "      / warpSize * warpSize;\n"
    "  unsigned int hipport_lanes = hipport_threads - hipport_first;\n"
    "  return hipport_lanes >= 64u ? ~0ull : (1ull << hipport_lanes) - 1ull;\n"
    "}\n"
    "#else\n"
    "#define hipport_wave_lanes() 0xffffffffu\n"
    "#endif\n"
    "#endif\n")


def port(tmp_path, body, fix=False, name="k.cpp"):
    src = tmp_path / name
    src.write_text(body)
    out = tmp_path / ("fixed" if fix else "out")
    convert_tree(src, out, ConvertOptions(fix=fix))
    report = json.loads((out / "hipport-report.json").read_text())
    return (out / (name[:-3] + ".hip" if name.endswith(".cu") else name)).read_text(), [f"{f['line']}:{f['column']} {f['rule_id']} {f['message']}"
                                      for f in report["findings"] if f["rule_id"].startswith("HP11")]


def convert_fixture(case: str, tmp_path: Path, fix: bool) -> tuple[str, list[str]]:
    out = tmp_path / (case + ("-fix" if fix else "-port"))
    report = convert_tree(FIXTURES / case / "original.cu", out, ConvertOptions(fix=fix)).report
    return (out / "original.hip").read_text(), [f"{f.line}:{f.column} {f.rule_id} {f.message}"
                                                 for f in report.findings if f.rule_id.startswith("HP11")]



def logical_warp_reasons(findings: list[str]) -> list[str]:
    """The reasons HP1116 gives (after "because") for running units as 32-lane logical warps."""
    return [f.split(" because ")[1] for f in findings if " HP1116 " in f]

def test_full_masks_are_widened_and_reported(tmp_path):
    text, findings = port(tmp_path, (
        "__device__ float sum(float v) {\n"
        "  for (int o = warpSize / 2; o > 0; o /= 2) v += __shfl_down_sync(0xffffffff, v, o);\n"
        "  return __shfl_sync(0xFFFFFFFFu, v, 0) + __any_sync(0xffffffff, v > 0);\n"
        "}\n"))
    assert text == WAVE_LANES_BLOCK + (
        "__device__ float sum(float v) {\n"
        "  for (int o = warpSize / 2; o > 0; o /= 2) v += __shfl_down_sync(hipport_wave_lanes(), v, o);\n"
        "  return __shfl_sync(hipport_wave_lanes(), v, 0) + __any_sync(hipport_wave_lanes(), v > 0);\n"
        "}\n")
    assert findings == [
        "2:67 HP1101 the full lane mask 0xffffffff of __shfl_down_sync was widened to hipport_wave_lanes(), the lanes of its wavefront: "
        "HIP's warp builtins take 64-bit masks",
        "3:22 HP1101 the full lane mask 0xFFFFFFFFu of __shfl_sync was widened to hipport_wave_lanes(), the lanes of its wavefront: "
        "HIP's warp builtins take 64-bit masks",
        "3:54 HP1101 the full lane mask 0xffffffff of __any_sync was widened to hipport_wave_lanes(), the lanes of its wavefront: "
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
        "  if (laneId == 31) out[warp] = lane + lane2 + w + blockDim.x / 32 + blockDim.x * 32;\n"
        "}\n"))
    assert [f.split(": the literal")[0] for f in findings] == [
        "2:28 HP1103 threadIdx.x % 32", "3:29 HP1103 threadIdx.x >> 5", "4:29 HP1103 threadIdx.x & 0x1f",
        "5:25 HP1103 threadIdx.x / 32", "6:17 HP1103 laneId == 31", "6:65 HP1103 blockDim.x / 32"]


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
        ["1:9", "HP1105"], ["2:15", "HP1105"], ["3:1", "HP1105"], ["5:28", "HP1106"], ["6:29", "HP1106"],
        ["7:21", "HP1104"]]
    assert findings[-1] == ("7:21 HP1104 shuffle reduction starts at offset 16 (for (int offset = 16; offset > 0; "
                            "offset >>= 1)): on a 64-wide wavefront lanes 32-63 are never combined")


@pytest.mark.parametrize("body", [
    "int bytes = 32; int x = bytes % 32;\n",                             # 32 as an ordinary constant
    "__shared__ float tile[32][33];\n",                                  # a 2-D tile, unrelated to warps
    "float v[32]; int n = sizeof(v) / 32;\n",                            # array size unrelated to warps
    "for (int i = 16; i > 0; i /= 2) total += i;\n",                     # a loop from 16 without shuffles
    "// int lane = threadIdx.x % 32;  (a comment)\n",
    'const char* s = "__shfl_sync(0xffffffff, v, 0)";\n',
    "unsigned long long mask = __ballot_sync(0xffffffffffffffffULL, p);\n",
    "uint64_t m = __activemask(); int n = __popcll(m);\n",
    "int bits = 1u << 4; int k = total << 5;\n",                         # shifts that are no lane masks
    "int pixels = blockDim.x * 32;\n",                                   # blockDim counts warps only by / 32
    "for (int o = warpSize / 2; o > 0; o /= 2) v += __shfl_xor(v, o);\n",
    "#define BLOCK_SIZE 32\n",
])
def test_inputs_that_must_not_be_flagged(tmp_path, body):
    for fix in (False, True):
        text, findings = port(tmp_path, "__device__ void f(bool p, float v, int total) {\n" + body + "}\n"
                              if not body.startswith("#") else body, fix=fix)
        assert findings == []


# -- --fix: all or nothing per function (issue 11, point 3) ---------------------------------------

@pytest.mark.parametrize("case", CASES)
def test_fixture_fix_output_is_exact(case, tmp_path):
    text, findings = convert_fixture(case, tmp_path, fix=True)
    assert text == (FIXTURES / case / "fixed.hip").read_text()
    assert findings == (FIXTURES / case / "findings-fix.txt").read_text().splitlines()
    _, plain = convert_fixture(case, tmp_path, fix=False)
    assert plain == (FIXTURES / case / "findings-port.txt").read_text().splitlines()


def test_issue_input_1_ballot_rank_runs_as_logical_warps(tmp_path):
    """The issue's first input: widening it would be right (the ranks and the per-warp counts
    combine into the same block offsets), but not shown so by hipport.lane_flow: the rank, a
    result over the warp, indexes global memory. So --fix runs it whole as 32-lane logical warps
    (HP1116, which names that use): CUDA's 32-bit ballots, __popc and 1u << lane stay right, on
    each 32-lane half. count_positive is launched by the same main, and goes with it."""
    text, findings = convert_fixture("ballot_rank", tmp_path, fix=True)
    kernel = text.split("__global__ void compact_positive")[1].split("\n}\n")[0]
    assert "    int lane = threadIdx.x % 32;\n" in kernel
    assert "    unsigned m = hipport_warp32_ballot_sync(hipport_wave_lanes(), x > 0);\n" in kernel
    assert "    int rank = __popc(m & ((1u << lane) - 1));\n" in kernel
    counter = text.split("__global__ void count_positive")[1].split("\n}\n")[0]
    assert "    unsigned b = hipport_warp32_ballot_sync(" in counter
    assert [f.split(" --fix ported ")[1].split(" as ")[0] for f in findings if " HP1116 " in f] == [
        "compact_positive", "count_positive"]
    assert ("it was not widened because the warp-collective value `rank` (line 25) makes the result depend on the "
            "warp's width: it indexes memory") in findings[0]
    assert not [f for f in findings if f.split()[1] in ASSUMPTIONS + ("HP1111", "HP1107")]


def test_issue_input_2_block_sum_fixed_whole(tmp_path):
    text, _ = convert_fixture("block_sum", tmp_path, fix=True)
    assert "    int lane = threadIdx.x % warpSize, wid = threadIdx.x / warpSize;\n" in text
    assert "    for (int o = warpSize / 2; o > 0; o >>= 1) v += __shfl_down_sync(hipport_wave_lanes(), v, o);\n" in text
    assert "    for (int w = 0; w < (blockDim.x + warpSize - 1) / warpSize; ++w) t += s[w];\n" in text
    assert "    __shared__ float s[32];\n" in text


def test_warp_size_define_and_its_neighbours_run_as_logical_warps(tmp_path):
    """The WARP_SIZE case: the define and the literal 32 beside it would have to change together,
    but the second reduction over the per-warp slots (warp 0 reads them by lane number) is not
    shown right when widened (hipport.lane_flow), so the define stays 32 and the three functions
    tied by it run as 32-lane logical warps, where its 32 is right."""
    text, findings = convert_fixture("warp_size_define", tmp_path, fix=True)
    assert "\n#define WARP_SIZE 32\n" in text
    assert "    __shared__ float partial[WARP_SIZE];\n" in text
    assert "    const int lane = threadIdx.x % 32;\n" in text
    assert "hipport_warp32_shfl_down_sync(hipport_wave_lanes(), v, o)" in text
    assert [f.split(" --fix ported ")[1].split(" as ")[0] for f in findings if " HP1116 " in f] == [
        "warp_reduce", "warp_max", "block_stats"]
    assert not [f for f in findings if f.split()[1] in ASSUMPTIONS + ("HP1111", "HP1107")]


def test_a_function_fix_cannot_widen_runs_as_logical_warps_with_its_callers(tmp_path):
    """ballot_out_param: the ballot leaves through a 32-bit pointer, so the widening leaves
    rank_in_warp and ranks, which calls it; both run as 32-lane logical warps instead (HP1116):
    the plain port with its ballot renamed to hipport_warp32_ballot_sync, defined before them."""
    fixed, findings = convert_fixture("ballot_out_param", tmp_path, fix=True)
    plain, plain_findings = convert_fixture("ballot_out_param", tmp_path, fix=False)
    assert without_logical_warps(fixed) == plain
    assert "    unsigned ballot = hipport_warp32_ballot_sync(hipport_wave_lanes(), predicate);\n" in fixed
    reason = ("the lane mask `ballot` is used in `*ballot_out = ballot;` (line 15), which --fix cannot widen to 64 bits")
    assert [f for f in findings if " HP1116 " in f] == [
        logical("12:16", "rank_in_warp") + reason,
        logical("19:17", "ranks") + reason,
    ]
    assert [f for f in findings if " HP1116 " not in f] == [f for f in plain_findings if " HP1101 " in f]
    assert not [f for f in findings if " HP1107 " in f or " HP1111 " in f]


#: The widening declines and so do 32-lane logical warps (HP1116): a name whose width is decided elsewhere.
SAME_FOR_LOGICAL = "; nor can it run as 32-lane logical warps, for the same reason"

LEFT_AS_WRITTEN = [
    pytest.param(
        "__global__ void k(int* out) {\n"
        "  out[threadIdx.x] = threadIdx.x % 32 + threadIdx.x / WARP_SIZE;\n"
        "}\n",
        "1:17 HP1111 --fix left k as written: WARP_SIZE (line 2) is a warp-size constant that --fix cannot rewrite "
        "here (not `= 32` in this file)" + SAME_FOR_LOGICAL,
        id="warp-size-from-another-file"),
    pytest.param(
        "__global__ void k(int* out) { out[threadIdx.x / 32] = lane_id(); }\n",
        "1:17 HP1111 --fix left k as written: it calls lane_id (line 1), defined in another file: --fix cannot tell "
        "which wavefront width that function assumes" + SAME_FOR_LOGICAL,
        id="calls-a-wavefront-helper-of-another-file"),
    pytest.param(
        "constexpr int kWarps = 256 / WARP_SIZE;\n"
        "__global__ void k(int* out) { if (threadIdx.x % 32 < kWarps) out[threadIdx.x] = 1; }\n",
        "2:17 HP1111 --fix left k as written: WARP_SIZE (line 1) is a warp-size constant that --fix cannot rewrite "
        "here (not `= 32` in this file)" + SAME_FOR_LOGICAL,
        id="uses-a-file-scope-warp-count"),
]


def logical(at: str, name: str) -> str:
    """The start of the HP1116 line for function ``name`` at ``line:column`` ``at``, up to its reason."""
    return (f"{at} HP1116 --fix ported {name} as 32-lane logical warps: its shuffles, votes and warpSize act on "
            "32-lane halves of the wavefront (hipport_warp32_* helpers), so its 32-wide logic holds at wavefront "
            "widths 32 and 64; it was not widened because ")


_HELPER_BLOCK = re.compile(r"/\* hipport --fix \(HP1116\).*?\*/\n(?:#ifndef HIPPORT_WARP32_\w+\n.*?\n#endif\n#endif\n)+", re.S)


def without_logical_warps(text: str) -> str:
    """``text`` less the hipport_warp32_* helpers block, with each helper named as the CUDA
    intrinsic it stands for (what the plain port has)."""
    return _HELPER_BLOCK.sub("", text).replace("hipport_warp32_", "__")


#: Units the widening declines (the reason is the one HP1111 gave before HP1116) and that --fix
#: runs as 32-lane logical warps instead: one HP1116 per device function of the unit.
RUN_AS_LOGICAL_WARPS = [
    pytest.param(
        "__global__ void k(int* out) {\n"
        "  int lane = threadIdx.x % 32;\n"
        "  if (lane == 31) out[threadIdx.x / 32] = lane;\n"
        "}\n",
        logical("1:17", "k") + "lane == 31 (line 3) has no rewrite known to be right at both widths",
        id="lane-31"),
    pytest.param(
        "#define WARP_SIZE 32\n"
        "template <int W> __device__ int width() { return W; }\n"
        "__global__ void k(int* out) {\n"
        "  out[threadIdx.x] = threadIdx.x % WARP_SIZE + width<WARP_SIZE>();\n"
        "}\n",
        logical("3:17", "k") + "WARP_SIZE is used as a template argument (line 4)",
        id="define-as-template-argument"),
    pytest.param(
        "#define WARP_SIZE 32\n"
        "__global__ void k(int* out) { out[threadIdx.x] = threadIdx.x % WARP_SIZE; }\n"
        "void host(int n) { int warps = n / WARP_SIZE; (void)warps; }\n",
        logical("2:17", "k") + "WARP_SIZE is used in host code, which has no warpSize (line 3)",
        id="define-used-on-the-host"),
    pytest.param(
        "__device__ bool is_last(int lane) { return lane == 31; }\n"
        "__global__ void k(int* out) { out[threadIdx.x] = is_last(threadIdx.x % 32) + threadIdx.x / 32; }\n",
        logical("2:17", "k") + "lane == 31 (line 1) has no rewrite known to be right at both widths",
        id="calls-a-function-left-as-written"),
    pytest.param(
        "__device__ float r(float v) {\n"
        "  for (int o = 16; o != 0; o -= 8) v += __shfl_down_sync(0xffffffff, v, o);\n"
        "  return v + __shfl_xor_sync(0xffffffff, v, 16);\n"
        "}\n",
        logical("1:18", "r") + "the shuffle loop `for (int o = 16; o != 0; o -= 8)` (line 2) is not a plain "
        "halving loop",
        id="odd-shuffle-loop"),
    pytest.param(
        "__global__ void k(float* out) {\n"
        "  __shared__ float s[32];\n"
        "  for (int i = 0; i < 32; ++i) s[i] = 0;\n"
        "  out[threadIdx.x] = s[threadIdx.x / 32];\n"
        "}\n",
        logical("1:17", "k") + "the __shared__ array s is indexed by `i` (line 3), neither a lane nor a "
        "warp number",
        id="shared-array-unknown-index"),
    pytest.param(
        "__global__ void k(int* out) {\n"
        "  { unsigned int mask = 0xffffffff; out[0] = __shfl_sync(mask, 1, 0); }\n"
        "  { int mask = 3; out[1] = __shfl_sync(mask, 1, 0); }\n"
        "}\n",
        logical("1:17", "k") + "the mask mask is declared more than once in k, and --fix does not "
        "follow C++ scopes",
        id="one-name-two-masks"),
    pytest.param(
        "__device__ int vote(unsigned mask, bool p);\n"
        "__device__ int vote(unsigned mask, bool p) { return __any_sync(mask, p); }\n",
        logical("2:16", "vote") + "the mask parameter mask of vote is declared elsewhere too "
        "(a prototype must change with it)",
        id="mask-parameter-with-a-prototype"),
    pytest.param(
        "template <class T> __device__ T sum(unsigned int mask, T v) { return v + __shfl_down_sync(mask, v, 1); }\n"
        "template <> __device__ int sum<int>(unsigned int mask, int v) { return v + __shfl_down_sync(mask, v, 1); }\n"
        "__global__ void k(int* out, unsigned* masks) { out[0] = sum<int>(masks[0], 1); }\n",
        logical("1:33", "sum") + "the mask parameter mask of sum is declared elsewhere too "
        "(a prototype must change with it)",
        id="specialization-with-its-primary-template"),
]


@pytest.mark.parametrize("body, skipped", LEFT_AS_WRITTEN)
def test_fix_leaves_the_whole_function(tmp_path, body, skipped):
    plain, plain_findings = port(tmp_path, body)
    fixed, findings = port(tmp_path, body, fix=True)
    assert fixed == plain  # nothing of the function changed (the always-widened full masks aside, as in the port)
    assert skipped in findings
    assert not [f for f in findings if " HP1107 " in f]


@pytest.mark.parametrize("body, logical_line", RUN_AS_LOGICAL_WARPS)
def test_fix_runs_what_it_cannot_widen_as_32_lane_logical_warps(tmp_path, body, logical_line):
    """The widening declines the unit; it runs as 32-lane logical warps instead (HP1116): its
    warp intrinsics renamed to the hipport_warp32_* helpers defined before it, nothing else
    changed, no HP1111 and none of the 32-wide assumption findings (they hold now)."""
    plain, plain_findings = port(tmp_path, body)
    fixed, findings = port(tmp_path, body, fix=True)
    assert without_logical_warps(fixed) == plain
    assert ("hipport_warp32_" in fixed) == ("_sync(" in body)
    assert logical_line in findings
    assert not [f for f in findings if f.split()[1] in ASSUMPTIONS + ("HP1107", "HP1111")]
    assert [f for f in findings if " HP1116 " not in f] == [f for f in plain_findings if " HP1101 " in f]


def test_fix_takes_specifiers_written_as_a_macro_for_device_code(tmp_path):
    """lane_of's specifiers are LANE_FN, a macro of the tree's lanes.h: it is device code, so
    WARP_SIZE, used there and in the kernel, becomes warpSize (before, lane_of counted as host
    code and --fix left the define and both functions, HP1111 'used in host code')."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "lanes.h").write_text("#define LANE_FN __device__ __forceinline__\n")
    (src / "k.cu").write_text(
        "#include \"lanes.h\"\n"
        "#define WARP_SIZE 32\n"
        "LANE_FN int lane_id_of(int t) { return t % WARP_SIZE; }\n"
        "__global__ void k(const int* in, int* out) { int v = in[threadIdx.x]; for (int o = WARP_SIZE / 2; o > 0; o >>= 1) "
        "v += __shfl_down_sync(0xffffffffffffffff, v, o); if (lane_id_of(threadIdx.x) == 0) atomicAdd(out, v); }\n")
    out = tmp_path / "out"
    report = convert_tree(src, out, ConvertOptions(fix=True, jobs=1)).report
    assert [f"{f.line}:{f.column} {f.rule_id} {f.message}" for f in report.findings if f.rule_id.startswith("HP11")] == [
        "2:9 HP1107 the macro WARP_SIZE: 32 rewritten to warpSize (--fix)"]
    assert (out / "k.hip").read_text().split("\n")[2] == "#define WARP_SIZE warpSize"


def test_fix_tree_pass_takes_a_header_function_declared_with_a_macro(tmp_path):
    """lanes.cuh defines lane_id with LANE_FN (``__device__``): the tree pass knows it as a
    device function of the tree, so k, which calls it, is rewritten with it (before, k was
    left as written: 'calls lane_id, defined in another file')."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "lanes.cuh").write_text("#define LANE_FN __device__\nLANE_FN int lane_id() { return threadIdx.x % 32; }\n")
    (src / "a.cu").write_text(
        "#include \"lanes.cuh\"\n__global__ void k(int* o) { if (lane_id() == 0 && threadIdx.x % 32 == 0) o[threadIdx.x] = 1; }\n")
    report = convert_tree(src, tmp_path / "out", ConvertOptions(fix=True, jobs=1)).report
    assert [f"{f.path}:{f.line}:{f.column} {f.rule_id} {f.message}" for f in report.findings
            if f.rule_id.startswith("HP11")] == [
        "a.cu:2:65 HP1107 lane arithmetic: % 32 rewritten to % warpSize (--fix)",
        "lanes.cuh:2:46 HP1107 lane arithmetic: % 32 rewritten to % warpSize (--fix)",
    ]


def test_fix_of_a_function_never_leaves_an_assumption_in_it(tmp_path):
    """HP1107 never says 'nothing to do' for a function that still has a 32-wide assumption:
    over every fixture and every left-as-written input, a function with an HP1107 finding has
    no other HP11xx finding but the always-applied HP1101."""
    bodies = [(FIXTURES / case / "original.cu").read_text() for case in CASES] + [p.values[0] for p in LEFT_AS_WRITTEN]
    for index, body in enumerate(bodies):
        source = tmp_path / f"k{index}.cu"
        source.write_text(body)
        report = convert_tree(source, tmp_path / f"o{index}", ConvertOptions(fix=True)).report
        spans = _function_spans(body)
        fixed = {span for f in report.findings if f.rule_id == "HP1107" for span in spans if span[0] <= f.line <= span[1]}
        left = [f for f in report.findings if f.rule_id in ASSUMPTIONS + ("HP1111",)
                and any(s[0] <= f.line <= s[1] for s in fixed)]
        assert left == [], body


def _function_spans(text: str) -> list[tuple[int, int]]:
    from hipport.parse import new_parser
    tree = new_parser().parse(text.encode())
    spans, stack = [], [tree.root_node]
    while stack:
        node = stack.pop()
        if node.type == "function_definition":
            spans.append((node.start_point[0] + 1, node.end_point[0] + 1))
        stack.extend(node.children)
    return spans


def test_corpus_warp_shuffle_scan_runs_as_logical_warps_where_its_header_decides(tmp_path):
    """corpus/projects/warp_shuffle_scan keeps its warp size in a header (kWarpSize), which the
    .cu files use directly and through lane_id() and friends: the tree pass of --fix joins every
    function of the tree into one unit, which some uses block from widening (a ballot stored
    through a 32-bit pointer in rank_in_warp, kWarpSize in constexpr initialisers such as kBins =
    kWarpSize, the histogram's bins = lanes). Every device function of it, in every file, runs
    as 32-lane logical warps instead (HP1116, the reason naming its file's blocker; the full
    mask constant, right at both widths, is still widened, and the calls passing it pass
    hipport_wave_lanes()); tests/test_emulator.py runs it."""
    from helpers import CORPUS_PROJECTS
    report = convert_tree(CORPUS_PROJECTS / "warp_shuffle_scan", tmp_path / "out", ConvertOptions(fix=True)).report
    assert [(f.path, f.line, f.message) for f in report.findings if f.rule_id == "HP1107"] == [
        ("include/scan/warp_primitives.cuh", 12, "the mask kFullMask: unsigned int rewritten to unsigned long long (--fix)"),
        ("include/scan/warp_primitives.cuh", 12, "the mask kFullMask: 0xffffffffu rewritten to 0xffffffffffffffffULL (--fix)"),
    ]
    assert not [f for f in report.findings if f.rule_id == "HP1111" or f.severity == "error"]
    logical = [(f.path, f.line, f.message.split(" as 32-lane")[0]) for f in report.findings if f.rule_id == "HP1116"]
    assert logical == [
        ("include/scan/warp_primitives.cuh", 14, "--fix ported lane_id"),
        ("include/scan/warp_primitives.cuh", 19, "--fix ported warp_id"),
        ("include/scan/warp_primitives.cuh", 25, "--fix ported warp_inclusive_scan"),
        ("include/scan/warp_primitives.cuh", 39, "--fix ported warp_sum"),
        ("include/scan/warp_primitives.cuh", 49, "--fix ported warp_max"),
        ("include/scan/warp_primitives.cuh", 59, "--fix ported rank_in_warp"),
        ("src/compact.cu", 16, "--fix ported count_positive"),
        ("src/compact.cu", 39, "--fix ported scatter_positive"),
        ("src/histogram.cu", 20, "--fix ported histogram32_kernel"),
        ("src/scan.cu", 28, "--fix ported scan_tiles"),
        ("src/scan.cu", 76, "--fix ported add_tile_offsets"),
    ]
    reasons = {(f.path, f.line): f.message.split("not widened because ")[1] for f in report.findings
               if f.rule_id == "HP1116"}
    assert reasons[("src/histogram.cu", 20)] == (
        "kWarpSize is used as a constexpr initialiser (line 17: `kBins = kWarpSize`), and --fix has no rewrite for a "
        "compile-time constant derived from the warp size (warpSize is a run-time value in ROCm 7)")
    assert reasons[("include/scan/warp_primitives.cuh", 59)] == (
        "the lane mask `ballot` is used in `*ballot_out = ballot;` (line 63), which --fix cannot widen to 64 bits")
    ported = (tmp_path / "out" / "src" / "compact.hip").read_text()
    assert "        const unsigned int ballot = hipport_warp32_ballot_sync(hipport_wave_lanes(), keep);\n" in ported
    header = (tmp_path / "out" / "include" / "scan" / "warp_primitives.cuh").read_text()
    assert "constexpr int kWarpSize = 32;\n" in header
    assert "        const int up = hipport_warp32_shfl_up_sync(hipport_wave_lanes(), value, offset);\n" in header


def test_header_warp_size_constant_is_left_for_the_files_that_include_it(tmp_path):
    header = ("#pragma once\n"
              "constexpr int kWarpSize = 32;\n"
              "__device__ inline int lane_id() { return threadIdx.x & (kWarpSize - 1); }\n")
    text, findings = port(tmp_path, header, fix=True, name="warp.cuh")
    assert text == header
    assert findings == [
        "2:15 HP1105 kWarpSize (constant) fixes the warp size at 32",
        "2:15 HP1111 --fix left the definition of kWarpSize as written: kWarpSize is defined in a header: the files "
        "that include it use it too" + SAME_FOR_LOGICAL,
        "3:23 HP1111 --fix left lane_id as written: kWarpSize is defined in a header: the files that include it use it "
        "too" + SAME_FOR_LOGICAL,
    ]


def test_constexpr_warp_size_constant_in_a_source_file(tmp_path):
    text, findings = port(tmp_path, (
        "constexpr int kWarpSize = 32;\n"
        "__global__ void k(float* out) {\n"
        "  __shared__ float per_lane[kWarpSize];\n"
        "  __shared__ float per_warp[1024 / kWarpSize];\n"
        "  int lane = threadIdx.x & (kWarpSize - 1);\n"
        "  per_lane[lane] = 1.0f; per_warp[threadIdx.x / kWarpSize] = 2.0f;\n"
        "  out[threadIdx.x] = per_lane[lane] + per_warp[0];\n"
        "}\n"), fix=True, name="k.cu")
    assert text == (
        "#include <hip/hip_runtime.h>\n"
        "constexpr int kWarpSize = 32;\n"
        "#ifndef HIPPORT_WAVEFRONT_MAX\n"
        "#define HIPPORT_WAVEFRONT_MAX 64 /* hipport --fix: the widest wavefront (gfx9); sizes per-lane arrays */\n"
        "#define HIPPORT_WAVEFRONT_MIN 32 /* hipport --fix: the narrowest; sizes per-wavefront arrays */\n"
        "#endif\n"
        "__global__ void k(float* out) {\n"
        "  __shared__ float per_lane[HIPPORT_WAVEFRONT_MAX];\n"
        "  __shared__ float per_warp[1024 / HIPPORT_WAVEFRONT_MIN];\n"
        "  int lane = threadIdx.x & (warpSize - 1);\n"
        "  per_lane[lane] = 1.0f; per_warp[threadIdx.x / warpSize] = 2.0f;\n"
        "  out[threadIdx.x] = per_lane[lane] + per_warp[0];\n"
        "}\n")
    assert [f.split(" (--fix)")[0] for f in findings] == [
        "3:29 HP1107 the array size kWarpSize: kWarpSize rewritten to HIPPORT_WAVEFRONT_MAX",
        "4:36 HP1107 the array size kWarpSize: kWarpSize rewritten to HIPPORT_WAVEFRONT_MIN",
        "5:29 HP1107 the warp size: kWarpSize rewritten to warpSize",
        "6:49 HP1107 the warp size: kWarpSize rewritten to warpSize",
    ]


# -- warpSize as a constant expression (issue 11, point 4) ---------------------------------------

CONSTANT_EXPRESSIONS = (
    "template <int W> struct Tile { float v[W]; };\n"
    "__global__ void k(float* out) {\n"
    "  __shared__ float lanes[warpSize];\n"
    "  __shared__ float warps[1024 / warpSize];\n"
    "  Tile<warpSize> tile;\n"
    "  static_assert(warpSize == 64, \"wave64 only\");\n"
    "  constexpr int half = warpSize / 2;\n"
    "  switch (threadIdx.x) { case warpSize: break; }\n"
    "  out[threadIdx.x % warpSize] = lanes[0] + warps[0] + tile.v[0] + half;\n"
    "}\n"
    "__global__ void sized(float* out) { __shared__ float s[2 * warpSize + 1]; s[threadIdx.x % warpSize] = 0; out[0] = s[0]; }\n"
    "__device__ int legacy() { return __AMDGCN_WAVEFRONT_SIZE; }\n"
)


def test_warpsize_as_a_constant_expression_is_reported(tmp_path):
    _, findings = port(tmp_path, CONSTANT_EXPRESSIONS)
    tail = ": ROCm 7 made warpSize a run-time value, so this compiles with HIP 6 only"
    assert findings == [
        "3:26 HP1113 warpSize is used as an array size" + tail,
        "4:33 HP1113 warpSize is used as an array size" + tail,
        "5:8 HP1113 warpSize is used as a template argument" + tail,
        "6:17 HP1113 warpSize is used as a static_assert" + tail,
        "7:24 HP1113 warpSize is used as a constexpr initialiser" + tail,
        "8:31 HP1113 warpSize is used as a case label" + tail,
        "11:60 HP1113 warpSize is used as an array size" + tail,
        "12:34 HP1114 __AMDGCN_WAVEFRONT_SIZE is deprecated in ROCm 7: it is defined only in device compilation, "
        "and per target",
    ]


def test_fix_bounds_array_sizes_and_leaves_other_constant_uses(tmp_path):
    text, findings = port(tmp_path, CONSTANT_EXPRESSIONS, fix=True)
    lines = text.splitlines()
    # k has a template argument: not widened; it runs as 32-lane logical warps, where warpSize is 32
    k = lines.index("__global__ void k(float* out) {")
    assert lines[k + 1:k + 4] == ["  __shared__ float lanes[32];", "  __shared__ float warps[1024 / 32];",
                                  "  Tile<32> tile;"]
    assert logical("2:17", "k") + "warpSize is used as a template argument (line 5)" in findings
    assert not [f for f in findings if " HP1111 " in f or f.startswith(("3:", "4:", "5:", "6:", "7:", "8:"))]
    assert "#define HIPPORT_WAVEFRONT_MAX 64 " in text
    sized = next(line for line in lines if line.startswith("__global__ void sized"))
    assert sized == ("__global__ void sized(float* out) { __shared__ float s[2 * HIPPORT_WAVEFRONT_MAX + 1]; "
                     "s[threadIdx.x % warpSize] = 0; out[0] = s[0]; }")
    assert lines.index(sized) > lines.index("#endif")


@pytest.mark.parametrize("case", CASES)
def test_fixed_fixture_has_no_constant_warpsize_and_nothing_left_to_fix(case, tmp_path):
    """--fix never writes warpSize where a constant expression is needed: the fixed output,
    checked again, has no HP1113, and a second --fix changes nothing."""
    source = tmp_path / "again.hip"
    source.write_text((FIXTURES / case / "fixed.hip").read_text())
    report = convert_tree(source, tmp_path / "again", ConvertOptions(fix=True)).report
    assert not [f for f in report.findings if f.rule_id == "HP1113"]
    assert (tmp_path / "again" / "again.hip").read_text() == source.read_text()


@pytest.mark.parametrize("case", CASES)
def test_fixed_fixture_compiles_for_wave64_and_wave32(case, toolchain, tmp_path):
    """gfx90a (wave64) and gfx1100 (wave32), with HIP 6.4's constexpr warpSize and with warpSize
    replaced by ROCm 7's run-time __builtin_amdgcn_wavefrontsize() in the fixture's code."""
    fixed = (FIXTURES / case / "fixed.hip").read_text()
    rocm7 = tmp_path / "rocm7.hip"
    rocm7.write_text(re.sub(r"\bwarpSize\b", "__builtin_amdgcn_wavefrontsize()", fixed))
    for source in (FIXTURES / case / "fixed.hip", rocm7):
        toolchain.compile_amd(source, tmp_path / "fixed.o", ("gfx90a", "gfx1100"))
        assert toolchain.code_object_targets(tmp_path / "fixed.o") == [
            "hipv4-amdgcn-amd-amdhsa--gfx1100", "hipv4-amdgcn-amd-amdhsa--gfx90a"]


def test_the_rocm7_stand_in_rejects_a_constant_warpsize(toolchain, tmp_path):
    """The stand-in above is a real check: an array sized by warpSize does not compile with it."""
    source = tmp_path / "constant.hip"
    source.write_text("#include <hip/hip_runtime.h>\n"
                      "__global__ void k(float* o) { __shared__ float s[__builtin_amdgcn_wavefrontsize()];"
                      " s[threadIdx.x] = 1; o[0] = s[0]; }\n")
    with pytest.raises(Exception, match="variable length array"):
        toolchain.compile_amd(source, tmp_path / "constant.o", ("gfx90a",))


def test_syncwarp_and_warp_reductions_are_reported(tmp_path):
    _, findings = port(tmp_path, (
        "__device__ int f(int v) {\n"
        "  __syncwarp();\n"
        "  return __reduce_add_sync(0xffffffff, v);\n"
        "}\n"))
    assert findings == [
        "1:16 HP1117 f: it returns a warp-collective result to callers that are not seen: no code of its file calls "
        "it (an extern function called from another file, or a header's function with no caller here) (a CUDA warp "
        "has 32 lanes, a gfx9 wavefront 64, and the port keeps this code as written)",
        "2:3 HP1108 __syncwarp: HIP has __syncwarp only from HIP 7.0 (ROCm 7)",
        "3:10 HP1109 __reduce_add_sync: HIP has no __reduce_*_sync warp reductions",
        "3:28 HP1101 the full lane mask 0xffffffff of __reduce_add_sync was widened to hipport_wave_lanes(), the lanes of its wavefront: "
        "HIP's warp builtins take 64-bit masks",
    ]


def test_masks_in_macro_bodies_and_full_mask_casts(tmp_path):
    """A *_sync call written in a macro body: its full 32-bit mask (a literal, or -1 cast to a
    32-bit unsigned type) is widened there, as at a call, any other 32-bit mask is reported at
    the body (clang's error lands in HIP's header with a note at the macro); a full-mask cast at
    a call is widened like 0xffffffff."""
    text, findings = port(tmp_path, (
        "#define SHFL_XOR(v, m) __shfl_xor_sync(uint32_t(-1), v, m)\n"
        "#define SHFL(v, l) \\\n"
        "  __shfl_sync(0xffffffff, v, l)\n"
        "#define HALF(v) __shfl_down_sync(0xffffu, v, 1)\n"
        "__device__ float f(float v) {\n"
        "  v += SHFL_XOR(v, 1) + SHFL(v, 0) + HALF(v);\n"
        "  v += __shfl_xor_sync(unsigned(-1), v, 2) + __shfl_xor_sync((uint32_t)~0u, v, 4);\n"
        "  return __shfl_sync(static_cast<unsigned int>(0xffffffffu), v, 0);\n"
        "}\n"), fix=False)
    assert text.startswith(WAVE_LANES_BLOCK)
    lines = text[len(WAVE_LANES_BLOCK):].splitlines()
    assert lines[0] == "#define SHFL_XOR(v, m) __shfl_xor_sync(hipport_wave_lanes(), v, m)"
    assert lines[2] == "  __shfl_sync(hipport_wave_lanes(), v, l)"
    assert lines[3] == "#define HALF(v) __shfl_down_sync(0xffffu, v, 1)"
    assert lines[6] == ("  v += __shfl_xor_sync(hipport_wave_lanes(), v, 2) + "
                        "__shfl_xor_sync(hipport_wave_lanes(), v, 4);")
    assert lines[7] == "  return __shfl_sync(hipport_wave_lanes(), v, 0);"
    widened = ("{at} HP1101 the full lane mask {mask} of {name} was widened to hipport_wave_lanes(), the lanes of its wavefront: "
               "HIP's warp builtins take 64-bit masks")
    assert [f for f in findings if " HP1117 " not in f] == [
        widened.format(at="1:40", mask="uint32_t(-1)", name="__shfl_xor_sync"),
        widened.format(at="3:15", mask="0xffffffff", name="__shfl_sync"),
        "4:34 HP1102 __shfl_down_sync: the mask `0xffffu` is a 32-bit unsigned int (in a macro body), "
        "but AMD wavefronts have 64 lanes and HIP lane masks are 64-bit",
        widened.format(at="7:24", mask="unsigned(-1)", name="__shfl_xor_sync"),
        widened.format(at="7:62", mask="(uint32_t)~0u", name="__shfl_xor_sync"),
        widened.format(at="8:22", mask="static_cast<unsigned int>(0xffffffffu)", name="__shfl_sync"),
    ]


def test_macro_body_masks_from_parameters_or_widened_names_are_not_reported(tmp_path):
    """A macro parameter's type is the argument's; a full mask named like one is widened where
    it is defined with --fix (and reported there and in the body without it)."""
    body = ("#define FULL_MASK 0xffffffff\n"
            "unsigned mask = 3;\n"
            "#define SHFL(mask, v) __shfl_sync(mask, v, 0)\n"
            "#define ALL(v) __shfl_sync(FULL_MASK, v, 0)\n"
            "__device__ float f(float v) { return SHFL(0xffffffffffffffffULL, v) + ALL(v); }\n")
    text, findings = port(tmp_path, body, fix=True)
    assert text == WAVE_LANES_BLOCK + body.replace("0xffffffff\n", "hipport_wave_lanes()\n", 1)
    assert findings == [
        "1:9 HP1107 the mask FULL_MASK: 0xffffffff rewritten to hipport_wave_lanes() (--fix)",
        "5:18 HP1111 --fix left f as written: the call `SHFL(0xffffffffffffffffULL, v)` (line 5) of the macro SHFL "
        f"(line 3) hides a warp collective: {_THROUGH_MACRO}; nor can it run as 32-lane logical warps: f uses the "
        "macro SHFL (line 5), whose body (line 3) holds a warp intrinsic that --fix does not rewrite"]
    _, plain = port(tmp_path, body)
    assert plain == [
        "1:9 HP1102 FULL_MASK: the macro FULL_MASK is the 32-bit full mask, but AMD wavefronts have 64 lanes and HIP "
        "lane masks are 64-bit",
        "4:28 HP1102 __shfl_sync: the mask `FULL_MASK` (k.cpp:1) is a 32-bit unsigned int (in a macro body), but AMD "
        "wavefronts have 64 lanes and HIP lane masks are 64-bit",
        "5:38 HP1117 f: the call `SHFL(0xffffffffffffffffULL, v)` (line 5) of the macro SHFL (line 3) hides a warp "
        f"collective: {_THROUGH_MACRO}{_WIDTH}",
        f"5:71 HP1117 f: the call `ALL(v)` (line 5) of the macro ALL (line 4) hides a warp collective: {_THROUGH_MACRO}"
        f"{_WIDTH}",
    ]


def test_narrow_functional_cast_mask_is_reported_at_the_call(tmp_path):
    _, findings = port(tmp_path, "__device__ float f(float v, int m) { return __shfl_sync(unsigned(m), v, 0); }\n")
    assert findings == ["1:57 HP1102 __shfl_sync: the mask `unsigned(m)` is a 32-bit unsigned int, but AMD wavefronts "
                        "have 64 lanes and HIP lane masks are 64-bit"]


HIP7_SYNCWARP = ('__builtin_amdgcn_fence(__ATOMIC_RELEASE, "wavefront"), __builtin_amdgcn_wave_barrier(), '
                 '__builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "wavefront")')
SYNCWARP_FIXED = ("rewritten (--fix) to what HIP 7.0 defines __syncwarp as: a wavefront-scope release fence, "
                  "__builtin_amdgcn_wave_barrier(), a wavefront-scope acquire fence")


def test_fix_rewrites_syncwarp_to_hip7s_definition(tmp_path):
    """HP1115 (hipport/syncwarp.py): the call becomes a macro defined once before the first
    function calling it: HIP 7.0's body of __syncwarp on AMD, CUDA's __syncwarp on NVIDIA; a mask
    is still evaluated, and its own widening (HP1101) still applies inside it."""
    text, findings = port(tmp_path, (
        "#include <cstdio>\n"
        "namespace n {\n"
        "__device__ int f(int* s, int v) {\n"
        "  s[threadIdx.x] = v; __syncwarp();\n"
        "  if (v) __syncwarp(0xffffffff);\n"
        "  __syncwarp(next_mask(v));\n"
        "  return s[threadIdx.x ^ 1];\n"
        "}\n"
        "__device__ void g() { __syncwarp(); }\n"
        "}\n"), fix=True)
    assert text == (
        "#include <cstdio>\n" + WAVE_LANES_BLOCK +
        "namespace n {\n"
        "#ifndef HIPPORT_SYNCWARP\n"
        "#if defined(__HIP_PLATFORM_NVIDIA__) /* HIP on NVIDIA: CUDA's own */\n"
        "#define HIPPORT_SYNCWARP() __syncwarp()\n"
        "#define HIPPORT_SYNCWARP_MASK(mask) __syncwarp(mask)\n"
        "#else /* hipport --fix: __syncwarp as HIP 7.0 defines it (amd_warp_sync_functions.h); HIP 6 has none */\n"
        f"#define HIPPORT_SYNCWARP() ({HIP7_SYNCWARP})\n"
        "#define HIPPORT_SYNCWARP_MASK(mask) ((void)(mask), HIPPORT_SYNCWARP())\n"
        "#endif\n"
        "#endif\n"
        "__device__ int f(int* s, int v) {\n"
        "  s[threadIdx.x] = v; HIPPORT_SYNCWARP();\n"
        "  if (v) HIPPORT_SYNCWARP_MASK(hipport_wave_lanes());\n"
        "  HIPPORT_SYNCWARP_MASK(next_mask(v));\n"
        "  return s[threadIdx.x ^ 1];\n"
        "}\n"
        "__device__ void g() { HIPPORT_SYNCWARP(); }\n"
        "}\n")
    mask_note = " (its mask evaluated, not checked: the fences order every lane of the wavefront)"
    assert findings == [
        f"4:23 HP1115 __syncwarp() {SYNCWARP_FIXED}; HIP 6.x has no __syncwarp",
        f"5:10 HP1115 __syncwarp(0xffffffff) {SYNCWARP_FIXED}{mask_note}; HIP 6.x has no __syncwarp",
        "5:21 HP1101 the full lane mask 0xffffffff of __syncwarp was widened to hipport_wave_lanes(), the lanes of its wavefront: "
        "HIP's warp builtins take 64-bit masks",
        f"6:3 HP1115 __syncwarp(next_mask(v)) {SYNCWARP_FIXED}{mask_note}; HIP 6.x has no __syncwarp",
        f"9:23 HP1115 __syncwarp() {SYNCWARP_FIXED}; HIP 6.x has no __syncwarp",
    ]


@pytest.mark.parametrize("body", [
    "__host__ __device__ void f() { __syncwarp(); }\n",  # compiled for the host too: no AMD builtins there
    "void f() { __syncwarp(); }\n",
    "#define SYNC() __syncwarp()\n__device__ void f() { SYNC(); }\n",  # in a macro body
    "__device__ void __syncwarp() {}\n__device__ void f() { __syncwarp(); }\n",  # the project's own
    "#define __syncwarp() __builtin_amdgcn_wave_barrier()\n__device__ void f() { __syncwarp(); }\n",
], ids=["host-device", "host", "macro-body", "own-function", "own-macro"])
def test_fix_keeps_syncwarp_where_the_rewrite_is_not_sure_to_compile(tmp_path, body):
    text, findings = port(tmp_path, body, fix=True)
    assert "HIPPORT_SYNCWARP" not in text and text.count("__syncwarp") == body.count("__syncwarp")
    assert not [f for f in findings if " HP1115 " in f]
    assert [f for f in findings if " HP1108 " in f]


def test_fixed_syncwarp_compiles_for_wave64_and_wave32(toolchain, tmp_path):
    """The rewrite compiles, with a mask too, in a kernel and a device function, for gfx90a and
    gfx1100, and as HIP on NVIDIA (nvcc 12.4, sm_90), where the macros are CUDA's __syncwarp."""
    text, _ = port(tmp_path, (
        "__device__ int g(int* s, int v) { s[threadIdx.x] = v; __syncwarp(); return s[threadIdx.x ^ 1]; }\n"
        "__global__ void k(int* o) {\n"
        "  __shared__ int s[64];\n"
        "  int v = g(s, o[threadIdx.x]);\n"
        "  unsigned m = __activemask();\n"
        "  __syncwarp(m);\n"
        "  s[threadIdx.x] = v; __syncwarp(0xffffffff); o[threadIdx.x] = s[threadIdx.x ^ 2];\n"
        "}\n"), fix=True, name="k.cu")
    assert len(re.findall(r"\b__syncwarp\(", text)) == 2  # CUDA's, in the NVIDIA branch of the macro block only
    source = tmp_path / "k.hip"
    source.write_text(text)
    toolchain.compile_amd(source, tmp_path / "k.o", ("gfx90a", "gfx1100"))
    assert toolchain.code_object_targets(tmp_path / "k.o") == [
        "hipv4-amdgcn-amd-amdhsa--gfx1100", "hipv4-amdgcn-amd-amdhsa--gfx90a"]
    toolchain.compile_nvidia(source, tmp_path / "k-nvidia.o", link=False)  # HIP on NVIDIA: CUDA's __syncwarp


def test_fix_widens_a_full_mask_initializer_with_its_variable(tmp_path):
    body = ("  float v = in[threadIdx.x];\n"
            "  for (int o = warpSize / 2; o > 0; o >>= 1) v += __shfl_down_sync(mask, v, o);\n"
            "  if (threadIdx.x % warpSize == 0) atomicAdd(out, v);\n"
            "}\n")
    text, findings = port(tmp_path, (
        "__global__ void total(const float* in, float* out) {\n"
        "  unsigned int mask   = 0xffffffff;\n" + body), fix=True)
    assert text == WAVE_LANES_BLOCK + (
        "__global__ void total(const float* in, float* out) {\n"
        "  unsigned long long mask   = hipport_wave_lanes();\n" + body)
    assert findings == [
        "2:16 HP1107 the mask mask: unsigned int rewritten to unsigned long long (--fix)",
        "2:16 HP1107 the mask mask: 0xffffffff rewritten to hipport_wave_lanes() (--fix)",
    ]


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
    assert (tmp_path / "fixed" / "masks.cuh").read_text() == MASK_HEADER.replace(
        "constexpr unsigned int kFullMask = 0xffffffffu;\n",
        "constexpr unsigned long long kFullMask = 0xffffffffffffffffULL;\n" + WAVE_LANES_BLOCK).replace(
        "#define FULL_MASK 0xffffffff\n", "#define FULL_MASK hipport_wave_lanes()\n")


LANES_HEADER = """\
#pragma once
#define HDR_LANES 0xffffffff
#define WIDE 0xffffffffffffffffULL
struct Lanes { unsigned bits; unsigned long long wide; };
extern __device__ uint32_t g_live;
"""

LANES_KERNEL = """\
#include "inc/lanes.h"
#define mask 0xFFFFFFFF
const unsigned kAll = 0xffffffffu;
typedef unsigned lanes_t;
__device__ float f(float v, Lanes l, const Lanes* lp, lanes_t t, bool p) {
  v += __shfl_sync(mask, v, 0);
  v += __shfl_sync(kAll, v, 0);
  v += __shfl_sync(HDR_LANES, v, 0);
  v += __shfl_sync(l.bits, v, 0) + __shfl_sync(lp->bits, v, 1);
  v += __shfl_sync(g_live, v, 0);
  v += __shfl_sync(0xffff, v, 0);
  v += __shfl_sync(mask & kAll, v, 0);
  v += __shfl_sync((unsigned)t, v, 0);
  unsigned votes = __ballot_sync(kAll, p);
  v += __shfl_sync(WIDE, v, 0) + __shfl_sync(l.wide, v, 0) + __shfl_sync(mask | l.wide, v, 0);
  v += __shfl_sync(t, v, 0) + __shfl_sync(__activemask(), v, 0);
  v += __shfl_sync(LANES, v, 0);
  return v + votes;
}
struct Team {
  unsigned members;
  __device__ int any(bool p) const { return __any_sync(members, p); }
};
#ifdef __HIP_PLATFORM_AMD__
#define LANES 0xffffffffffffffffull
#else
#define LANES 0xffffffffu
#endif
"""

_AMD = ", but AMD wavefronts have 64 lanes and HIP lane masks are 64-bit"


def _lanes_tree(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    (src / "inc").mkdir(parents=True)
    (src / "inc" / "lanes.h").write_text(LANES_HEADER)
    (src / "k.cu").write_text(LANES_KERNEL)
    return src


def test_32bit_masks_are_reported_at_each_call(tmp_path):
    """Issue 10: HIP 6.4's *_sync builtins static_assert a 64-bit mask type at each call, and
    clang's error names the call. HP1102 is at each call whose mask is 32-bit, and names where
    the mask got its type: a macro, a const, a typedef or a class member of this file or of
    its header, a global, a literal, a cast, an expression of them (one finding a line: line 9
    has two calls, line 14 also stores the ballot in 32 bits). Lines 15-17 are 64-bit, or of a
    macro whose two definitions disagree (the one HIP for AMD compiles is 64-bit)."""
    report = convert_tree(_lanes_tree(tmp_path), tmp_path / "out").report
    assert _tree_findings(report) == [
        f"k.cu:2:9 HP1102 mask: the macro mask is the 32-bit full mask{_AMD}",
        f"k.cu:6:20 HP1102 __shfl_sync: the mask `mask` (k.cu:2) is a 32-bit unsigned int{_AMD}",
        f"k.cu:7:20 HP1102 __shfl_sync: the mask `kAll` (k.cu:3) is a 32-bit unsigned int{_AMD}",
        f"k.cu:8:20 HP1102 __shfl_sync: the mask `HDR_LANES` (inc/lanes.h:2) is a 32-bit unsigned int{_AMD}",
        f"k.cu:9:20 HP1102 __shfl_sync: the mask `l.bits` (inc/lanes.h:4) is a 32-bit unsigned int{_AMD}",
        f"k.cu:10:20 HP1102 __shfl_sync: the mask `g_live` (inc/lanes.h:5) is a 32-bit uint32_t{_AMD}",
        f"k.cu:11:20 HP1102 __shfl_sync: the mask `0xffff` is a 32-bit int{_AMD}",
        f"k.cu:12:20 HP1102 __shfl_sync: the mask `mask & kAll` is a 32-bit unsigned int, from `mask` (k.cu:2){_AMD}",
        f"k.cu:13:20 HP1102 __shfl_sync: the mask `(unsigned)t` is a 32-bit unsigned int{_AMD}",
        f"k.cu:14:20 HP1102 __ballot_sync: its result is stored as unsigned{_AMD}",
        f"k.cu:16:20 HP1102 __shfl_sync: the mask `t` (k.cu:5) is a 32-bit lanes_t{_AMD}",
        f"k.cu:22:56 HP1102 __any_sync: the mask `members` (k.cu:21) is a 32-bit unsigned int{_AMD}",
    ]
    assert (tmp_path / "out" / "k.hip").read_text().splitlines()[6:] == LANES_KERNEL.splitlines()[5:]


def test_fix_runs_a_vote_returned_to_callers_it_does_not_see_as_logical_warps(tmp_path):
    """A device function returning a collective result that no code of its file calls (an
    extern function of another .cu, a header's with no caller here) is not widened: its callers
    may combine the result per 32-lane warp. It runs as 32-lane logical warps (HP1116)."""
    text, findings = port(tmp_path, (
        "__device__ int any(bool p) {\n"
        "  unsigned int mask   = 0xffffffff;\n"
        "  return __any_sync(mask, p);\n"
        "}\n"), fix=True)
    assert _HELPER_BLOCK.sub("", text).splitlines()[-4:] == [
        "__device__ int any(bool p) {",
        "  unsigned int mask   = 0xffffffff;",
        "  return hipport_warp32_any_sync(mask, p);",
        "}"]
    assert findings == [logical("1:16", "any") + "no code of its file calls it (an extern function called from "
                        "another file, or a header's function with no caller here), so --fix does not see its "
                        "callers and its warp logic keeps CUDA's 32 lanes"]


def test_fix_runs_a_function_whose_32bit_mask_it_cannot_widen_as_logical_warps(tmp_path):
    """--fix widens a full mask named like a mask where it is defined, so a call using it needs
    nothing more and has no HP1102; a 32-bit mask it does not widen (HALF_LANES) leaves its
    function unwidened (all or nothing, issue 11), and the function runs as 32-lane logical
    warps instead (HP1116): its shuffle calls hipport_warp32_shfl_down_sync, which takes any
    mask type, so HIP's 64-bit mask static_assert is not met and the HP1102 is gone."""
    source = ("#define FULL_MASK 0xffffffff\n"
              "#define HALF_LANES 0x0000ffffu\n"
              "__device__ float all_lanes(float v) {\n"
              "  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(FULL_MASK, v, o);\n"
              "  return v;\n"
              "}\n"
              "__device__ float half_lanes(float v) {\n"
              "  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(HALF_LANES, v, o);\n"
              "  return v;\n"
              "}\n"
              "__global__ void total(const float* in, float* out) {\n"
              "  float s = all_lanes(in[threadIdx.x]);\n"
              "  if (threadIdx.x % 32 == 0) atomicAdd(out, s);\n"
              "}\n")
    loop = "shuffle reduction starts at offset 16 (for (int o = 16; o > 0; o >>= 1)): on a 64-wide wavefront lanes 32-63 are never combined"
    _, findings = port(tmp_path, source, name="k.cu")
    assert findings == [
        f"1:9 HP1102 FULL_MASK: the macro FULL_MASK is the 32-bit full mask{_AMD}",
        f"4:16 HP1104 {loop}",
        f"4:58 HP1102 __shfl_down_sync: the mask `FULL_MASK` (k.cu:1) is a 32-bit unsigned int{_AMD}",
        f"8:16 HP1104 {loop}",
        f"8:58 HP1102 __shfl_down_sync: the mask `HALF_LANES` (k.cu:2) is a 32-bit unsigned int{_AMD}",
        "13:21 HP1103 threadIdx.x % 32: the literal 32 assumes 32-wide warps",
    ]
    text, findings = port(tmp_path, source, fix=True, name="k.cu")
    assert "#define HIPPORT_WARP32_SHFL_DOWN_SYNC\n" in text and text.count(WAVE_LANES_BLOCK) == 1
    text = _HELPER_BLOCK.sub("", text.replace(WAVE_LANES_BLOCK, ""))
    assert text.splitlines()[1:] == [
        "#define FULL_MASK hipport_wave_lanes()",
        "#define HALF_LANES 0x0000ffffu",
        "__device__ float all_lanes(float v) {",
        "  for (int o = warpSize / 2; o > 0; o >>= 1) v += __shfl_down_sync(FULL_MASK, v, o);",
        "  return v;",
        "}",
        "__device__ float half_lanes(float v) {",
        "  for (int o = 16; o > 0; o >>= 1) v += hipport_warp32_shfl_down_sync(HALF_LANES, v, o);",
        "  return v;",
        "}",
        "__global__ void total(const float* in, float* out) {",
        "  float s = all_lanes(in[threadIdx.x]);",
        "  if (threadIdx.x % warpSize == 0) atomicAdd(out, s);",
        "}",
    ]
    assert findings == [
        "1:9 HP1107 the mask FULL_MASK: 0xffffffff rewritten to hipport_wave_lanes() (--fix)",
        "4:16 HP1107 the shuffle loop: 16 rewritten to warpSize / 2 (--fix)",
        logical("7:18", "half_lanes") + "the mask `HALF_LANES` of __shfl_down_sync (line 8) is 32-bit, and --fix does "
        "not widen it",
        "13:21 HP1107 lane arithmetic: % 32 rewritten to % warpSize (--fix)",
    ]


def test_32bit_mask_of_a_header_defined_by_the_file_including_it(tmp_path):
    """A header's call may take its mask from a macro of the file that includes it (the
    header's own includes define none): HP1102 in the header names that file."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "bcast.cuh").write_text("__device__ float bcast(float v) { return __shfl_sync(TEAM_LANES, v, 0); }\n")
    (src / "main.cu").write_text('#define TEAM_LANES 0xffffffffu\n#include "bcast.cuh"\n'
                                 "__global__ void k(float* v) { v[0] = bcast(v[0]); }\n")
    report = convert_tree(src, tmp_path / "out").report
    assert _tree_findings(report) == [
        f"bcast.cuh:1:54 HP1102 __shfl_sync: the mask `TEAM_LANES` (main.cu:1) is a 32-bit unsigned int{_AMD}"]


def test_compat_fix_sees_a_32bit_mask_of_a_header(tmp_path):
    """convert --compat --fix decides each file with the tree's mask definitions too: the
    header's HALF_LANES leaves half_lanes unwidened (the CUDA source keeps its loop) while
    all_lanes, with a 64-bit mask, is widened; half_lanes runs as 32-lane logical warps, which
    stays CUDA (under nvcc the helper is a macro for __shfl_down_sync)."""
    from hipport.compat import compat_tree

    src = tmp_path / "src"
    src.mkdir()
    (src / "lanes.cuh").write_text("#define HALF_LANES 0x0000ffffu\n")
    kernel = ('#include "lanes.cuh"\n'
              "__device__ float all_lanes(float v) {\n"
              "  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffffffffffULL, v, o);\n"
              "  return v;\n"
              "}\n"
              "__device__ float half_lanes(float v) {\n"
              "  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(HALF_LANES, v, o);\n"
              "  return v;\n"
              "}\n"
              "__global__ void total(const float* in, float* out) {\n"
              "  float s = all_lanes(in[threadIdx.x]);\n"
              "  if (threadIdx.x % warpSize == 0) atomicAdd(out, s);\n"
              "}\n")
    (src / "k.cu").write_text(kernel)
    report = compat_tree(src, tmp_path / "out", ConvertOptions(fix=True)).report
    fixed = (tmp_path / "out" / "k.cu").read_text()
    assert "#else\n#define hipport_warp32_shfl_down_sync __shfl_down_sync\n#endif\n" in fixed
    assert without_logical_warps(fixed) == kernel.replace("int o = 16", "int o = warpSize / 2", 1)
    assert [line for line in _tree_findings(report) if line.startswith("k.cu")] == [
        "k.cu:3:16 HP1107 the shuffle loop: 16 rewritten to warpSize / 2 (--fix)",
        "k.cu:" + logical("6:18", "half_lanes") + "the mask `HALF_LANES` of __shfl_down_sync (line 7) is 32-bit, and "
        "--fix does not widen it",
    ]


@pytest.mark.parametrize("literal, expected", [
    ("0x7fffffff", "int"), ("0xffffffff", "unsigned int"), ("0xFFFFFFFFu", "unsigned int"), ("4294967295", "long"),
    ("2147483647", "int"), ("2147483648u", "unsigned int"), ("0x100000000", "long"), ("0xffffffffffffffff", "unsigned long"),
    ("1ull", "unsigned long long"), ("1LL", "long long"), ("1ul", "unsigned long"), ("017", "int"), ("0b1", "int"),
    ("1'000", "int"), ("0", "int"), ("1.0", None), ("0x1p3", None)])
def test_integer_literal_types(literal, expected):
    """The C++ type of an integer literal ([lex.icon] table 8, LP64), which decides whether a
    literal mask is 32-bit."""
    assert _literal_type(literal) == expected


TREE_FIXTURES = Path(__file__).parent / "fixtures" / "warp_tree"


def _tree_findings(report) -> list[str]:
    return [f"{f.path}:{f.line}:{f.column} {f.rule_id} {f.message}" for f in report.findings if f.rule_id.startswith("HP11")]


def test_header_warp_size_constant_is_fixed_with_its_uses_in_other_files(tmp_path):
    """tests/fixtures/warp_tree/header_constant: kWarpSize and the helpers built on it live in a
    header, the kernel using them (and kWarpSize, for the number of warps) in a .cu file. The
    tree pass of --fix (hipport.warp.warp_tree) sees every use of the constant and every caller
    of the helpers: the header and the kernel are rewritten together, here as 32-lane logical
    warps (the first warp's second reduction over the per-warp slots is not shown right when
    widened, hipport.lane_flow), so kWarpSize stays 32 in both files."""
    expected = TREE_FIXTURES / "header_constant.expected"
    report = convert_tree(TREE_FIXTURES / "header_constant", tmp_path / "out", ConvertOptions(fix=True)).report
    for rel in ("include/warp_util.cuh", "src/main.hip"):
        assert (tmp_path / "out" / rel).read_text() == (expected / rel).read_text(), rel
    assert _tree_findings(report) == (expected / "findings-fix.txt").read_text().splitlines()


def test_header_warp_size_constant_with_one_unwidenable_use_runs_as_logical_warps_everywhere(tmp_path):
    """tests/fixtures/warp_tree/header_constant_host: the same tree, but main() also prints
    kBlock / kWarpSize in host code, which has no warpSize. The constant ties the header's
    helpers, block_sum and main into one unit, which the widening must leave in every file; the
    tree pass decides the whole unit runs as 32-lane logical warps instead (HP1116 at every
    device function of both files, the reason naming main's use), so kWarpSize stays 32 and only
    the header's shuffle changes (tests/test_warp_emulated.py runs it)."""
    src = TREE_FIXTURES / "header_constant_host"
    fixed = convert_tree(src, tmp_path / "fix", ConvertOptions(fix=True)).report
    convert_tree(src, tmp_path / "port", ConvertOptions(fix=False))
    for rel in ("include/warp_util.cuh", "src/main.hip"):
        assert without_logical_warps((tmp_path / "fix" / rel).read_text()) == (tmp_path / "port" / rel).read_text(), rel
    header = (tmp_path / "fix" / "include" / "warp_util.cuh").read_text()
    assert "    return threadIdx.x % kWarpSize;\n" in header
    assert "    for (int o = kWarpSize / 2; o > 0; o >>= 1) {\n" in header
    assert "        v += hipport_warp32_shfl_down_sync(hipport_wave_lanes(), v, o);\n" in header
    kernel = (tmp_path / "fix" / "src" / "main.hip").read_text()
    assert "hipport_warp32_" not in kernel  # its own code has no warp intrinsic
    assert "    __shared__ float partial[32];\n" in kernel
    assert "lane_id() < blockDim.x / kWarpSize ? partial[lane_id()] : 0.0f" in kernel
    assert _tree_findings(fixed) == (TREE_FIXTURES / "header_constant_host.findings-fix.txt").read_text().splitlines()
    assert not [f for f in fixed.findings if f.rule_id in ("HP1107", "HP1111")]


def test_header_warp_size_define_is_fixed_with_its_uses_in_other_files(tmp_path):
    """The WARP_SIZE case across files: the define of a header becomes warpSize, and the other
    file's array size and wavefront count follow it (the bounds block goes into that file)."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "w.cuh").write_text(
        "#pragma once\n#define WARP_SIZE 32\n__device__ inline float wsum(float v) {\n"
        "  for (int o = WARP_SIZE / 2; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffff, v, o);\n  return v;\n}\n")
    (src / "k.cu").write_text(
        '#include "w.cuh"\n__global__ void k(const float* in, float* out) {\n  __shared__ float s[WARP_SIZE];\n'
        "  const int lane = threadIdx.x % WARP_SIZE, wid = threadIdx.x / WARP_SIZE;\n  float v = wsum(in[threadIdx.x]);\n"
        "  if (lane == 0) s[wid] = v;\n  __syncthreads();\n"
        "  if (threadIdx.x == 0) { float t = 0; for (int w = 0; w < blockDim.x / WARP_SIZE; ++w) t += s[w]; *out = t; }\n}\n")
    report = convert_tree(src, tmp_path / "out", ConvertOptions(fix=True)).report
    assert (tmp_path / "out" / "w.cuh").read_text() == (
        "#pragma once\n#define WARP_SIZE warpSize\n" + WAVE_LANES_BLOCK + "__device__ inline float wsum(float v) {\n"
        "  for (int o = WARP_SIZE / 2; o > 0; o >>= 1) v += __shfl_down_sync(hipport_wave_lanes(), v, o);\n"
        "  return v;\n}\n")
    kernel = (tmp_path / "out" / "k.hip").read_text()
    assert kernel.startswith('#include <hip/hip_runtime.h>\n#include "w.cuh"\n#ifndef HIPPORT_WAVEFRONT_MAX\n')
    assert "  __shared__ float s[HIPPORT_WAVEFRONT_MAX];\n" in kernel
    assert "  const int lane = threadIdx.x % WARP_SIZE, wid = threadIdx.x / WARP_SIZE;\n" in kernel
    assert "for (int w = 0; w < (blockDim.x + WARP_SIZE - 1) / WARP_SIZE; ++w)" in kernel
    assert [f"{f.path}:{f.line} {f.rule_id}" for f in report.findings if f.rule_id.startswith("HP11")] == [
        "k.cu:3 HP1107", "k.cu:8 HP1107", "w.cuh:2 HP1107", "w.cuh:4 HP1101"]


@pytest.mark.parametrize("case", CASES)
def test_fixture_with_crlf_line_endings_is_fixed_the_same(case, tmp_path):
    """Each warp fixture with Windows line endings: --fix writes fixed.hip with CRLF endings and
    reports the same findings (once a ``#define FULL_MASK 0xffffffffu`` or ``#define WARP_SIZE
    32`` ending in CR was not seen, and the unit was not widened)."""
    source = tmp_path / "original.cu"
    source.write_bytes((FIXTURES / case / "original.cu").read_bytes().replace(b"\n", b"\r\n"))
    out = tmp_path / "fix"
    report = convert_tree(source, out, ConvertOptions(fix=True)).report
    assert (out / "original.hip").read_bytes() == (FIXTURES / case / "fixed.hip").read_bytes().replace(b"\n", b"\r\n")
    _, findings = convert_fixture(case, tmp_path, fix=True)
    assert [f"{f.line}:{f.column} {f.rule_id} {f.message}" for f in report.findings if f.rule_id.startswith("HP11")] \
        == findings


_COMBINE_HEAD = ("#include <cuda_runtime.h>\n"
                 "__global__ void k(const int* in, int* out) {\n"
                 "  __shared__ int s[32];\n"
                 "  int lane = threadIdx.x % 32, wid = threadIdx.x / 32;\n"
                 "  int v = in[threadIdx.x];\n")
_SUM = "  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffff, v, o);\n"
_MAX = "  for (int o = 16; o > 0; o >>= 1) v = max(v, __shfl_xor_sync(0xffffffff, v, o));\n"
_PARTIAL = ("once widened, a warp maximum takes a 0 for every lane a partial last wavefront lacks (a block of 96 "
            "threads ends in a 32-lane wavefront, and ds_bpermute reads 0 from a lane that is not there)")
_FOLD = ("  if (lane == 0) s[wid] = %s;\n  __syncthreads();\n"
         "  if (threadIdx.x == 0) { int t = 0; for (int w = 0; w < blockDim.x / 32; ++w) %s; *out = t; }\n")


@pytest.mark.parametrize("body, reason", [
    (_MAX + "  if (lane == 0) atomicAdd(out, v);\n",
     "the warp-collective value `v` (line 7) makes the result depend on the warp's width: the first lane of each "
     "warp gives it to atomicAdd: " + _PARTIAL),
    (_MAX + "  if (lane == 0) atomicMax(out, v);\n",
     "the warp-collective value `v` (line 7) makes the result depend on the warp's width: the first lane of each "
     "warp gives it to atomicMax: " + _PARTIAL),
    (_SUM + "  if (lane == 0) atomicMax(out, v);\n",
     "the warp-collective value `v` (line 7) makes the result depend on the warp's width: the first lane of each "
     "warp gives it to atomicMax: it combines a warp sum by max, so the total depends on how many lanes each warp "
     "has"),
    ("  int a = __any_sync(0xffffffff, v > 5);\n  if (lane == 0) atomicAdd(out, a);\n",
     "the warp-collective value `a` (line 7) makes the result depend on the warp's width: the first lane of each "
     "warp gives it to atomicAdd: it combines an any-vote (one 0 or 1 per warp) by sum, so the total depends on how "
     "many lanes each warp has"),
    (_SUM + "  if (lane == 0) atomicAdd(out, v > 200);\n",
     "the warp-collective value `v` (line 7) makes the result depend on the warp's width: the first lane of each "
     "warp combines a value that is not a whole-warp result as the reduction left it"),
    ("  int c = __popc(__ballot_sync(0xffffffff, v > 0));\n  if (lane == 0) atomicAdd(out, c * c);\n",
     "the warp-collective value `c` (line 7) makes the result depend on the warp's width: the first lane of each "
     "warp combines a value that is not a whole-warp result as the reduction left it"),
    (_SUM + "  v++;\n  if (lane == 0) atomicAdd(out, v);\n",
     "the warp-collective value `v` (line 8) makes the result depend on the warp's width: the first lane of each "
     "warp combines a value that is not a whole-warp result as the reduction left it"),
    (_MAX + _FOLD % ("v", "t = max(t, s[w])"),
     "the warp-collective value `v` (line 7) makes the result depend on the warp's width: the first lane of each "
     "warp stores it in a per-warp slot: " + _PARTIAL),
    ("  int a = __all_sync(0xffffffff, v > 5);\n" + _FOLD % ("a", "t += s[w]"),
     "the per-warp slot `s[w]` (line 9) makes the result depend on the warp's width: the slots are folded by sum: "
     "it combines an all-vote (one 0 or 1 per warp) by sum, so the total depends on how many lanes each warp has"),
    (_SUM + _FOLD % ("v", "t = t * 2 + s[w]"),
     "the per-warp slot `s[w]` (line 9) makes the result depend on the warp's width: it is read other than into a "
     "local folding every warp's slot by one operation (t += s[w], t = max(t, s[w]), ...)"),
])
def test_whole_warp_results_combined_other_than_by_their_reduction_run_as_logical_warps(tmp_path, body, reason):
    """A whole-warp result combined across warps is the same at widths 32 and 64 only when the
    warps' results are combined by the reduction's own operation, unchanged (issue 11: a max
    reduction summed by atomicAdd printed 316 at width 32 and 190 at 64 when widened), and the
    reduction's identity is 0: a maximum, minimum, AND or product reduction takes a 0 from each
    lane a partial last wavefront lacks (a block of 96 threads). Anything else runs as logical
    warps, and HP1116 names the use."""
    _, findings = port(tmp_path, _COMBINE_HEAD + body + "}\n", fix=True, name="k.cu")
    logical = [f for f in findings if " HP1116 " in f]
    assert len(logical) == 1 and logical[0].endswith(f"it was not widened because {reason}"), findings
    assert not [f for f in findings if " HP1107 " in f]


@pytest.mark.parametrize("body", [
    _SUM + "  if (lane == 0) atomicAdd(out, v);\n",
    "  for (int o = 16; o > 0; o >>= 1) v |= __shfl_xor_sync(0xffffffff, v, o);\n  if (lane == 0) atomicOr(out, v);\n",
    "  int a = __any_sync(0xffffffff, v > 5);\n  if (lane == 0) atomicOr(out, a);\n",
    "  int a = __all_sync(0xffffffff, v > 5);\n  if (lane == 0) atomicAnd(out, a);\n",
    "  if (lane == 0) atomicAdd(out, __popc(__ballot_sync(0xffffffff, v > 0)));\n",
    _SUM + _FOLD % ("v", "t = s[w] + t"),
    "  int a = __any_sync(0xffffffff, v > 5);\n" + _FOLD % ("a", "t = max(t, s[w])"),
])
def test_whole_warp_results_combined_by_their_reduction_are_widened(tmp_path, body):
    _, findings = port(tmp_path, _COMBINE_HEAD + body + "}\n", fix=True, name="k.cu")
    assert [f for f in findings if " HP1107 " in f] and not [f for f in findings if " HP1116 " in f or " HP1111 " in f]


_NO_WIDTH = ("__global__ void k(const int* in, int* out) {\n"
             "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
             "  int v = in[i];\n"
             "  if (__any_sync(0xffffffff, v < 0)) v = 0;\n"
             "  int leader = __shfl_sync(0xffffffff, v, 0);\n"
             "  int right = __shfl_down_sync(0xffffffff, v, 1);\n"
             "  out[i] = v * 100 + leader * 10 + (right - v);\n"
             "}\n")


def test_collectives_that_assume_32_lanes_with_no_literal_32_are_reported(tmp_path):
    """HP1117 (issue 11, found by a helper's hand-written programs): a vote as a branch, a
    broadcast from lane 0 and a neighbour shuffle give other results on a 64-lane wavefront
    (checksum 1463288 at width 32, 1469213 at 64 in the emulator) though the function has no
    literal 32: the port keeps them and says so at each use."""
    _, findings = port(tmp_path, _NO_WIDTH, name="k.cu")
    value = "k: the warp-collective value `{}` (line {}) makes the result depend on the warp's width: {}" + _WIDTH
    assert [f for f in findings if " HP1101 " not in f] == [
        "4:7 HP1117 " + value.format("__any_sync(0xffffffff, v < 0)", 4, "the code branches on it"),
        "6:47 HP1117 k: the shuffle `__shfl_down_sync(0xffffffff, v, 1)` (line 6) keeps a 32-lane meaning: its "
        "literal offset 1 ends at the 32nd lane (no width under 32 is given)" + _WIDTH,
        "7:22 HP1117 " + value.format("leader", 7, "it is stored to memory other than a per-warp __shared__ slot "
                                      "written by the warp's first lane"),
        "7:37 HP1117 " + value.format("right", 7, "it is stored to memory other than a per-warp __shared__ slot "
                                      "written by the warp's first lane"),
    ]


def test_fix_runs_collectives_that_assume_32_lanes_as_logical_warps(tmp_path):
    text, findings = port(tmp_path, _NO_WIDTH, fix=True, name="k.cu")
    assert "  if (hipport_warp32_any_sync(hipport_wave_lanes(), v < 0)) v = 0;\n" in text
    assert "  int leader = hipport_warp32_shfl_sync(hipport_wave_lanes(), v, 0);\n" in text
    assert logical_warp_reasons(findings) == [
        "the shuffle `__shfl_down_sync(0xffffffff, v, 1)` (line 6) keeps a 32-lane meaning: its literal offset 1 "
        "ends at the 32nd lane (no width under 32 is given)"]
    assert not [f for f in findings if " HP1117 " in f or " HP1111 " in f]


def test_code_naming_warpsize_is_not_reported_as_assuming_32_lanes(tmp_path):
    """A function that names warpSize was written for a width known at run time."""
    body = _NO_WIDTH.replace("  int v = in[i];\n", "  int v = in[i] + (threadIdx.x % warpSize == 0);\n")
    _, findings = port(tmp_path, body, name="k.cu")
    assert not [f for f in findings if " HP1117 " in f]
    text, fixed = port(tmp_path, body, fix=True, name="k.cu")
    assert "hipport_warp32_" not in text and not [f for f in fixed if " HP1116 " in f or " HP1111 " in f]


def test_fix_does_not_widen_lane_arithmetic_of_a_two_dimensional_block(tmp_path):
    """A block of 32 x 8 threads: threadIdx.x % 32 is the lane, but a 64-lane wavefront holds two
    rows, so threadIdx.x % warpSize is not (a helper's program: row sums 1152 3200 at width 32,
    2432 6528 widened at 64). The unit runs as logical warps, whose halves follow the linear
    thread index."""
    body = ("__global__ void row_sum(const int* a, int* y) {\n"
            "  int lane = threadIdx.x % 32;\n"
            "  int row = blockIdx.x * blockDim.y + threadIdx.y;\n"
            "  int v = a[row * 32 + threadIdx.x];\n"
            "  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffff, v, o);\n"
            "  if (lane == 0) atomicAdd(&y[blockIdx.x], v);\n"
            "}\n")
    text, findings = port(tmp_path, body, fix=True, name="k.cu")
    assert "  int lane = threadIdx.x % 32;\n" in text and "hipport_warp32_shfl_down_sync(" in text
    assert logical_warp_reasons(findings) == [
        "threadIdx.x % 32 (line 2) numbers lanes or warps along x only, and the file's blocks have a second "
        "dimension (blockDim.y at line 3): a 64-lane wavefront spans rows where blockDim.x is under 64, so "
        "widening it would not give the lane"]


_SHFL_MACRO = ("#define SHFL_DOWN(val, offset) __shfl_down_sync(0xffffffff, (val), (offset))\n"
               "__global__ void block_sums(const int* in, int* out) {\n"
               "  int lane = threadIdx.x % 32;\n"
               "  int v = in[blockIdx.x * blockDim.x + threadIdx.x];\n"
               "  for (int o = 16; o > 0; o >>= 1) v += SHFL_DOWN(v, o);\n"
               "  if (lane == 0) atomicAdd(&out[blockIdx.x], v);\n"
               "}\n")


def test_a_shuffle_macro_as_the_step_of_a_halving_loop_is_widened_like_the_shuffle(tmp_path):
    """#define SHFL_DOWN(val, offset) __shfl_down_sync(mask, (val), (offset)): its call
    v += SHFL_DOWN(v, o) is the shuffle, so the loop from 16 is reported (HP1104) and fixed; before,
    the loop was not seen and --fix widened the lane alone (sums 256 at width 32, 128 at 64)."""
    _, plain = port(tmp_path, _SHFL_MACRO, name="k.cu")
    assert [f.split(" ", 2)[:2] for f in plain] == [["1:49", "HP1101"], ["3:28", "HP1103"], ["5:16", "HP1104"]]
    text, fixed = port(tmp_path, _SHFL_MACRO, fix=True, name="k.cu")
    assert "  for (int o = warpSize / 2; o > 0; o >>= 1) v += SHFL_DOWN(v, o);\n" in text
    assert "  int lane = threadIdx.x % warpSize;\n" in text
    assert [f for f in fixed if " HP1107 " in f] == [
        "3:28 HP1107 lane arithmetic: % 32 rewritten to % warpSize (--fix)",
        "5:16 HP1107 the shuffle loop: 16 rewritten to warpSize / 2 (--fix)"]


def test_a_shuffle_macro_sum_combined_by_max_is_not_widened(tmp_path):
    """lane_flow follows the macro's result like the shuffle's: a warp sum given to atomicMax."""
    body = _SHFL_MACRO.replace("atomicAdd(", "atomicMax(")
    text, fixed = port(tmp_path, body, fix=True, name="k.cu")
    assert "v += SHFL_DOWN(v, o);" in text and "for (int o = 16;" in text
    assert [f for f in fixed if " HP1111 " in f] == [
        "2:17 HP1111 --fix left block_sums as written: the warp-collective value `v` (line 6) makes the result depend "
        "on the warp's width: the first lane of each warp gives it to atomicMax: it combines a warp sum by max, so the "
        "total depends on how many lanes each warp has; nor can it run as 32-lane logical warps: block_sums uses the "
        "macro SHFL_DOWN (line 5), whose body (line 1) holds a warp intrinsic that --fix does not rewrite"]


def test_any_other_call_of_a_collective_macro_keeps_its_function_as_written(tmp_path):
    """A macro that computes a source lane in its body (31 - lane) hides what --fix would have to
    rewrite: the function is left as written with HP1111 (before: widened, 4132 at width 32 and
    4608 at 64); without --fix a function with no other assumption gets HP1117 at the call."""
    body = ("#define REVERSE(v) __shfl_sync(0xffffffff, (v), 31 - (threadIdx.x & 31))\n"
            "__global__ void k(const int* in, int* out) {\n"
            "  int v = in[threadIdx.x];\n"
            "  out[threadIdx.x] = REVERSE(v);\n"
            "}\n")
    hidden = f"the call `REVERSE(v)` (line 4) of the macro REVERSE (line 1) hides a warp collective: {_THROUGH_MACRO}"
    _, plain = port(tmp_path, body, name="k.cu")
    assert [f for f in plain if " HP1117 " in f] == [f"4:22 HP1117 k: {hidden}{_WIDTH}"]
    text, fixed = port(tmp_path, body, fix=True, name="k.cu")
    assert "  out[threadIdx.x] = REVERSE(v);\n" in text
    assert [f for f in fixed if " HP1111 " in f] == [
        f"2:17 HP1111 --fix left k as written: {hidden}; nor can it run as 32-lane logical warps: k uses the macro "
        "REVERSE (line 4), whose body (line 1) holds a warp intrinsic that --fix does not rewrite"]


def test_a_file_with_a_shuffle_loop_and_no_macro_converts(tmp_path):
    """53b5b98 set the shuffle-macro loops only in files holding '#define': any other file with a
    shuffle loop crashed (AttributeError), found by a helper on block_sum."""
    text, findings = port(tmp_path, "__device__ int f(int v) {\n"
                                    "  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffff, v, o);\n"
                                    "  return v;\n}\n", name="k.cu")
    assert "for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(hipport_wave_lanes(), v, o);" in text
    assert [f.split(" ", 2)[1] for f in findings] == ["HP1104", "HP1101"]


def test_a_fold_over_slots_bounded_by_a_constant_warp_count_is_not_widened(tmp_path):
    """for (w = 0; w < kBlock / 32; ++w) t += s[w]: --fix does not rewrite kBlock / 32, so
    widened the loop reads slots no wavefront wrote (a second hunt: -55 at width 64, -51 at 32).
    The unit runs as logical warps."""
    body = ("constexpr int kBlock = 128;\n"
            "__global__ void k(const int* in, int* out) {\n"
            "  __shared__ int s[kBlock / 32];\n"
            "  int lane = threadIdx.x % 32, wid = threadIdx.x / 32;\n"
            "  int v = in[threadIdx.x];\n"
            "  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffff, v, o);\n"
            "  if (lane == 0) s[wid] = v;\n"
            "  __syncthreads();\n"
            "  if (threadIdx.x == 0) { int t = 0; for (int w = 0; w < kBlock / 32; ++w) t += s[w]; out[0] = t; }\n"
            "}\n")
    text, findings = port(tmp_path, body, fix=True, name="k.cu")
    assert "hipport_warp32_shfl_down_sync(hipport_wave_lanes(), v, o)" in text
    assert logical_warp_reasons(findings) == [
        "the per-warp slot `s[w]` (line 9) makes the result depend on the warp's width: the loop reading the slots is "
        "bounded by `kBlock / 32`, a count of 32-lane warps that --fix does not rewrite (widened, it reads slots no "
        "wavefront wrote)"]


def test_a_cooperative_groups_tile_keeps_its_function_from_being_widened(tmp_path):
    """A thread_block_tile<32> stays 32 lanes wide: widening threadIdx.x / 32 beside it would put
    two tiles in one slot (a second hunt: 127 at width 32, 64 at 64). HP1111 (logical warps
    decline cooperative groups)."""
    body = ("#include <cooperative_groups.h>\n"
            "namespace cg = cooperative_groups;\n"
            "__global__ void k(const int* in, int* out) {\n"
            "  __shared__ int s[32];\n"
            "  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(cg::this_thread_block());\n"
            "  int v = in[threadIdx.x];\n"
            "  for (int o = 16; o > 0; o >>= 1) v += tile.shfl_down(v, o);\n"
            "  if (tile.thread_rank() == 0) s[threadIdx.x / 32] = v;\n"
            "  __syncthreads();\n"
            "  if (threadIdx.x == 0) { int t = 0; for (int w = 0; w < blockDim.x / 32; ++w) t += s[w]; out[0] = t; }\n"
            "}\n")
    text, findings = port(tmp_path, body, fix=True, name="k.cu")
    assert "s[threadIdx.x / 32] = v;" in text and "w < blockDim.x / 32;" in text
    skipped = [f for f in findings if " HP1111 " in f]
    assert len(skipped) == 1 and skipped[0].startswith(
        "3:17 HP1111 --fix left k as written: it uses a cooperative-groups tile (`thread_block_tile<32>`, line 5), "
        "whose shuffles and thread_rank() stay 32 lanes wide while widened warp numbers would count 64")


def test_a_reduction_called_as_a_member_function_is_followed(tmp_path):
    """w.sum(v) stored per thread: a second hunt's member-function reduction, widened by --fix
    with no error (63 63 64 64 at width 64 against 31 32 33 31). The call is followed like a free
    function's: k and Warp::sum run as logical warps together (call_links by member name)."""
    body = ("struct Warp {\n"
            "  __device__ int sum(int v) const {\n"
            "    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffff, v, o);\n"
            "    return v;\n"
            "  }\n"
            "};\n"
            "__global__ void k(const int* in, int* out) {\n"
            "  Warp w;\n"
            "  out[threadIdx.x] = w.sum(in[threadIdx.x]);\n"
            "}\n")
    text, findings = port(tmp_path, body, fix=True, name="k.cu")
    assert "v += hipport_warp32_shfl_xor_sync(hipport_wave_lanes(), v, o);" in text
    assert [f.split(" --fix ported ")[1].split(" as ")[0] for f in findings if " HP1116 " in f] == ["sum", "k"]
    assert logical_warp_reasons(findings)[1] == (
        "the warp-collective value `w.sum(in[threadIdx.x])` (line 9) makes the result depend on the warp's width: "
        "it is stored to memory other than a per-warp __shared__ slot written by the warp's first lane")


def test_a_header_reduction_stored_per_thread_by_another_file_is_not_widened(tmp_path):
    """warp_sum in warp.cuh, stored per thread in a.cu: the tree pass records which header
    functions return a warp-collective result, so a.cu follows warp_sum's result as its own and
    both run as logical warps (before: the header's loop widened, 63 at width 64 against 31)."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "warp.cuh").write_text(
        "#pragma once\n__device__ inline int warp_sum(int v) {\n"
        "  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffff, v, o);\n  return v;\n}\n")
    (src / "a.cu").write_text("#include \"warp.cuh\"\n"
                              "__global__ void k(const int* in, int* out) { out[threadIdx.x] = warp_sum(in[threadIdx.x]); }\n")
    report = convert_tree(src, tmp_path / "out", ConvertOptions(fix=True, jobs=1)).report
    assert [f"{f.path}:{f.line} {f.rule_id} {f.message.split(' as ')[0]}" for f in report.findings
            if f.rule_id in ("HP1107", "HP1116", "HP1111")] == [
        "a.cu:2 HP1116 --fix ported k",
        "warp.cuh:2 HP1116 --fix ported warp_sum",
    ]
    assert "hipport_warp32_shfl_xor_sync(hipport_wave_lanes(), v, o)" in (tmp_path / "out" / "warp.cuh").read_text()


def test_a_header_reduction_combined_by_the_first_lane_of_each_warp_is_widened(tmp_path):
    """The same header with a caller that adds each warp's sum atomically from its first lane:
    right at any width once widened, so both files are widened (HP1107), as before."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "warp.cuh").write_text(
        "#pragma once\n__device__ inline int warp_sum(int v) {\n"
        "  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffff, v, o);\n  return v;\n}\n")
    (src / "a.cu").write_text("#include \"warp.cuh\"\n"
                              "__global__ void k(const int* in, int* out) {\n"
                              "  int lane = threadIdx.x % 32;\n"
                              "  int s = warp_sum(in[threadIdx.x]);\n"
                              "  if (lane == 0) atomicAdd(&out[0], s);\n"
                              "}\n")
    report = convert_tree(src, tmp_path / "out", ConvertOptions(fix=True, jobs=1)).report
    assert [f"{f.path}:{f.line} {f.rule_id} {f.message}" for f in report.findings
            if f.rule_id in ("HP1107", "HP1116", "HP1111")] == [
        "a.cu:3 HP1107 lane arithmetic: % 32 rewritten to % warpSize (--fix)",
        "warp.cuh:3 HP1107 the shuffle loop: 16 rewritten to warpSize / 2 (--fix)",
    ]


@pytest.mark.parametrize("index, expected", [
    ("threadIdx.x / 32", "lanes of a warp combine into its slot by atomicAdd (line 6)"),
    ("threadIdx.x % 32", "threads of the same lane combine into its slot by atomicAdd (line 6)"),
])
def test_a_shared_counter_per_warp_or_lane_filled_atomically_is_not_widened(tmp_path, index, expected):
    """cnt[threadIdx.x / 32] (or cnt[threadIdx.x % 32]) filled by atomicAdd from every thread:
    widened, a slot gathers a 64-lane wavefront's threads (a second hunt: 63 against 31). The
    unit is not widened; the plain code is right at both widths."""
    body = ("__global__ void k(const int* in, int* out) {\n"
            "  __shared__ int cnt[32];\n"
            f"  int slot = {index};\n"
            "  cnt[slot] = 0;\n"
            "  __syncthreads();\n"
            "  atomicAdd(&cnt[slot], in[threadIdx.x]);\n"
            "  __syncthreads();\n"
            "  out[threadIdx.x] = cnt[slot];\n"
            "}\n")
    text, findings = port(tmp_path, body, fix=True, name="k.cu")
    assert f"int slot = {index};" in text
    reasons = logical_warp_reasons(findings)
    assert len(reasons) == 1 and reasons[0].startswith("the ")
    assert f": {expected}: a slot per 64-lane wavefront (or per lane 0-63) gathers other threads than one per " \
           "32-lane warp" in reasons[0]


def test_a_warp_count_stored_as_a_value_is_not_widened(tmp_path):
    """out[32] = blockDim.x / 32: --fix would store the wavefront count (2 for 128 threads at width
    64, where CUDA stores 4). A warp count is followed like a warp number: comparisons and
    locals keep it, a store does not."""
    body = ("__global__ void k(const int* in, int* out) {\n"
            "  int lane = threadIdx.x % 32;\n"
            "  int v = in[threadIdx.x];\n"
            "  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffff, v, o);\n"
            "  if (lane == 0) atomicAdd(&out[0], v);\n"
            "  if (threadIdx.x == 0) out[32] = blockDim.x / 32;\n"
            "}\n")
    text, findings = port(tmp_path, body, fix=True, name="k.cu")
    assert "out[32] = blockDim.x / 32;" in text
    assert logical_warp_reasons(findings) == [
        "the warp count `blockDim.x / 32` in `out[32] = blockDim.x / 32;` (line 6) keeps a 32-lane meaning: it is "
        "stored to memory, whose readers keep its 32-lane meaning"]


# -- Warp code in macro bodies (HP1118, issue 11's third hunt) ------------------------------------

_MACRO_LEAD = ("#define DEFINE_LEAD(T) \\\n"
               "  __device__ T lead(T v) { return v - __shfl_sync(0xffffffff, v, 0) + warpSize; }\n"
               "DEFINE_LEAD(int)\n"
               "__global__ void k(const int* in, int* out) {\n"
               "  int lane = threadIdx.x % 32;\n"
               "  out[threadIdx.x] = lead(in[threadIdx.x]) + lane;\n"
               "}\n")
_MACRO_MASK = ("2:51 HP1101 the full lane mask 0xffffffff of __shfl_sync was widened to hipport_wave_lanes(), the lanes "
               "of its wavefront: HIP's warp builtins take 64-bit masks")


def test_a_device_function_defined_by_a_macro_is_reported_and_fixed_as_logical_warps(tmp_path):
    """A device function written in a #define calls __shfl_sync: the port says it keeps it as
    written (HP1118) and --fix runs the macro body as 32-lane logical warps (its collectives are
    helpers, warpSize is 32). Kernel k, after the macro's call with no semicolon (its
    __global__ lies in the parser's ERROR node), is a kernel; it calls lead and runs as logical
    warps too. Before, neither the plain port nor --fix said a word about the macro, and k's
    HP1103 was lost under --fix."""
    _, findings = port(tmp_path, _MACRO_LEAD, name="k.cu")
    assert findings == [
        "1:9 HP1118 DEFINE_LEAD: the device code this macro defines calls warp collectives (__shfl_sync), and hipport "
        "does not follow collectives through macro bodies, so the port keeps it as written and its results may "
        "depend on the wavefront width (32 lanes in CUDA, 64 on gfx9)",
        _MACRO_MASK,
        "5:28 HP1103 threadIdx.x % 32: the literal 32 assumes 32-wide warps",
    ]
    text, findings = port(tmp_path, _MACRO_LEAD, name="k.cu", fix=True)
    assert _HELPER_BLOCK.sub("", text.replace(WAVE_LANES_BLOCK, "")).splitlines()[1:] == [
        "#define DEFINE_LEAD(T) \\",
        "  __device__ T lead(T v) { return v - hipport_warp32_shfl_sync(hipport_wave_lanes(), v, 0) + 32; }",
        "DEFINE_LEAD(int)",
        "__global__ void k(const int* in, int* out) {",
        "  int lane = threadIdx.x % 32;",
        "  out[threadIdx.x] = lead(in[threadIdx.x]) + lane;",
        "}",
    ]
    assert findings == [
        logical("1:9", "the code the macro DEFINE_LEAD defines") + "its collectives are macro text, whose uses --fix "
        "does not follow",
        _MACRO_MASK,
        logical("4:17", "k") + "the lane number `lane` in `out[threadIdx.x] = lead(in[threadIdx.x]) + lane;` (line 6) "
        "keeps a 32-lane meaning: it is combined with a value whose meaning is 32 lanes",
    ]


def test_a_macro_defined_device_function_is_left_with_hp1111_where_logical_warps_are_declined(tmp_path):
    source = ("void launch(int* n) { cudaDeviceProp prop; cudaGetDeviceProperties(&prop, 0); *n = prop.warpSize; }\n"
              "#define DEFINE_LEAD(T) \\\n"
              "  __device__ T lead(T v) { return v - __shfl_sync(0xffffffff, v, 0); }\n"
              "DEFINE_LEAD(int)\n")
    text, findings = port(tmp_path, source, name="k.cu", fix=True)
    assert "hipport_warp32" not in text
    assert findings[0] == (
        "2:9 HP1111 --fix left the macro DEFINE_LEAD as written: its device code calls warp collectives "
        "(__shfl_sync), which --fix does not follow through macro bodies; nor can it run as 32-lane logical warps: "
        "host code reads the device's warp size (k.cu:1), which is 64 on gfx9, while the logical warps are 32 lanes")
    assert len(findings) == 2 and " HP1101 " in findings[1]


def test_a_kernel_whose_specifier_macro_is_unknown_keeps_its_findings_under_fix(tmp_path):
    """MY_KERNEL comes from a header outside the tree, so the parser sees a host function that
    names threadIdx and __shfl_sync. The port reports its broadcast (HP1117); --fix cannot run it
    as logical warps and says so (HP1111) instead of dropping its findings."""
    source = ("#include <mylib/attrs.h>\n"
              "MY_KERNEL void k(const int* in, int* out) {\n"
              "  out[threadIdx.x] = __shfl_sync(0xffffffff, in[threadIdx.x], 0);\n"
              "}\n")
    mask = ("3:34 HP1101 the full lane mask 0xffffffff of __shfl_sync was widened to hipport_wave_lanes(), the lanes "
            "of its wavefront: HIP's warp builtins take 64-bit masks")
    _, findings = port(tmp_path, source, name="k.cu")
    assert findings == [
        "3:22 HP1117 k: the warp-collective value `__shfl_sync(0xffffffff, in[threadIdx.x], 0)` (line 3) makes the "
        "result depend on the warp's width: it is stored to memory other than a per-warp __shared__ slot written by "
        "the warp's first lane (a CUDA warp has 32 lanes, a gfx9 wavefront 64, and the port keeps this code as "
        "written)", mask]
    text, findings = port(tmp_path, source, name="k.cu", fix=True)
    assert "hipport_warp32" not in text
    assert findings == [
        "2:16 HP1111 --fix left k as written: it holds warp code but is not seen as device code (no __global__ or "
        "__device__ the parser reads), so --fix cannot run it as 32-lane logical warps", mask]
    text, findings = port(tmp_path, source.replace("  out[", "  int lane = threadIdx.x % 32;\n  out[").replace(
        ", 0);", ", 0) + lane;"), name="k.cu", fix=True)
    assert [f.split(" ")[1] for f in findings] == ["HP1111", "HP1103", "HP1101"]


def test_a_function_object_named_like_a_warp_helper_is_no_helper_of_another_file(tmp_path):
    """WarpSum() builds an object of a struct of the file: the kernel calling it is not taken as
    calling a warp helper defined elsewhere (HP1111 said so before); the functor's operator(),
    whose callers are not seen, runs as 32-lane logical warps."""
    source = ("struct WarpSum {\n"
              "  __device__ int operator()(int v) const {\n"
              "    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffff, v, o);\n"
              "    return v;\n"
              "  }\n"
              "};\n"
              "__global__ void k(const int* in, int* out) { out[threadIdx.x] = WarpSum()(in[threadIdx.x]); }\n"
              "int main() { k<<<1, 64>>>(nullptr, nullptr); WarpSum w; return 0; }\n")
    text, findings = port(tmp_path, source, name="k.cu", fix=True)
    assert "v += hipport_warp32_shfl_xor_sync(hipport_wave_lanes(), v, o);" in text
    assert findings == [logical("2:18", "operator()") + "it is the operator() of a function object, called through "
                        "objects that are not followed, so --fix does not see its callers and its warp logic keeps "
                        "CUDA's 32 lanes",
                        "3:59 HP1101 the full lane mask 0xffffffff of __shfl_xor_sync was widened to "
                        "hipport_wave_lanes(), the lanes of its wavefront: HIP's warp builtins take 64-bit masks"]


def test_a_kernel_loop_macro_with_a_body_is_the_kernel_s_own_code(tmp_path):
    """CUDA_KERNEL_LOOP(i, n) { ... } (Caffe's grid-stride loop) parses as a function inside
    the kernel: its collectives are the kernel's, run as logical warps with it, and no HP1111
    says it is not device code."""
    source = ("#define CUDA_KERNEL_LOOP(i, n) \\\n"
              "  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += blockDim.x * gridDim.x)\n"
              "__global__ void lead_diff(const int n, const float* in, float* out) {\n"
              "  CUDA_KERNEL_LOOP(index, n) {\n"
              "    float v = in[index];\n"
              "    out[index] = v - __shfl_sync(0xffffffff, v, 0);\n"
              "  }\n"
              "}\n")
    text, findings = port(tmp_path, source, name="k.cu", fix=True)
    assert "    out[index] = v - hipport_warp32_shfl_sync(hipport_wave_lanes(), v, 0);\n" in text
    assert [f.split(" ")[1] for f in findings] == ["HP1116", "HP1101"]
    assert findings[0].startswith(logical("3:17", "lead_diff"))


def test_a_ballot_stored_to_memory_and_a_broadcast_helper_are_reported_without_fix(tmp_path):
    """The fourth hunt's silent plain ports: a ballot stored through an unsigned* (the lanes
    32-63 of a 64-lane wavefront are lost), whose only other item blocks --fix without a
    finding, and a broadcast helper whose caller stores its result per thread (the helper's
    callers are seen, so the caller is where the width shows). Each gets HP1117."""
    _, findings = port(tmp_path, (
        "__global__ void k(const int* in, unsigned* out) {\n"
        "  int gid = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "  out[gid] = __ballot_sync(0xffffffff, in[gid] > 0);\n"
        "}\n"), name="k.cu")
    assert [f.split(" (a CUDA warp")[0] for f in findings if " HP1101 " not in f] == [
        "3:14 HP1117 k: the warp-collective value `__ballot_sync(0xffffffff, in[gid] > 0)` (line 3) makes the result "
        "depend on the warp's width: it is stored to memory other than a per-warp __shared__ slot written by the "
        "warp's first lane"]
    _, findings = port(tmp_path, (
        "__device__ int bcast0(int v) { return __shfl_sync(0xffffffff, v, 0); }\n"
        "__global__ void k(const int* in, int* out) {\n"
        "  int gid = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "  out[gid] = in[gid] - bcast0(in[gid]);\n"
        "}\n"), name="k.cu")
    assert [f.split(" (a CUDA warp")[0] for f in findings if " HP1101 " not in f] == [
        "4:24 HP1117 k: the warp-collective value `bcast0(in[gid])` (line 4) makes the result depend on the warp's "
        "width: it is stored to memory other than a per-warp __shared__ slot written by the warp's first lane"]


def test_a_static_member_of_a_class_template_is_the_file_s_function(tmp_path):
    """WarpOps<32>::sum(v) calls the file's member sum, not a warp helper named WarpOps defined
    in another file (HP1111 said so): the kernel and the members run as logical warps."""
    source = ("template <int W>\n"
              "struct WarpOps {\n"
              "  static __device__ int sum(int v) {\n"
              "    for (int o = W / 2; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffff, v, o);\n"
              "    return v;\n"
              "  }\n"
              "};\n"
              "__global__ void k(const int* in, int* out) {\n"
              "  int s = WarpOps<32>::sum(in[threadIdx.x]);\n"
              "  out[threadIdx.x] = s;\n"
              "}\n")
    _, findings = port(tmp_path, source, name="k.cu", fix=True)
    assert [f.split(" ")[:2] for f in findings if " HP1101 " not in f] == [["3:25", "HP1116"], ["8:17", "HP1116"]]

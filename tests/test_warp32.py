"""32-lane logical warps, --fix's fallback for units the widening declines (HP1116, hipport/warp32.py).

The fixtures of tests/fixtures/warp32/ are CUDA programs whose warp logic is 32-wide by design,
each checking its results on the host:

* vote_host_width: the host hands the kernel the warp width it checks against (32) and checks
  one any/all/ballot triple per 32 threads; the ballot leaves through an ``unsigned int*``;
* lane_bins: a 32-bin histogram whose bin b is owned by lane b of every warp, and a butterfly
  maximum from offset 16;
* intrinsics32: every intrinsic the helpers stand for (shuffles with widths 32, 16, 8 and lane
  arguments of 32 and more, ballot, any, all, activemask in a branch), against CUDA's definitions.

The proof by contrast, in the wavefront emulator (hipport.emulator): the port without --fix at
width 32 has the CUDA logic at the width it was written for and gives output.txt (its host
check prints Test PASSED); at width 64 it is wrong; the --fix output (fixed.hip, exact) gives
output.txt at widths 64 and 32. The --fix outputs compile for gfx90a and gfx1100 and as HIP on
NVIDIA (sm_90), where each helper is CUDA's own intrinsic.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from hipport import emulator, warp32
from hipport.convert import ConvertOptions, convert_tree

FIXTURES = Path(__file__).parent / "fixtures" / "warp32"
CASES = ["vote_host_width", "lane_bins", "intrinsics32"]
LOGICAL = ("as 32-lane logical warps: its shuffles, votes and warpSize act on 32-lane halves of the wavefront "
           "(hipport_warp32_* helpers), so its 32-wide logic holds at wavefront widths 32 and 64; it was not widened "
           "because ")
NOT_LOGICAL = "; nor can it run as 32-lane logical warps: "


def convert(source: Path, out: Path, fix: bool) -> tuple[Path, list[str]]:
    """Convert ``source`` (a file) into ``out``: (the ported file, its HP11xx findings as
    ``line:column id message``)."""
    report = convert_tree(source, out, ConvertOptions(fix=fix)).report
    ported = out / (source.stem + ".hip" if source.suffix == ".cu" else source.name)
    return ported, [f"{f.line}:{f.column} {f.rule_id} {f.message}" for f in report.findings if f.rule_id.startswith("HP11")]


@pytest.fixture(scope="module")
def ports(tmp_path_factory):
    """{case: (unfixed port, --fix output)}."""
    root = tmp_path_factory.mktemp("warp32-ports")
    return {case: tuple(convert(FIXTURES / case / "original.cu", root / case / str(fix), fix)[0]
                        for fix in (False, True)) for case in CASES}


def run(path: Path, wave: int) -> emulator.RunResult:
    return emulator.execute(path, wave=wave, timeout=120)


def reference(case: str) -> str:
    return (FIXTURES / case / "output.txt").read_text()


def port_text(tmp_path: Path, body: str, fix: bool = True, name: str = "k.cu") -> tuple[str, list[str]]:
    source = tmp_path / name
    source.write_text(body)
    ported, findings = convert(source, tmp_path / ("fix" if fix else "port"), fix)
    return ported.read_text(), findings


# -- the fixtures in the emulator ---------------------------------------------------------------

@pytest.mark.parametrize("case", ["vote_host_width", "lane_bins"])
def test_unfixed_port_at_width_32_is_the_reference(case, ports):
    result = run(ports[case][0], 32)
    assert (result.returncode, result.stdout) == (0, reference(case))
    assert result.stdout.endswith("Test PASSED\n")


def test_vote_host_width_unfixed_at_width_64_is_wrong(ports):
    """Votes over 64 lanes: any/all mix two groups of 32, and each 32-bit ballot keeps the low
    half of its wavefront, so the odd groups get their even neighbour's bits."""
    result = run(ports["vote_host_width"][0], 64)
    assert (result.returncode, result.stdout) == (1, (
        "group 0: any 0 all 0 ballot 0x14294294 WRONG\n"
        "group 1: any 0 all 0 ballot 0x14294294 WRONG\n"
        "group 2: any 1 all 0 ballot 0x852850a5 WRONG\n"
        "group 3: any 1 all 0 ballot 0x852850a5 WRONG\n"
        "group 4: any 1 all 0 ballot 0xa10a14a1 WRONG\n"
        "group 5: any 1 all 0 ballot 0xa10a14a1 WRONG\n"
        "group 6: any 1 all 0 ballot 0x29409428 WRONG\n"
        "group 7: any 1 all 0 ballot 0x29409428 WRONG\n"
        "Test FAILED\n"))


def test_lane_bins_unfixed_at_width_64_is_wrong(ports):
    """The 32-bit ballot drops lanes 32-63 of each wavefront and lanes 32-63 own bins again:
    the counts are wrong (and the grid-stride total too)."""
    result = run(ports["lane_bins"][0], 64)
    assert (result.returncode, result.stdout) == (1, (
        "bins: 188 176 196 84 164 204 180 86\n"
        "bins: 188 168 174 102 178 170 178 84\n"
        "bins: 172 188 170 84 178 174 192 88\n"
        "bins: 170 182 176 88 192 170 164 100\n"
        "total 5008, largest 997\n"
        "Test FAILED\n"))


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("wave", [64, 32])
def test_fix_output_gives_the_reference_at_both_widths(case, wave, ports):
    assert ports[case][1].read_text() == (FIXTURES / case / "fixed.hip").read_text()
    result = run(ports[case][1], wave)
    assert (result.returncode, result.stdout) == (0, reference(case))
    assert result.stdout.endswith("Test PASSED\n")


@pytest.mark.parametrize("case", CASES)
def test_fix_findings_are_exact(case, tmp_path):
    """One HP1116 per device function of the unit, naming what the widening could not rewrite;
    no HP1111 and none of the 32-wide assumption findings of the plain port (they hold now); the
    literal full masks are widened as in the plain port (the helpers take any mask type)."""
    _, fixed = convert(FIXTURES / case / "original.cu", tmp_path / "fix", True)
    _, plain = convert(FIXTURES / case / "original.cu", tmp_path / "port", False)
    assert fixed == (FIXTURES / case / "findings-fix.txt").read_text().splitlines()
    assert plain == (FIXTURES / case / "findings-port.txt").read_text().splitlines()
    assert [f for f in fixed if " HP1116 " not in f] == [f for f in plain if " HP1101 " in f]
    assert all(LOGICAL in f for f in fixed if " HP1116 " in f)


def test_vote_host_width_findings_name_the_ballot_store(tmp_path):
    _, fixed = convert(FIXTURES / "vote_host_width" / "original.cu", tmp_path, True)
    assert fixed[0] == ("12:17 HP1116 --fix ported group_votes " + LOGICAL + "the lane mask `bits` is used in "
                        "`multiples_of_three[group] = bits;` (line 24), which --fix cannot widen to 64 bits")


@pytest.mark.parametrize("case", CASES)
def test_fix_output_fixed_again_is_unchanged(case, tmp_path):
    """A --fix of the --fix output changes nothing (its functions call the helpers already: they
    stay logical warps, and the helpers themselves are not the code's)."""
    source = tmp_path / "again.hip"
    source.write_text((FIXTURES / case / "fixed.hip").read_text())
    again, findings = convert(source, tmp_path / "again", True)
    assert again.read_text() == source.read_text()
    assert not [f for f in findings if " HP1111 " in f or " HP1107 " in f]


# -- the helpers compile for AMD (both widths) and as HIP on NVIDIA ------------------------------

@pytest.mark.parametrize("case", CASES)
def test_fixed_fixture_compiles_for_gfx90a_gfx1100_and_nvidia(case, toolchain, tmp_path):
    source = tmp_path / "fixed.hip"
    source.write_text((FIXTURES / case / "fixed.hip").read_text())
    toolchain.compile_amd(source, tmp_path / "k.o", ("gfx90a", "gfx1100"))
    assert toolchain.code_object_targets(tmp_path / "k.o") == [
        "hipv4-amdgcn-amd-amdhsa--gfx1100", "hipv4-amdgcn-amd-amdhsa--gfx90a"]
    toolchain.compile_nvidia(source, tmp_path / "k-nvidia", link=True)  # HIP on NVIDIA: CUDA's own intrinsics


EVERY_HELPER = (
    "#include <cstdio>\n"
    "__device__ int store(unsigned int* out, int v, float f, double d, long long l) {\n"
    "  unsigned int b = __ballot_sync(0xffffffff, v > 0);\n"
    "  *out = b;\n"
    "  int pred = 0;\n"
    "  unsigned int any = __match_any_sync(0xffffffff, v);\n"
    "  unsigned int all = __match_all_sync(0xffffffff, f, &pred);\n"
    "  float g = __shfl_sync(0xffffffff, f, 1) + __shfl_up_sync(0xffffffff, f, 1, 16);\n"
    "  double e = __shfl_down_sync(0xffffffff, d, 2) + __shfl_xor_sync(0xffffffff, d, 1, warpSize);\n"
    "  long long m = __shfl_sync(0xffffffff, l, 3);\n"
    "  __syncwarp();\n"
    "  return any + all + pred + (int)g + (int)e + (int)m + __any_sync(0xffffffff, v) + __all_sync(0xffff, v) "
    "+ (int)__activemask();\n"
    "}\n"
    "__global__ void k(unsigned int* out, int* r) { r[threadIdx.x] = store(out + threadIdx.x, r[threadIdx.x], 1.0f, "
    "2.0, 3); }\n")


def test_every_helper_is_emitted_once_and_compiles(toolchain, tmp_path):
    """Every intrinsic at once (store's ballot leaves through a pointer: not widened): each
    helper defined once, before store, guarded, and __syncwarp as HP1115 rewrites it; the AMD definitions compile for gfx90a and
    gfx1100 (HIP 6.4's __match_any with HIP_ENABLE_WARP_SYNC_BUILTINS, as hipport's builds
    define it), and HIP on NVIDIA (sm_90) gets CUDA's intrinsics."""
    text, findings = port_text(tmp_path, EVERY_HELPER)
    helpers = sorted(set(re.findall(r"#define (HIPPORT_WARP32_\w+)\n", text)))
    assert helpers == sorted("HIPPORT_WARP32_" + name[len(warp32.HELPER_PREFIX):].upper()
                             for name in [*warp32.RENAMES.values(), "hipport_warp32_half"])
    assert text.index("#ifndef HIPPORT_WARP32_") < text.index("__device__ int store(")
    body = text[text.index("__device__ int store("):]
    assert not re.search(r"(?<!_)__(shfl\w*|ballot|any|all|match_\w+)_sync\(|__activemask\(|warpSize", body)
    assert "hipport_warp32_shfl_xor_sync(hipport_wave_lanes(), d, 1, 32)" in body
    assert "  HIPPORT_SYNCWARP();\n" in body  # __syncwarp as hipport/syncwarp.py writes it (HP1115)
    assert [f.split(" as 32-lane")[0] for f in findings if " HP1116 " in f] == [
        "2:16 HP1116 --fix ported store", "14:17 HP1116 --fix ported k"]
    source = tmp_path / "every.hip"
    source.write_text(text)
    toolchain.compile_amd(source, tmp_path / "every.o", ("gfx90a", "gfx1100"))
    toolchain.compile_nvidia(source, tmp_path / "every-nvidia.o", link=False)


def test_helpers_block_holds_only_what_is_used_and_what_it_needs():
    block = warp32.helpers_block({"hipport_warp32_all_sync"}).decode()
    assert re.findall(r"#ifndef (\w+)", block) == [
        "HIPPORT_WARP32_HALF", "HIPPORT_WARP32_BALLOT_SYNC", "HIPPORT_WARP32_ALL_SYNC"]
    assert "#else\n#define hipport_warp32_all_sync __all_sync\n#endif\n" in block
    assert "__match_any" not in block and "__shfl" not in block.split("*/", 1)[1]
    assert warp32.helpers_block({"hipport_warp32_shfl_sync"}, b"\r\n").count(b"\n") == \
        warp32.helpers_block({"hipport_warp32_shfl_sync"}, b"\r\n").count(b"\r\n")


# -- which strategy, and where logical warps are declined ----------------------------------------

def test_one_file_widens_one_unit_and_runs_the_other_as_logical_warps(tmp_path):
    """Two units of one file: sum with its caller total widens (HP1107), rank cannot (its ballot
    is stored) and runs as logical warps; neither gets the other's rewrites."""
    text, findings = port_text(tmp_path, (
        "__device__ float sum(float v) {\n"
        "  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffff, v, o);\n"
        "  return v;\n"
        "}\n"
        "__global__ void rank(const int* in, unsigned int* bits) {\n"
        "  unsigned int b = __ballot_sync(0xffffffff, in[threadIdx.x] > 0);\n"
        "  if (threadIdx.x % 32 == 0) bits[threadIdx.x / 32] = b;\n"
        "}\n"
        "__global__ void total(const float* in, float* out) {\n"
        "  float s = sum(in[threadIdx.x]);\n"
        "  if (threadIdx.x % 32 == 0) atomicAdd(out, s);\n"
        "}\n"))
    assert "  for (int o = warpSize / 2; o > 0; o >>= 1) v += __shfl_down_sync(hipport_wave_lanes(), v, o);\n" in text
    assert "  unsigned int b = hipport_warp32_ballot_sync(hipport_wave_lanes(), in[threadIdx.x] > 0);\n" in text
    assert "  if (threadIdx.x % 32 == 0) bits[threadIdx.x / 32] = b;\n" in text
    assert "hipport_warp32_shfl" not in text
    assert [f.split(" (--fix)")[0].split(" as 32-lane")[0] for f in findings] == [
        "2:16 HP1107 the shuffle loop: 16 rewritten to warpSize / 2",
        "2:58 HP1101 the full lane mask 0xffffffff of __shfl_down_sync was widened to hipport_wave_lanes(), the lanes of its wavefront: HIP's "
        "warp builtins take 64-bit masks",
        "5:17 HP1116 --fix ported rank",
        "6:34 HP1101 the full lane mask 0xffffffff of __ballot_sync was widened to hipport_wave_lanes(), the lanes of its wavefront: HIP's warp "
        "builtins take 64-bit masks",
        "11:21 HP1107 lane arithmetic: % 32 rewritten to % warpSize",
    ]


_STORED_BALLOT = ("__global__ void k(const int* in, unsigned int* bits) {\n"
                  "  unsigned int b = __ballot_sync(0xffffffff, in[threadIdx.x] > 0);\n"
                  "  bits[threadIdx.x / 32] = b;\n"
                  "{extra}"
                  "}\n")
_NOT_WIDENED = ("1:17 HP1111 --fix left k as written: the lane mask `b` is used in `bits[threadIdx.x / 32] = b;` "
                "(line 3), which --fix cannot widen to 64 bits" + NOT_LOGICAL)


@pytest.mark.parametrize("before, extra, why", [
    pytest.param("void launch(int* n) { cudaDeviceProp prop; cudaGetDeviceProperties(&prop, 0); *n = prop.warpSize; }\n",
                 "", "host code reads the device's warp size (k.cu:1), which is 64 on gfx9, while the logical warps "
                 "are 32 lanes", id="prop-warpSize"),
    pytest.param("void launch(int* n) { cudaDeviceGetAttribute(n, cudaDevAttrWarpSize, 0); }\n",
                 "", "host code reads the device's warp size (k.cu:1), which is 64 on gfx9, while the logical warps "
                 "are 32 lanes", id="cudaDevAttrWarpSize"),
    pytest.param("#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n",
                 "  cg::this_thread_block().sync();\n",
                 "k uses cg:: (line 6), whose tiles and warp primitives are of the wavefront's width",
                 id="cooperative-groups"),
    pytest.param("", "  int lane; asm(\"mov.u32 %0, %%laneid;\" : \"=r\"(lane)); bits[0] += lane;\n",
                 "k reads %laneid in inline PTX (line 4)", id="ptx-laneid"),
    pytest.param("", "  bits[1] = __shfl(bits[1], 0);\n",
                 "k calls the pre-CUDA-9 warp intrinsic __shfl, which HIP has at the wavefront width (line 4)",
                 id="legacy-shfl"),
    pytest.param("", "  bits[2] = __reduce_add_sync(0xffffffff, 1u);\n",
                 "k calls __reduce_add_sync, which HIP 6.4 does not have (line 4)", id="reduce-sync"),
    pytest.param("#define BCAST(v) __shfl_sync(0xffffffff, v, 0)\n", "  bits[3] = BCAST(bits[3]);\n",
                 "k uses the macro BCAST (line 5), whose body (line 1) holds a warp intrinsic that --fix does not "
                 "rewrite", id="macro-with-a-shuffle"),
])
def test_logical_warps_are_declined_where_they_are_not_shown_right(tmp_path, before, extra, why):
    text, findings = port_text(tmp_path, before + _STORED_BALLOT.replace("{extra}", extra))
    lines = before.count("\n")
    expected = _NOT_WIDENED.replace("1:17 ", f"{lines + 1}:17 ").replace("(line 3)", f"(line {lines + 3})") + why
    assert expected in findings
    assert "hipport_warp32_" not in text
    assert not [f for f in findings if " HP1116 " in f]


@pytest.mark.parametrize("own", [
    pytest.param("__device__ unsigned int hipport_warp32_ballot_sync(unsigned int m, int p) { return __ballot_sync(m, p); }\n",
                 id="function"),
    pytest.param("#define hipport_warp32_ballot_sync(m, p) __ballot_sync(m, p)\n", id="macro"),
])
def test_code_defining_a_helper_name_itself_declines_logical_warps(tmp_path, own):
    """A file that defines a helper's name itself (not inside the helper's own #ifndef guard):
    the helpers' ``#define hipport_warp32_ballot_sync __ballot_sync`` under nvcc would rename
    the code's definition, and their AMD definition would clash with it, so the unit stays as
    written and HP1111 names the definition; the code's own definition is not taken for one of
    hipport's helpers (its 32-bit mask is reported like any other code's)."""
    text, findings = port_text(tmp_path, own + _STORED_BALLOT.replace("{extra}", ""))
    why = "the file defines hipport_warp32_ballot_sync itself (line 1), the name of a helper the logical warps would define"
    assert _NOT_WIDENED.replace("1:17 ", "2:17 ").replace("(line 3)", "(line 4)") + why in findings
    assert "HIPPORT_WARP32_" not in text and not [f for f in findings if " HP1116 " in f]
    assert text.startswith("#include <hip/hip_runtime.h>\n" + own)


def test_a_function_of_the_code_named_with_the_helper_prefix_is_scanned(tmp_path):
    """Only hipport's helpers inside their guards are skipped: the code's own
    hipport_warp32_sum is scanned, and runs as logical warps with its caller."""
    text, findings = port_text(tmp_path, (
        "__device__ unsigned int hipport_warp32_sum(unsigned int v) { return __ballot_sync(0xffffffff, v > 0); }\n"
        "__global__ void k(unsigned int* out) { out[threadIdx.x / 32] = hipport_warp32_sum(threadIdx.x); }\n"))
    assert "return hipport_warp32_ballot_sync(hipport_wave_lanes(), v > 0);" in text
    assert [f.split(" as 32-lane")[0] for f in findings if " HP1116 " in f] == [
        "1:25 HP1116 --fix ported hipport_warp32_sum", "2:17 HP1116 --fix ported k"]


def test_host_read_of_the_warp_size_in_another_file_declines_logical_warps(tmp_path):
    """The tree pass sees every file: main.cu reads prop.warpSize, so k.cu's unit stays as
    written (it would see 32-lane warps where the host computes with 64)."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "k.cu").write_text(_STORED_BALLOT.replace("{extra}", ""))
    (src / "main.cu").write_text("#include <cuda_runtime.h>\nint width() { cudaDeviceProp p; "
                                 "cudaGetDeviceProperties(&p, 0); return p.warpSize; }\n")
    report = convert_tree(src, tmp_path / "out", ConvertOptions(fix=True)).report
    assert [f"{f.path}:{f.line}:{f.column} {f.rule_id} {f.message}" for f in report.findings if f.rule_id == "HP1111"] == [
        "k.cu:" + _NOT_WIDENED + "host code reads the device's warp size (main.cu:2), which is 64 on gfx9, while the "
        "logical warps are 32 lanes"]
    assert "hipport_warp32_" not in (tmp_path / "out" / "k.hip").read_text()


def test_explain_names_the_strategy():
    from hipport.rules import load_rules

    check = load_rules().check("warp-logical-fixed")
    assert (check.id, check.severity) == ("HP1116", "info")
    assert "32-lane logical warps" in check.explanation and "widening wins where it applies" in check.explanation


_TREE_HEADER = ("#pragma once\n"
                "constexpr int kWarpSize = 32;\n"
                "__device__ inline int lane_id() { return threadIdx.x & (kWarpSize - 1); }\n"
                "__device__ inline unsigned int keep(bool p, unsigned int* out) {\n"
                "  unsigned int b = __ballot_sync(0xffffffff, p);\n"
                "  *out = b;\n"
                "  return b;\n"
                "}\n")
_TREE_USER = ('#include "w.cuh"\n'
              "{before}"
              "__global__ void total(const float* in, float* out) {{\n"
              "  float v = in[threadIdx.x];\n"
              "  for (int o = warpSize / 2; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffffffffffULL, v, o);\n"
              "  if (lane_id() == 0) out[threadIdx.x / kWarpSize + warpSize - 32] = v;\n"
              "{extra}"
              "}}\n")


def _tree(tmp_path: Path, before: str = "", extra: str = "") -> tuple[Path, list[str]]:
    src = tmp_path / "src"
    src.mkdir()
    (src / "w.cuh").write_text(_TREE_HEADER)
    (src / "a.cu").write_text('#include "w.cuh"\n__global__ void mark(const int* in, unsigned int* bits) '
                              "{ keep(in[threadIdx.x] > 0, bits + threadIdx.x / kWarpSize + lane_id()); }\n")
    (src / "b.cu").write_text(_TREE_USER.format(before=before, extra=extra))
    report = convert_tree(src, tmp_path / "out", ConvertOptions(fix=True)).report
    return tmp_path / "out", [f"{f.path}:{f.line} {f.rule_id}" for f in report.findings if f.rule_id in ("HP1111", "HP1116")]


def test_a_file_with_no_assumption_of_its_own_runs_as_logical_warps_with_its_header(tmp_path):
    """b.cu is right for widening on its own (a loop from warpSize / 2), but it calls lane_id of
    w.cuh and uses its kWarpSize, which the tree runs as logical warps (a.cu's keep stores its
    ballot): b.cu's kernel must see 32-lane warps too, so its shuffle and warpSize are rewritten
    with the header's."""
    out, findings = _tree(tmp_path)
    kernel = (out / "b.hip").read_text()
    assert ("  for (int o = 32 / 2; o > 0; o >>= 1) v += hipport_warp32_shfl_down_sync(0xffffffffffffffffULL, v, o);\n"
            in kernel)
    assert "  if (lane_id() == 0) out[threadIdx.x / kWarpSize + 32 - 32] = v;\n" in kernel
    assert "hipport_warp32_ballot_sync(hipport_wave_lanes(), p)" in (out / "w.cuh").read_text()
    assert findings == ["a.cu:2 HP1116", "b.cu:2 HP1116", "w.cuh:3 HP1116", "w.cuh:4 HP1116"]


def test_cooperative_groups_in_one_file_decline_logical_warps_across_the_tree(tmp_path):
    """The same tree, b.cu's kernel also using cooperative groups: the tree's unit cannot run as
    logical warps anywhere, so every file keeps it as written (HP1111 in each)."""
    out, findings = _tree(tmp_path, before="#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n",
                          extra="  cg::this_thread_block().sync();\n")
    assert findings == ["a.cu:2 HP1111", "b.cu:4 HP1111", "w.cuh:2 HP1111", "w.cuh:3 HP1111", "w.cuh:4 HP1111"]
    assert not [p for p in out.rglob("*") if p.is_file() and "hipport_warp32_" in p.read_text(errors="replace")
                and p.suffix in (".hip", ".cuh")]


def _two_programs(tmp_path: Path, second_header: bool = False) -> list[str]:
    """Two programs of one tree (HeCBench's layout), each with its own w.cuh defining
    kWarpSize, lane_id and keep; the second's kernel also uses cooperative groups. With
    ``second_header`` the first program's a.cu includes the second's header too. Returns the
    HP1111/HP1116 findings as ``path:line id``."""
    src = tmp_path / "src"
    for program in ("one", "two"):
        (src / program).mkdir(parents=True)
        (src / program / "Makefile").write_text("all:\n\tnvcc a.cu b.cu\n")
        (src / program / "w.cuh").write_text(_TREE_HEADER)
        (src / program / "a.cu").write_text(
            '#include "w.cuh"\n' + ('#include "../two/w.cuh"\n' if second_header and program == "one" else "")
            + "__global__ void mark(const int* in, unsigned int* bits) "
            "{ keep(in[threadIdx.x] > 0, bits + threadIdx.x / kWarpSize + lane_id()); }\n")
    (src / "one" / "b.cu").write_text(_TREE_USER.format(before="", extra=""))
    (src / "two" / "b.cu").write_text(_TREE_USER.format(
        before="#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n",
        extra="  cg::this_thread_block().sync();\n"))
    report = convert_tree(src, tmp_path / "out", ConvertOptions(fix=True)).report
    return [f"{f.path}:{f.line} {f.rule_id}" for f in report.findings if f.rule_id in ("HP1111", "HP1116")]


def test_two_programs_with_the_same_header_names_are_decided_apart(tmp_path):
    """Names a header shares link only the files compiled with it: program two's cooperative
    groups decline logical warps in program two only, and program one's files (the same names
    in its own header) run as logical warps (once both were joined by name across the tree,
    HeCBench atomicAggregate and bscan by adamw's header)."""
    findings = _two_programs(tmp_path)
    assert findings == ["one/a.cu:2 HP1116", "one/b.cu:2 HP1116", "one/w.cuh:3 HP1116", "one/w.cuh:4 HP1116",
                        "two/a.cu:2 HP1111", "two/b.cu:4 HP1111", "two/w.cuh:2 HP1111", "two/w.cuh:3 HP1111",
                        "two/w.cuh:4 HP1111"]


def test_a_name_two_headers_of_one_translation_unit_define_is_not_widened(tmp_path):
    """one/a.cu includes both programs' w.cuh (kWarpSize twice): --fix cannot tell which
    definition a use means, so it does not widen kWarpSize's users; program one still runs as
    logical warps (which keep kWarpSize as written), and HP1116 names the two headers."""
    findings = _two_programs(tmp_path, second_header=True)
    assert findings == ["one/a.cu:3 HP1116", "one/b.cu:2 HP1116", "one/w.cuh:3 HP1116", "one/w.cuh:4 HP1116",
                        "two/a.cu:2 HP1111", "two/b.cu:4 HP1111", "two/w.cuh:2 HP1111", "two/w.cuh:3 HP1111",
                        "two/w.cuh:4 HP1111"]
    report = (tmp_path / "out" / "hipport-report.md").read_text()
    assert ("it was not widened because the warp-size constant kWarpSize is defined in more than one header compiled "
            "with one/a.cu (one/w.cuh, two/w.cuh), so --fix cannot tell which definition a file uses") \
        in report.replace("`", "")


def test_a_read_of_the_warp_size_declines_only_its_own_program(tmp_path):
    """A tree of two programs (each folder with its CMakeLists.txt, as in cuda-samples): query/
    prints prop.warpSize, votes/ runs as logical warps all the same; a file of the same program,
    or one it includes, would decline it (test above)."""
    src = tmp_path / "src"
    for program in ("query", "votes"):
        (src / program).mkdir(parents=True)
        (src / program / "CMakeLists.txt").write_text(f"add_executable({program} main.cu)\n")
    (src / "CMakeLists.txt").write_text("add_subdirectory(query)\nadd_subdirectory(votes)\n")
    (src / "query" / "main.cu").write_text(
        "#include <cstdio>\nint main() { cudaDeviceProp p; cudaGetDeviceProperties(&p, 0); "
        "printf(\"%d\\n\", p.warpSize); return 0; }\n")
    (src / "votes" / "main.cu").write_text(_STORED_BALLOT.replace("{extra}", ""))
    report = convert_tree(src, tmp_path / "out", ConvertOptions(fix=True)).report
    assert [f"{f.path}:{f.line} {f.rule_id}" for f in report.findings if f.rule_id in ("HP1111", "HP1116")] == [
        "votes/main.cu:1 HP1116"]
    (src / "votes" / "size.cpp").write_text("int size(const cudaDeviceProp& p) { return p.warpSize; }\n")
    report = convert_tree(src, tmp_path / "out2", ConvertOptions(fix=True)).report
    assert [f"{f.path}:{f.line} {f.rule_id}" for f in report.findings if f.rule_id in ("HP1111", "HP1116")] == [
        "votes/main.cu:1 HP1111"]


def test_a_kernel_of_a_header_runs_as_logical_warps_with_the_host_code_launching_it(tmp_path):
    """votes.cuh holds only a __global__ kernel (widenable on its own); main.cu launches it with
    its own warp width of 32, which host code cannot widen: the tree pass takes the header's
    kernels too (not only __device__ functions), so the kernel runs as 32-lane logical warps with
    its launcher instead of being widened to 64-lane votes the host then checks per 32."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "votes.cuh").write_text("#pragma once\n__global__ void votes(const int* in, int* any, int width) {\n"
                                   "  any[threadIdx.x] = __any_sync(0xffffffff, in[threadIdx.x]);\n}\n")
    (src / "main.cu").write_text('#include "votes.cuh"\nint main() {\n  const int warp_size = 32;\n'
                                 "  int *in = nullptr, *any = nullptr;\n"
                                 "  votes<<<1, 4 * warp_size>>>(in, any, warp_size);\n  return 0;\n}\n")
    report = convert_tree(src, tmp_path / "out", ConvertOptions(fix=True)).report
    assert [f"{f.path}:{f.line} {f.rule_id}" for f in report.findings if f.rule_id.startswith("HP11")] == [
        "votes.cuh:2 HP1116", "votes.cuh:3 HP1101"]
    assert "  any[threadIdx.x] = hipport_warp32_any_sync(hipport_wave_lanes(), in[threadIdx.x]);\n" in (
        tmp_path / "out" / "votes.cuh").read_text()


_OWN_WARP_SIZE = """\
#include <cstdio>
#include <cuda_runtime.h>
__device__ int warp_max(int v) {
  int   warpSize = 32;
  for (int offset = warpSize / 2; offset > 0; offset /= 2) v = max(v, __shfl_down_sync(0xffffffff, v, offset));
  return v;
}
__global__ void maxima(const int* in, int* out) {
  const int v = warp_max(in[threadIdx.x]);
  if (threadIdx.x % 32 == 0) out[threadIdx.x / 32] = v;
}
int main() {
  int h[128], r[4], *d, *o;
  for (int i = 0; i < 128; ++i) h[i] = (i * 53) % 97;
  cudaMalloc(&d, sizeof(h));
  cudaMalloc(&o, sizeof(r));
  cudaMemcpy(d, h, sizeof(h), cudaMemcpyHostToDevice);
  maxima<<<1, 128>>>(d, o);
  cudaMemcpy(r, o, sizeof(r), cudaMemcpyDeviceToHost);
  int bad = 0;
  for (int w = 0; w < 4; ++w) {
    int m = 0;
    for (int i = 32 * w; i < 32 * w + 32; ++i) m = h[i] > m ? h[i] : m;
    printf("warp %d max %d\\n", w, r[w]);
    bad += r[w] != m;
  }
  printf(bad ? "Test FAILED\\n" : "Test PASSED\\n");
  return bad != 0;
}
"""


@pytest.mark.parametrize("wave", [64, 32])
def test_code_declaring_its_own_warp_size_keeps_it_and_runs_as_logical_warps(tmp_path, wave):
    """A local ``int warpSize = 32;`` (HeCBench bsw) hides HIP's warpSize: the widening must not
    call its uses fixed (the loop would still start at 16 on wave64), and the logical-warp
    rewrite keeps the declaration (it wrote ``int 32 = 32;`` before)."""
    text, findings = port_text(tmp_path, _OWN_WARP_SIZE)
    assert "  int   warpSize = 32;\n" in text
    assert ("  for (int offset = warpSize / 2; offset > 0; offset /= 2) "
            "v = max(v, hipport_warp32_shfl_down_sync(hipport_wave_lanes(), v, offset));\n") in text
    reason = ("the code declares its own warpSize = 32 (line 4), which hides HIP's warpSize: its uses stay 32 "
              "on 64-wide wavefronts (rename it, or delete it to use HIP's)")
    assert [f for f in findings if "HP1107" in f] == []
    assert findings[0] == "3:16 HP1116 --fix ported warp_max " + LOGICAL + reason
    result = run(tmp_path / "fix" / "k.hip", wave)
    assert (result.returncode, result.stdout) == (0, "warp 0 max 91\nwarp 1 max 93\nwarp 2 max 96\nwarp 3 max 90\n"
                                                      "Test PASSED\n")


_MASK_MACRO = """\
#include <cstdio>
#include <cuda_runtime.h>
#define mask 0xFFFFFFFF
__global__ void votes(const int* in, unsigned int* bits, int* firsts) {
  const unsigned int b = __ballot_sync(mask, in[threadIdx.x] > 0);
  const int first = __shfl_sync(mask, in[threadIdx.x], 0);
  if (threadIdx.x % 32 == 0) { bits[threadIdx.x / 32] = b; firsts[threadIdx.x / 32] = first; }
}
int main() {
  int h[128], f[4], *d, *df;
  unsigned int r[4], *dr;
  for (int i = 0; i < 128; ++i) h[i] = (i * 7) % 5 - 2;
  cudaMalloc(&d, sizeof(h));
  cudaMalloc(&dr, sizeof(r));
  cudaMalloc(&df, sizeof(f));
  cudaMemcpy(d, h, sizeof(h), cudaMemcpyHostToDevice);
  votes<<<1, 128>>>(d, dr, df);
  cudaMemcpy(r, dr, sizeof(r), cudaMemcpyDeviceToHost);
  cudaMemcpy(f, df, sizeof(f), cudaMemcpyDeviceToHost);
  int bad = 0;
  for (int w = 0; w < 4; ++w) {
    unsigned int want = 0;
    for (int l = 0; l < 32; ++l) want |= (h[32 * w + l] > 0 ? 1u : 0u) << l;
    printf("warp %d ballot 0x%08x first %d\\n", w, r[w], f[w]);
    bad += r[w] != want || f[w] != h[32 * w];
  }
  printf(bad ? "Test FAILED\\n" : "Test PASSED\\n");
  return bad != 0;
}
"""


_HEADER_MACROS = "#define mask 0xFFFFFFFF\n#define T int\n#define var 1\n#define width 8\n#define predicate 0\n"


def _port_with_macros(tmp_path: Path, where: str) -> str:
    """_MASK_MACRO with ``#define mask 0xFFFFFFFF`` (HeCBench jaccard) and macros named like
    the other words a helper could use, in the file itself (``where="file"``) or in a header it
    includes (``"header"``, which the port cannot see); returns the --fix output."""
    tree = tmp_path / "src"
    tree.mkdir()
    body = _MASK_MACRO.replace("#define mask 0xFFFFFFFF\n", _HEADER_MACROS if where == "file" else '#include "params.h"\n')
    (tree / "k.cu").write_text(body)
    if where == "header":
        (tree / "params.h").write_text(_HEADER_MACROS)
    convert_tree(tree, tmp_path / "fix", ConvertOptions(fix=True))
    return (tmp_path / "fix" / "k.hip").read_text()


@pytest.mark.parametrize("where", ["file", "header"])
@pytest.mark.parametrize("wave", [64, 32])
def test_helpers_are_immune_to_macros_named_like_ordinary_words(tmp_path, wave, where):
    """Macros named ``mask``, ``T``, ``var``, ``width``, ``predicate`` above the helpers, in the
    file or in a header it includes: the helpers' parameters are hipport_ names (as every block
    the port inserts, tests/test_inserted_blocks.py), so no macro of the user's changes them, no
    macro needs saving around them, and the kernel after them still uses its macros."""
    text = _port_with_macros(tmp_path, where)
    assert "push_macro" not in text
    assert "hipport_warp32_ballot_sync(hipport_MaskT hipport_mask, int hipport_predicate)" in text
    assert "  const unsigned int b = hipport_warp32_ballot_sync(mask, in[threadIdx.x] > 0);\n" in text
    result = run(tmp_path / "fix" / "k.hip", wave)
    assert (result.returncode, result.stdout) == (0, "warp 0 ballot 0x294a5294 first -2\n"
                                                      "warp 1 ballot 0x4a5294a5 first 2\n"
                                                      "warp 2 ballot 0x5294a529 first 1\n"
                                                      "warp 3 ballot 0x94a5294a first 0\n"
                                                      "Test PASSED\n")


def test_helpers_under_header_macros_compile_for_gfx90a_gfx1100_and_nvidia(toolchain, tmp_path):
    _port_with_macros(tmp_path, "header")
    source = tmp_path / "fix" / "k.hip"
    toolchain.compile_amd(source, tmp_path / "k.o", ("gfx90a", "gfx1100"))
    assert toolchain.code_object_targets(tmp_path / "k.o") == [
        "hipv4-amdgcn-amd-amdhsa--gfx1100", "hipv4-amdgcn-amd-amdhsa--gfx90a"]
    toolchain.compile_nvidia(source, tmp_path / "k-nvidia", link=True)


_DIVERGENT_HALVES = """\
#include <cstdio>
#include <cuda_runtime.h>
__global__ void k(int* out) {
  int v = threadIdx.x;
  if ((threadIdx.x / 32) % 2 == 0) {
    v = __shfl_sync(0xffffffff, v, 3);
  } else {
    v = __shfl_down_sync(0xffffffff, v, 1);
  }
  if (threadIdx.x % 32 == 0) out[threadIdx.x / 32] = 31 - (threadIdx.x % 32) + v;
}
int main() {
  int* d;
  cudaMalloc(&d, 2 * sizeof(int));
  k<<<1, 64>>>(d);
  int h[2];
  cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost);
  printf("%d %d\\n", h[0], h[1]);
  return 0;
}
"""


def test_emulator_messages_name_the_users_call_of_a_helper_not_the_helper(tmp_path):
    """The two 32-lane halves of a wavefront at two different shuffles (logical warps): the
    emulator stops the run naming the user's two calls (hipport.warp32.with_call_sites), not two
    lines inside the helpers; at width 32 the program runs (each wavefront is one warp)."""
    text, _findings = port_text(tmp_path, _DIVERGENT_HALVES)
    path = tmp_path / "fix" / "k.hip"
    lines = text.splitlines()
    first = next(n for n, line in enumerate(lines, 1) if "= hipport_warp32_shfl_sync(" in line)
    second = next(n for n, line in enumerate(lines, 1) if "= hipport_warp32_shfl_down_sync(" in line)
    result = run(path, 64)
    assert result.returncode != 0
    assert (f"lanes of one wavefront wait at two different wavefront operations: __shfl at {path}:{first} "
            f"and __shfl_down at {path}:{second}; the emulator cannot order divergent wavefront operations") \
        in result.stderr
    narrow = run(path, 32)
    assert (narrow.returncode, narrow.stdout) == (0, "34 64\n")


@pytest.mark.parametrize("wave", [64, 32])
def test_a_full_mask_macro_also_used_as_a_value_is_not_widened(tmp_path, wave):
    """tests/fixtures/warp32/mask_value_header: defs.h's ``#define FULL_MASK 0xffffffff`` is a
    ballot's mask and, in main.cu, compared with a ballot (``v == FULL_MASK``). Widened where it
    is defined (as a mask used only as a mask is), the comparison with the logical warps' 32-bit
    ballot was never true: ``all-positive=0`` at both widths, with no error. A name used as a
    value anywhere in the tree keeps its definition (hipport.warp.mask_value_uses)."""
    out = tmp_path / "out"
    convert_tree(FIXTURES / "mask_value_header", out, ConvertOptions(fix=True))
    assert (out / "defs.h").read_text() == (FIXTURES / "mask_value_header" / "defs.h").read_text()
    assert "  if (threadIdx.x % 32 == 0 && v == FULL_MASK) atomicAdd(allpos, 1);\n" in (out / "main.hip").read_text()
    result = run(out / "main.hip", wave)
    assert (result.returncode, result.stdout) == (0, "warps all-positive=4 (expect 4) bin0=4 (expect 4)\n")


def test_a_helper_name_defined_in_an_included_header_declines_logical_warps(tmp_path):
    """util.cuh defines hipport_warp32_ballot_sync itself and k.cu includes it: k.cu's unit,
    which would run as logical warps, stays as written (overload resolution picked the
    header's function over the helper, and the wave-64 result was wrong with no error)."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "util.cuh").write_text("#pragma once\n__device__ inline unsigned hipport_warp32_ballot_sync(unsigned long long m, "
                                  "int p) { return __ballot_sync(m, p); }\n")
    (src / "k.cu").write_text('#include "util.cuh"\n' + _STORED_BALLOT.replace("{extra}", ""))
    report = convert_tree(src, tmp_path / "out", ConvertOptions(fix=True)).report
    findings = [f"{f.path}:{f.line}:{f.column} {f.rule_id} {f.message}" for f in report.findings if f.path == "k.cu"
                and f.rule_id in ("HP1111", "HP1116")]
    assert findings == ["k.cu:" + _NOT_WIDENED.replace("1:17 ", "2:17 ").replace("(line 3)", "(line 4)")
                        + "util.cuh:2 defines hipport_warp32_ballot_sync itself, the name of a helper the logical warps "
                        "would define, in a file compiled with this one"]
    assert "HIPPORT_WARP32_" not in (tmp_path / "out" / "k.hip").read_text()


_QUALIFIED_CALL = """\
#include <cstdio>
#include <cuda_runtime.h>
__global__ void k(const int* in, int* out) {
  int v = in[threadIdx.x];
  for (int d = 16; d > 0; d >>= 1) v += ::__shfl_down_sync(0xffffffff, v, d);
  if (threadIdx.x % 32 == 0) out[threadIdx.x / 32] = v;
}
int main() {
  int h[128], o[4], *din, *dout;
  for (int i = 0; i < 128; ++i) h[i] = i;
  cudaMalloc(&din, sizeof(h));
  cudaMalloc(&dout, sizeof(o));
  cudaMemcpy(din, h, sizeof(h), cudaMemcpyHostToDevice);
  k<<<1, 128>>>(din, dout);
  cudaMemcpy(o, dout, sizeof(o), cudaMemcpyDeviceToHost);
  printf("%d %d %d %d\\n", o[0], o[1], o[2], o[3]);
  return 0;
}
"""


@pytest.mark.parametrize("wave", [64, 32])
def test_a_call_qualified_with_the_global_scope_is_renamed_too(tmp_path, wave):
    """``::__shfl_down_sync(...)`` in a unit run as logical warps: renamed with the others
    (once it was left as written while HP1116 said the unit was ported, and the AMD build
    failed on HIP's 64-bit mask check)."""
    text, findings = port_text(tmp_path, _QUALIFIED_CALL)
    assert "  for (int d = 16; d > 0; d >>= 1) v += ::hipport_warp32_shfl_down_sync(0xffffffff, v, d);\n" in text
    assert [f.split(" as 32-lane")[0] for f in findings if " HP1116 " in f] == ["3:17 HP1116 --fix ported k"]
    result = run(tmp_path / "fix" / "k.hip", wave)
    assert (result.returncode, result.stdout) == (0, "496 1520 2544 3568\n")


def test_a_header_included_inside_a_namespace_declines_logical_warps(tmp_path):
    """warp.cuh included inside ``namespace detail``: the helpers it would get are declared in
    detail, and their guards would keep k.cu's own out (the AMD build failed: helper not
    declared, with 0 errors reported). Both files stay as written, HP1111 naming the include."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "warp.cuh").write_text("#pragma once\n__device__ inline int warpReduce(int v) {\n"
                                  "  for (int d = 16; d > 0; d >>= 1) v += __shfl_down_sync(0xffffffff, v, d);\n"
                                  "  return v;\n}\n")
    (src / "k.cu").write_text('namespace detail {\n#include "warp.cuh"\n}\n'
                              "__global__ void k(const int* in, int* out) {\n"
                              "  int v = detail::warpReduce(in[threadIdx.x]) + __shfl_down_sync(0xffffffff, 1, 1);\n"
                              "  if (threadIdx.x % 32 == 0) out[threadIdx.x / 32] = v;\n}\n")
    report = convert_tree(src, tmp_path / "out", ConvertOptions(fix=True)).report
    why = ("nor can it run as 32-lane logical warps: k.cu: line 2 includes warp.cuh inside a namespace, where the "
           "helpers it may define would be declared, and their guards keep this file's out")
    assert [(f.path, f.rule_id, f.message.endswith(why)) for f in report.findings if f.rule_id in ("HP1111", "HP1116")] \
        == [("k.cu", "HP1111", True), ("warp.cuh", "HP1111", True)]
    assert not [p for p in (tmp_path / "out").rglob("*") if p.is_file() and "HIPPORT_WARP32_" in p.read_text()]


def test_the_emulator_refuses_a_helper_it_lacks_at_the_users_call(tmp_path):
    """A logical-warp unit calling __match_any_sync (which the emulator does not have): the
    refusal names the user's call of the helper, not the lines inside the helper's block."""
    text, _findings = port_text(tmp_path, "__global__ void k(const int* in, unsigned* out) {\n"
                                          "  unsigned peers = __match_any_sync(0xffffffff, in[threadIdx.x] / 8);\n"
                                          "  if (threadIdx.x % 32 == 0) out[threadIdx.x / 32] = peers;\n}\n")
    line = next(n for n, row in enumerate(text.splitlines(), 1) if "peers = hipport_warp32_match_any_sync(" in row)
    with pytest.raises(emulator.EmulatorError) as error:
        emulator.build(tmp_path / "fix" / "k.hip", 64)
    assert str(error.value) == ("the hipport emulator cannot build this program:\n"
                                f"  k.hip:{line}: hipport_warp32_match_any_sync (wavefront match) is not supported by "
                                "the hipport emulator")

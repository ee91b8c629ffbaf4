"""The warp fixtures run in the wavefront emulator (hipport.emulator) at widths 32 and 64: proof
by contrast for issue 11.

For each program in tests/fixtures/warp/:

* the port without --fix run at width 32 has the CUDA original's warp logic at the width it was
  written for: it gives the reference output (output.txt, ending ``Test PASSED``);
* the same port at width 64 shows the bug where the code depends on the width (the wrong
  output, or the emulator's trap, is asserted exactly, so the emulator is known to see it);
* the ``--fix`` output gives the reference output at widths 64 and 32;
* old_fix.hip, what --fix wrote before issue 11 (half-fixed functions), is wrong at width 64.

block_sum is the one program whose unfixed port is right at width 64: its shuffle-down tree,
lane and warp numbers all stay inside 32-lane halves of a 64-wide wavefront, and the shared
array gets one slot per half. What the issue describes there is the half-fixed code, and that
is what old_fix.hip shows. ballot_out_param is a program --fix cannot widen (its ballot leaves
through a 32-bit pointer): its unfixed port is wrong at width 64, and --fix runs it as 32-lane
logical warps (HP1116, hipport/warp32.py), which gives the reference at both widths.
syncwarp_exchange has no width assumption, only __syncwarp, which HIP 6.x lacks: its unfixed
port does not build (nor does it with HIP 6.4), its --fix output (HIP 7.0's definition of
__syncwarp, HP1115) gives the reference at both widths, and the same output with those calls
deleted is wrong at both widths (the emulator sees a missing wave barrier).
mask_macro keeps its full mask in a macro (``#define FULL_MASK 0xffffffff``) that a second macro
and a ballot use: its unfixed port does not build (HIP's static assertion on 32-bit masks, which
the emulator's headers make too), and --fix's widening of the macro body (HP1107) gives the
reference at both widths.
block_max_96 combines per-warp maxima by atomicMax in blocks of 96 threads: widened (what --fix
wrote before, old_fix.hip), the last wavefront of each block has 32 lanes and its shuffles read
0 from the 32 it lacks, so the maxima of negative values come out 0 (with the old constant mask
HIP's mask check traps first unless NDEBUG is defined); --fix now runs it as logical warps, right
at both widths, and the unfixed port (shuffles inside 32-lane halves) is right too.
partial_wavefront adds up warp sums and ballot counts in blocks of 32, 96 and 160 threads: --fix
widens it, and its full masks, hipport_wave_lanes(), name the 32 lanes of each block's last
wavefront at width 64; with the constant mask --fix wrote before (old_fix.hip) HIP's mask check
traps there.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from hipport import emulator
from hipport.convert import ConvertOptions, convert_tree
from test_warp import WAVE_LANES_BLOCK

FIXTURES = Path(__file__).parent / "fixtures" / "warp"
CASES = ["ballot_rank", "block_sum", "warp_size_define", "ballot_out_param", "syncwarp_exchange", "mask_macro",
         "block_max_96", "partial_wavefront"]


@pytest.fixture(scope="module")
def ports(tmp_path_factory):
    """{case: (unfixed port, --fix output)}: .hip files converted from original.cu."""
    root = tmp_path_factory.mktemp("warp-ports")
    done = {}
    for case in CASES:
        for fix in (False, True):
            convert_tree(FIXTURES / case / "original.cu", root / case / ("fix" if fix else "port"), ConvertOptions(fix=fix))
        done[case] = (root / case / "port" / "original.hip", root / case / "fix" / "original.hip")
    return done


def run(path: Path, wave: int) -> emulator.RunResult:
    return emulator.execute(path, wave=wave, timeout=120)


def reference(case: str) -> str:
    return (FIXTURES / case / "output.txt").read_text()


@pytest.mark.parametrize("case", [case for case in CASES if case not in ("syncwarp_exchange", "mask_macro")])
def test_unfixed_port_at_width_32_is_the_reference(case, ports):
    result = run(ports[case][0], 32)
    assert (result.returncode, result.stdout) == (0, reference(case))
    assert result.stdout.endswith("Test PASSED\n")


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("wave", [64, 32])
def test_fix_output_gives_the_reference_at_both_widths(case, wave, ports):
    assert ports[case][1].read_text() == (FIXTURES / case / "fixed.hip").read_text()
    result = run(ports[case][1], wave)
    assert (result.returncode, result.stdout) == (0, reference(case))


def test_ballot_rank_unfixed_at_width_64_is_wrong(ports):
    """32-bit ballots keep lanes 0-31 of each 64-wide wavefront; threadIdx.x % 32 numbers the
    upper half as lanes 0-31 again: wrong counts, wrong order, wrong total."""
    result = run(ports["ballot_rank"][0], 64)
    assert (result.returncode, result.stdout) == (1, (
        "block 0: 162 positive, checksum 66009\n"
        "block 1: 152 positive, checksum 56970\n"
        "block 2: 158 positive, checksum 65368\n"
        "block 3: 154 positive, checksum 68458\n"
        "total 626 positive\n"
        "Test FAILED\n"))


def test_warp_size_define_unfixed_at_width_64_traps(ports):
    """WARP_SIZE 32 numbers warps of 32: only lanes 0-31 of the first wavefront enter
    ``if (wid == 0)``, and call a full-mask shuffle there, which HIP traps on (the emulator
    names the call)."""
    result = run(ports["warp_size_define"][0], 64)
    assert result.returncode == 134
    assert result.stdout == ""
    assert "hipport emulator: __shfl_down_sync at " in result.stderr
    assert ("original.hip:34: mask 0xffffffffffffffff but the lanes calling it with that mask are 0xffffffff "
            "(HIP traps: every lane in the mask must execute the call, no other lane may)") in result.stderr


def test_block_sum_unfixed_at_width_64_happens_to_be_right(ports):
    result = run(ports["block_sum"][0], 64)
    assert (result.returncode, result.stdout) == (0, reference("block_sum"))


def test_half_fixed_block_sum_at_width_64_is_wrong():
    """The issue's half-fix: lane and wid use warpSize, the loop still starts at 16 and the sum
    still reads blockDim.x / 32 slots: half of each wavefront is dropped and s[4..7] are never
    written (the emulator fills shared memory with NaN, so the sums are NaN)."""
    result = run(FIXTURES / "block_sum" / "old_fix.hip", 64)
    assert result.returncode == 1
    assert result.stdout == (
        "block 0: sum -nan (expected -51.0)\n"
        "block 1: sum -nan (expected -27.0)\n"
        "block 2: sum -nan (expected 98.0)\n"
        "block 3: sum -nan (expected -80.0)\n"
        "Test FAILED\n")
    assert run(FIXTURES / "block_sum" / "old_fix.hip", 32).stdout == reference("block_sum")


def test_block_max_96_widened_at_width_64_traps_or_is_wrong(ports, tmp_path):
    """The old widening kept a full 64-lane mask in a 32-lane last wavefront: HIP's mask check
    traps; with NDEBUG, or with the mask of the lanes the wavefront has (hipport_wave_lanes(),
    which the port writes now), the widened maxima read 0 from the lanes the wavefront lacks.
    The unfixed port's shuffles stay inside 32-lane halves: right at both widths."""
    old_fix = FIXTURES / "block_max_96" / "old_fix.hip"
    result = run(old_fix, 64)
    assert (result.returncode, result.stdout) == (134, "")
    assert (f"__shfl_xor_sync at {old_fix}:17: mask 0xffffffffffffffff but the lanes calling it with that mask are "
            "0xffffffff (HIP traps: every lane in the mask must execute the call, no other lane may)") in result.stderr
    for wave in (64, 32):
        result = run(ports["block_max_96"][0], wave)
        assert (result.returncode, result.stdout) == (0, reference("block_max_96"))
    text = old_fix.read_text()
    lanes = tmp_path / "old_fix_lanes.hip"
    lanes.write_text(text.replace("#include <hip/hip_runtime.h>\n", "#include <hip/hip_runtime.h>\n" + WAVE_LANES_BLOCK, 1).replace(
        "0xffffffffffffffffULL", "hipport_wave_lanes()"))
    result = run(lanes, 64)
    assert (result.returncode, result.stdout) == (1, (
        "block 0: max 0 (expected -9)\n"
        "block 1: max 0 (expected -5)\n"
        "block 2: max 0 (expected -2)\n"
        "Test FAILED\n"))
    result = emulator.execute(FIXTURES / "block_max_96" / "old_fix.hip", wave=64, timeout=120, defines=["NDEBUG"])
    assert (result.returncode, result.stdout) == (1, (
        "block 0: max 0 (expected -9)\n"
        "block 1: max 0 (expected -5)\n"
        "block 2: max 0 (expected -2)\n"
        "Test FAILED\n"))
    result = emulator.execute(FIXTURES / "block_max_96" / "old_fix.hip", wave=32, timeout=120, defines=["NDEBUG"])
    assert (result.returncode, result.stdout) == (0, reference("block_max_96"))


def test_half_fixed_ballot_rank_at_width_64_is_wrong():
    """The issue's half-fix of the first input: 64-bit m and warpSize lanes, but __popc and
    1u << lane kept: lanes 32-63 are counted from the low 32 ballot bits."""
    result = run(FIXTURES / "ballot_rank" / "old_fix.hip", 64)
    assert (result.returncode, result.stdout) == (1, (
        "block 0: 77 positive, checksum 20518\n"
        "block 1: 72 positive, checksum 17293\n"
        "block 2: 75 positive, checksum 20381\n"
        "block 3: 73 positive, checksum 20420\n"
        "total 313 positive\n"
        "Test FAILED\n"))


def test_half_fixed_warp_size_define_at_width_64_traps():
    """The issue's half-fix of the WARP_SIZE case: the lane uses warpSize, the define stays 32."""
    result = run(FIXTURES / "warp_size_define" / "old_fix.hip", 64)
    assert result.returncode == 134
    assert "hipport emulator: __shfl_down_sync at " in result.stderr


def test_unfixed_ballot_out_param_at_width_64_is_wrong(ports):
    """The ballot kept in 32 bits loses lanes 32-63 of each wavefront, whose ranks and group
    totals are then wrong."""
    result = run(ports["ballot_out_param"][0], 64)
    assert (result.returncode, result.stdout) == (1, "".join(
        f"group of 32 {w}: 19 positive\n" for w in range(8)) + "Test FAILED\n")


def test_syncwarp_exchange_unfixed_port_is_refused_naming_syncwarp(ports):
    """HIP 6.4 has no __syncwarp, nor has the emulator: the port without --fix does not build."""
    with pytest.raises(emulator.EmulatorError) as error:
        emulator.build(ports["syncwarp_exchange"][0], 32)
    assert str(error.value).splitlines()[1] == (
        "  original.hip:38: __syncwarp (not declared by HIP 6.4 either) is not supported by the hipport emulator "
        "(and 2 more)")


@pytest.mark.parametrize("wave", [64, 32])
def test_syncwarp_exchange_without_its_wave_barriers_is_wrong(wave, ports, tmp_path):
    """The emulator sees a missing __syncwarp: with the three calls of HIPPORT_SYNCWARP deleted
    from the --fix output, each lane runs on past its write and reads its neighbours' slots before they
    write them (the slots still hold the previous value, or the 0xff fill), at both widths."""
    body = ('__builtin_amdgcn_fence(__ATOMIC_RELEASE, "wavefront"), __builtin_amdgcn_wave_barrier(), '
            '__builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "wavefront")')
    fixed = ports["syncwarp_exchange"][1].read_text()
    dropped = fixed.replace(f"#define HIPPORT_SYNCWARP() ({body})", "#define HIPPORT_SYNCWARP() ((void)0)")
    assert "__builtin_amdgcn" not in dropped
    source = tmp_path / "dropped.hip"
    source.write_text(dropped)
    result = run(source, wave)
    assert (result.returncode, result.stdout) == (1, (
        "block 0: checksum 59548 (expected 37060), 128 wrong\n"
        "block 1: checksum 50378 (expected 34782), 128 wrong\n"
        "Test FAILED\n"))


TREE_FIXTURES = Path(__file__).parent / "fixtures" / "warp_tree"


@pytest.fixture(scope="module")
def tree_ports(tmp_path_factory):
    """tests/fixtures/warp_tree/header_constant converted without and with --fix (folders)."""
    root = tmp_path_factory.mktemp("warp-tree-ports")
    for fix in (False, True):
        convert_tree(TREE_FIXTURES / "header_constant", root / ("fix" if fix else "port"), ConvertOptions(fix=fix))
    return root / "port", root / "fix"


HEADER_CONSTANT_OUTPUT = ("block 0: sum -51.0 (expected -51.0)\n"
                          "block 1: sum -27.0 (expected -27.0)\n"
                          "block 2: sum 98.0 (expected 98.0)\n"
                          "block 3: sum -80.0 (expected -80.0)\n"
                          "Test PASSED\n")


def test_header_constant_unfixed_is_right_at_32_and_traps_at_64(tree_ports):
    """kWarpSize = 32 in a header: at width 64 only lanes 0-31 of the first wavefront pass
    ``warp_id() == 0`` and call the header's full-mask shuffle, which HIP traps on."""
    narrow = run(tree_ports[0], 32)
    assert (narrow.returncode, narrow.stdout) == (0, HEADER_CONSTANT_OUTPUT)
    result = run(tree_ports[0], 64)
    assert (result.returncode, result.stdout) == (134, "")
    assert ("include/warp_util.cuh:41: mask 0xffffffffffffffff but the lanes calling it with that mask are "
            "0xffffffff") in result.stderr


@pytest.mark.parametrize("wave", [64, 32])
def test_header_constant_fixed_across_files_gives_the_reference(wave, tree_ports):
    """--fix rewrote the header's helpers and the kernel of the other file together."""
    result = run(tree_ports[1], wave)
    assert (result.returncode, result.stdout) == (0, HEADER_CONSTANT_OUTPUT)


@pytest.fixture(scope="module")
def host_tree_ports(tmp_path_factory):
    """tests/fixtures/warp_tree/header_constant_host (main prints kBlock / kWarpSize on the host)
    converted without and with --fix (folders)."""
    root = tmp_path_factory.mktemp("warp-tree-host-ports")
    for fix in (False, True):
        convert_tree(TREE_FIXTURES / "header_constant_host", root / ("fix" if fix else "port"), ConvertOptions(fix=fix))
    return root / "port", root / "fix"


def test_header_constant_host_unfixed_is_right_at_32_and_traps_at_64(host_tree_ports):
    narrow = run(host_tree_ports[0], 32)
    assert (narrow.returncode, narrow.stdout) == (0, "8 warps per block\n" + HEADER_CONSTANT_OUTPUT)
    result = run(host_tree_ports[0], 64)
    assert (result.returncode, result.stdout) == (134, "8 warps per block\n")
    assert ("include/warp_util.cuh:41: mask 0xffffffffffffffff but the lanes calling it with that mask are "
            "0xffffffff") in result.stderr


@pytest.mark.parametrize("wave", [64, 32])
def test_header_constant_host_as_logical_warps_across_files_gives_the_reference(wave, host_tree_ports):
    """The widening must leave this tree (kWarpSize is used in host code); --fix runs the header's
    helpers and the kernel of the other file as 32-lane logical warps together (HP1116), and the
    host's 8 warps per block stay true at both widths."""
    result = run(host_tree_ports[1], wave)
    assert (result.returncode, result.stdout) == (0, "8 warps per block\n" + HEADER_CONSTANT_OUTPUT)


def test_mask_macro_unfixed_port_stops_at_hips_mask_assertion(ports):
    """The 32-bit FULL_MASK reaches HIP's _sync builtins through two macros: the build stops at
    the static assertion HIP 6.4's amd_warp_sync_functions.h makes, as the emulator's headers do."""
    with pytest.raises(emulator.EmulatorError) as error:
        emulator.build(ports["mask_macro"][0], 64)
    assert "static assertion failed: The mask must be a 64-bit integer." in str(error.value)


def test_mask_macro_fix_widens_the_macro_body(ports):
    fixed = ports["mask_macro"][1].read_text()
    assert "#define FULL_MASK hipport_wave_lanes()\n" in fixed
    assert "#define SHFL_DOWN(v, o) __shfl_down_sync(FULL_MASK, (v), (o))\n" in fixed


def test_partial_wavefront_widened_with_a_constant_full_mask_traps_at_width_64(ports):
    """The widening of 2026-12-04 (old_fix.hip: 0xffffffffffffffffULL) in a block of 32 threads:
    its one wavefront has 32 lanes, the mask names 64, and HIP's check traps (NDEBUG is not
    defined by default); at width 32 it is the reference. The --fix output now is the reference
    at both widths (test_fix_output_gives_the_reference_at_both_widths)."""
    old_fix = FIXTURES / "partial_wavefront" / "old_fix.hip"
    result = run(old_fix, 64)
    assert (result.returncode, result.stdout) == (134, "")
    assert (f"__shfl_down_sync at {old_fix}:12: mask 0xffffffffffffffff but the lanes calling it with that mask are "
            "0xffffffff (HIP traps: every lane in the mask must execute the call, no other lane may)") in result.stderr
    result = run(old_fix, 32)
    assert (result.returncode, result.stdout) == (0, reference("partial_wavefront"))


def test_partial_wavefront_unfixed_at_width_64_miscounts(ports):
    """The unfixed port keeps __popc of a 64-bit ballot (HP1102, an error: it counts the low 32
    bits) and numbers lanes by % 32: lanes 0 and 32 of a full wavefront both add the count of
    lanes 0-31, so lanes 32-63 are counted as their lower neighbours."""
    result = run(ports["partial_wavefront"][0], 64)
    assert result.returncode == 1 and result.stdout.endswith("Test FAILED\n")
    assert result.stdout.splitlines()[4] == ("block of 96 threads, block 0: sum -5 (expected -5), "
                                             "positive 42 (expected 43)")


_CONSTANT_MASK_PROGRAM = """#include <cstdio>
#include <cuda_runtime.h>
constexpr unsigned kFullMask = 0xffffffff;
__global__ void k(const int* in, int* out)
{
    int v = in[threadIdx.x];
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(kFullMask, v, o);
    if (threadIdx.x % 32 == 0) atomicAdd(&out[0], v);
}
int main()
{
    int h[96], *d_in, *d_out;
    for (int i = 0; i < 96; ++i) h[i] = i % 3 - (i == 70 ? 5 : 0);
    cudaMalloc(&d_in, sizeof h); cudaMalloc(&d_out, sizeof h);
    cudaMemcpy(d_in, h, sizeof h, cudaMemcpyHostToDevice);
    cudaMemset(d_out, 0, sizeof h);
    k<<<1, 96>>>(d_in, d_out);
    cudaMemcpy(h, d_out, sizeof h, cudaMemcpyDeviceToHost);
    printf("sum %d\\n", h[0]);
    return 0;
}
"""


@pytest.mark.parametrize("wave", [64, 32])
def test_a_file_scope_constant_full_mask_in_a_partial_wavefront(wave, tmp_path):
    """constexpr unsigned kFullMask = 0xffffffff, passed to a shuffle in a block of 96 threads:
    --fix widens the constant (a constant expression cannot call hipport_wave_lanes()) and passes
    hipport_wave_lanes() at the call, so the last wavefront of 32 lanes at width 64 names only
    its lanes: the sum (96 - 5) at both widths, with HIP's mask check on (no NDEBUG). Passing the
    widened constant, as --fix did before, names 64 lanes there and traps at width 64."""
    source = tmp_path / "src" / "k.cu"
    source.parent.mkdir()
    source.write_text(_CONSTANT_MASK_PROGRAM)
    convert_tree(source.parent, tmp_path / "fix", ConvertOptions(fix=True))
    fixed = tmp_path / "fix" / "k.hip"
    text = fixed.read_text()
    assert "constexpr unsigned long long kFullMask = 0xffffffffffffffffULL;\n" in text
    assert "v += __shfl_down_sync(hipport_wave_lanes(), v, o);" in text
    result = run(fixed, wave)
    assert (result.returncode, result.stdout) == (0, "sum 91\n")
    old = tmp_path / "old.hip"
    old.write_text(text.replace("__shfl_down_sync(hipport_wave_lanes(), v, o)", "__shfl_down_sync(kFullMask, v, o)"))
    result = run(old, wave)
    if wave == 64:
        assert result.returncode == 134 and "mask 0xffffffffffffffff but the lanes calling it with that mask are " \
            "0xffffffff" in result.stderr
    else:
        assert (result.returncode, result.stdout) == (0, "sum 91\n")


_ROW_KERNEL = """\
__global__ void lanes(const int* in, int* out)
{
    int lane = threadIdx.x % 32;
    int v = in[blockIdx.x * 32 + threadIdx.x];
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffff, v, o);
    if (lane == 0) atomicAdd(out + blockIdx.x, v);
}
"""
_ROW_MAIN = """\
int main()
{
    static int h_in[256], h_out[8];
    for (int i = 0; i < 256; ++i) h_in[i] = (i * 37 + 11) % 21 - 8;
    int *d_in, *d_out;
    cudaMalloc(&d_in, sizeof(h_in));
    cudaMalloc(&d_out, sizeof(h_out));
    cudaMemcpy(d_in, h_in, sizeof(h_in), cudaMemcpyHostToDevice);
    cudaMemset(d_out, 0, sizeof(h_out));
    dim3 block(32, 4);
    lanes<<<8, block>>>(d_in, d_out);
    cudaMemcpy(h_out, d_out, sizeof(h_out), cudaMemcpyDeviceToHost);
    for (int i = 0; i < 8; ++i) printf("%d ", h_out[i]);
    printf("\\n");
    return 0;
}
"""


@pytest.mark.parametrize("layout", ["same file", "launched from another file", "block passed in"])
@pytest.mark.parametrize("wave", [64, 32])
def test_a_kernel_launched_with_a_two_dimensional_block_keeps_its_lanes(layout, wave, tmp_path):
    """A kernel whose file never names threadIdx.y, launched with dim3 block(32, 4): each row of
    32 threads is a warp at width 32 (4 rows sum each block's 32 inputs), while a 64-lane
    wavefront holds two rows, so threadIdx.x % warpSize is not its lane. --fix runs the kernel as
    32-lane logical warps (HP1116) instead of widening it: the CUDA sums at both widths. Before,
    it widened the lane and the loop and every sum doubled at width 64 (416 616 ...)."""
    src = tmp_path / "src"
    src.mkdir()
    head = "#include <cstdio>\n#include <cuda_runtime.h>\n"
    if layout == "same file":
        (src / "rows.cu").write_text(head + _ROW_KERNEL + _ROW_MAIN)
    elif layout == "block passed in":  # the launching function is given the block: its rows are not known
        (src / "rows.cu").write_text(head + _ROW_KERNEL + (
            "static void launch(const int* in, int* out, dim3 block) { lanes<<<8, block>>>(in, out); }\n")
            + _ROW_MAIN.replace("dim3 block(32, 4);\n    lanes<<<8, block>>>(d_in, d_out);",
                                "launch(d_in, d_out, dim3(32, 4));"))
        assert "dim3 block(32, 4)" not in (src / "rows.cu").read_text()
    else:
        (src / "kernel.cu").write_text("#include <cuda_runtime.h>\n" + _ROW_KERNEL)
        (src / "main.cu").write_text(head + "__global__ void lanes(const int* in, int* out);\n" + _ROW_MAIN)
    convert_tree(src, tmp_path / "fix", ConvertOptions(fix=True))
    kernel = tmp_path / "fix" / ("kernel.hip" if layout == "launched from another file" else "rows.hip")
    text = kernel.read_text()
    assert "% warpSize" not in text and "warpSize / 2" not in text
    assert "hipport_warp32_shfl_xor_sync(" in text
    report = (tmp_path / "fix" / "hipport-report.json").read_text()
    assert '"HP1116"' in report and '"HP1111"' not in report
    result = run(tmp_path / "fix" if layout == "launched from another file" else kernel, wave)
    assert (result.returncode, result.stdout) == (0, "208 308 240 256 272 204 304 236 \n")


# -- Device code --fix reaches only across a boundary it does not follow (issue 11, third hunt) -----
_UNSEEN_MAIN = """\
int main() {
  const int n = 192;
  int h_in[n], h_out[n];
  for (int i = 0; i < n; ++i) h_in[i] = (i * 37 + 11) % 21 - 8;
  int *in, *out;
  cudaMalloc(&in, sizeof(h_in));
  cudaMalloc(&out, sizeof(h_out));
  cudaMemcpy(in, h_in, sizeof(h_in), cudaMemcpyHostToDevice);
  LAUNCH;
  cudaMemcpy(h_out, out, sizeof(h_out), cudaMemcpyDeviceToHost);
  long long sum = 0;
  for (int i = 0; i < n; ++i) sum += (long long)h_out[i] * (i % 13 + 1);
  printf("%d %d %d %d %lld\\n", h_out[0], h_out[31], h_out[32], h_out[63], sum);
  return 0;
}
"""
_UNSEEN_HEAD = "#include <cstdio>\n#include <cuda_runtime.h>\n"
_UNSEEN_APPLY = ("template <typename Op>\n"
         "__global__ void apply(const int* in, int* out, Op op) {\n"
         "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
         "  out[i] = op(in[i]);\n"
         "}\n")
_UNSEEN_LEAD = "__device__ int lead(int v) { return __shfl_sync(0xffffffff, v, 0); }\n"
_UNSEEN_PROGRAMS = {
    "host lambda": {"k.cu": _UNSEEN_HEAD + (
        "template <typename F>\n"
        "__global__ void each(int n, F f) {\n"
        "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "  if (i < n) f(i);\n"
        "}\n") + _UNSEEN_MAIN.replace("LAUNCH", (
        "each<<<n / 64, 64>>>(n, [=] __device__ (int i) {\n"
        "    int v = in[i];\n"
        "    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffff, v, o);\n"
        "    out[i] = v * 100 + in[i] - __shfl_sync(0xffffffff, in[i], 0);\n"
        "  })"))},
    "functor": {"k.cu": _UNSEEN_HEAD + (
        "struct LeadDiff {\n"
        "  __device__ int operator()(int v) const { return v - __shfl_sync(0xffffffff, v, 0); }\n"
        "};\n") + _UNSEEN_APPLY + _UNSEEN_MAIN.replace("LAUNCH", "apply<<<n / 64, 64>>>(in, out, LeadDiff())")},
    "function called by a functor": {"k.cu": _UNSEEN_HEAD + _UNSEEN_LEAD + (
        "struct LeadDiff {\n"
        "  __device__ int operator()(int v) const { return v - lead(v); }\n"
        "};\n") + _UNSEEN_APPLY + _UNSEEN_MAIN.replace("LAUNCH", "apply<<<n / 64, 64>>>(in, out, LeadDiff())")},
    "macro-defined kernel": {"k.cu": _UNSEEN_HEAD + (
        "#define DEFINE_NEXT_DIFF(NAME, T)                            \\\n"
        "  __global__ void NAME(const T* in, T* out) {                \\\n"
        "    int i = blockIdx.x * blockDim.x + threadIdx.x;           \\\n"
        "    T v = in[i];                                             \\\n"
        "    out[i] = v - __shfl_down_sync(0xffffffff, v, 1);         \\\n"
        "  }\n"
        "DEFINE_NEXT_DIFF(next_diff, int)\n") + _UNSEEN_MAIN.replace("LAUNCH", "next_diff<<<n / 64, 64>>>(in, out)")},
    "function-pointer template argument": {"k.cu": _UNSEEN_HEAD + _UNSEEN_LEAD + (
        "template <int (*F)(int)>\n"
        "__global__ void map(const int* in, int* out) {\n"
        "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "  out[i] = in[i] - F(in[i]);\n"
        "}\n") + _UNSEEN_MAIN.replace("LAUNCH", "map<lead><<<n / 64, 64>>>(in, out)")},
    "extern function of another file": {
        "lead.cu": "#include <cuda_runtime.h>\n" + _UNSEEN_LEAD,
        "k.cu": _UNSEEN_HEAD + (
            "extern __device__ int lead(int v);\n"
            "__global__ void diff(const int* in, int* out) {\n"
            "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
            "  out[i] = in[i] - lead(in[i]);\n"
            "}\n") + _UNSEEN_MAIN.replace("LAUNCH", "diff<<<n / 64, 64>>>(in, out)")},
}

#: Each program's output: (the CUDA logic at width 32 = the fixed port at widths 64 and 32, the
#: unfixed port at width 64), the lines of --fix's HP1116 findings, and the warnings and errors
#: of the port without --fix.
_UNSEEN_EXPECTED = {
    "host lambda": ("5200 5192 7700 7692 8280156", "5200 5192 7708 7700 8285748", ["k.cu:4", "k.cu:16"],
                    ["k.cu:18 HP1104"]),
    "functor": ("0 -8 0 -8 -244", "0 -8 8 0 5348", ["k.cu:4"], ["k.cu:4 HP1117"]),
    "function called by a functor": ("0 -8 0 -8 -244", "0 -8 8 0 5348", ["k.cu:3", "k.cu:5"], ["k.cu:5 HP1117"]),
    "macro-defined kernel": ("5 0 5 0 105", "5 -16 5 0 54", ["k.cu:3"], ["k.cu:3 HP1118"]),
    "function-pointer template argument": ("0 -8 0 -8 -244", "0 -8 8 0 5348", ["k.cu:3"], ["k.cu:3 HP1117"]),
    "extern function of another file": ("0 -8 0 -8 -244", "0 -8 8 0 5348", ["lead.cu:2"], ["lead.cu:2 HP1117"]),
}


@pytest.mark.parametrize("name", list(_UNSEEN_PROGRAMS))
def test_warp_code_called_across_a_boundary_fix_does_not_follow_runs_as_logical_warps(name, tmp_path):
    """Warp code whose callers --fix cannot follow: a __device__ lambda written in host code, a
    functor's operator() (and a function only it calls), a kernel defined by a macro, a function
    passed as a template argument, an extern function of another .cu. Before, each kept its
    collectives at the wavefront's width and printed the unfixed port's wrong line at width 64
    with no finding. The port now reports each (HP1117, HP1118, or a 32-wide assumption in it)
    and --fix runs that code as 32-lane logical warps (HP1116 at each unit): the CUDA result at
    widths 64 and 32."""
    src = tmp_path / "src"
    src.mkdir()
    for file, text in _UNSEEN_PROGRAMS[name].items():
        (src / file).write_text(text)
    reference, unfixed, logical_lines, reported = _UNSEEN_EXPECTED[name]
    plain = convert_tree(src, tmp_path / "port", ConvertOptions()).report
    assert [f"{f.path}:{f.line} {f.rule_id}" for f in plain.findings if f.severity != "info"] == reported
    report = convert_tree(src, tmp_path / "fix", ConvertOptions(fix=True)).report
    assert [f"{f.path}:{f.line}" for f in report.findings if f.rule_id == "HP1116"] == logical_lines
    assert not [f for f in report.findings if f.severity == "error"]
    for wave in (64, 32):
        result = run(tmp_path / "fix", wave)
        assert (result.returncode, result.stdout) == (0, reference + "\n")
    assert run(tmp_path / "port", 32).stdout == reference + "\n"
    assert run(tmp_path / "port", 64).stdout == unfixed + "\n"


_PER_WARP_OUTPUT = """\
#include <cstdio>
#include <cuda_runtime.h>
__global__ void k(const int* in, int* out)
{
    int lane = threadIdx.x % warpSize;
    int wid = threadIdx.x / warpSize;
    int v = in[blockIdx.x * blockDim.x + threadIdx.x];
    for (int o = warpSize / 2; o > 0; o /= 2) v += __shfl_down_sync(0xffffffff, v, o);
    if (lane == 0) out[blockIdx.x * (blockDim.x / warpSize) + wid] = v;
}

int main()
{
    static int h_in[512], h_out[16];
    for (int i = 0; i < 512; ++i) h_in[i] = (i * 37 + 11) % 21 - 8;
    int *d_in, *d_out;
    cudaMalloc(&d_in, sizeof(h_in));
    cudaMalloc(&d_out, sizeof(h_out));
    cudaMemcpy(d_in, h_in, sizeof(h_in), cudaMemcpyHostToDevice);
    cudaMemset(d_out, 0, sizeof(h_out));
    k<<<2, 256>>>(d_in, d_out);
    cudaMemcpy(h_out, d_out, sizeof(h_out), cudaMemcpyDeviceToHost);
    for (int i = 0; i < 16; ++i) printf("%d ", h_out[i]);
    printf("\\n");
    return 0;
}
"""


@pytest.mark.parametrize("wave", [64, 32])
def test_a_per_warp_output_written_with_warp_size_but_read_for_32_lanes(wave, tmp_path):
    """A kernel written with warpSize stores one sum per warp in global memory, and its host
    reads 16 sums (two blocks of 256 threads in 32-lane warps) and never asks the device's warp
    size. Widened code it is already, but at width 64 it writes 8 sums of 64 lanes: the port
    reports the per-warp index (HP1117) and --fix runs the kernel as 32-lane logical warps, which
    prints CUDA's 16 sums at both widths."""
    source = tmp_path / "src" / "k.cu"
    source.parent.mkdir()
    source.write_text(_PER_WARP_OUTPUT)
    reference = "52 77 60 64 68 51 76 59 63 67 71 54 79 41 87 49 \n"
    port = convert_tree(source.parent, tmp_path / "port", ConvertOptions()).report
    assert [(f.rule_id, f.line) for f in port.findings if f.severity != "info"] == [("HP1117", 9)]
    fixed = convert_tree(source.parent, tmp_path / "fix", ConvertOptions(fix=True)).report
    assert [(f.rule_id, f.line) for f in fixed.findings if f.rule_id in ("HP1116", "HP1111")] == [("HP1116", 3)]
    assert run(tmp_path / "port" / "k.hip", 32).stdout == reference
    if wave == 64:
        assert run(tmp_path / "port" / "k.hip", 64).stdout != reference
    result = run(tmp_path / "fix" / "k.hip", wave)
    assert (result.returncode, result.stdout) == (0, reference)
    # the same kernel whose host asks the device's warp size sizes its output for it: not reported
    source.write_text(_PER_WARP_OUTPUT.replace("int main()\n{\n", "int main()\n{\n    cudaDeviceProp prop;\n"
                                               "    cudaGetDeviceProperties(&prop, 0);\n"
                                               "    printf(\"%d\\\\n\", prop.warpSize > 0);\n"))
    port = convert_tree(source.parent, tmp_path / "port2", ConvertOptions()).report
    assert [f.rule_id for f in port.findings if f.severity != "info"] == []

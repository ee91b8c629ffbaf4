"""HP1217: cooperative-groups shuffles of vector, half and struct values, which HIP 6.4.3's
shuffles reject with a static assertion (hipport/group_shuffles.py; issue 10 class from cuda-samples
shfl_scan). The fixture is tests/fixtures/handle_types/shuffles.cu, written for these tests."""

from __future__ import annotations

import re

from helpers import FIXTURES
from hipport.analyze import analyze_file
from hipport.convert import ConvertOptions, convert_tree
from hipport.parse import new_parser
from hipport.rules import default_rules
from hipport.toolchain import CompileError

FIXTURE = FIXTURES / "handle_types" / "shuffles.cu"
TAIL = ("HIP 6.4's cooperative-groups shuffles take integer and floating-point types only (a static assertion in "
        "amd_hip_cooperative_groups.h), CUDA's any trivially copyable type")
EXPECTED = [
    (18, 13, f"thread_block_tile::shfl_xor of mine.hi, a uint4: {TAIL}",
     "Shuffle each component: mine.hi.x = tile.shfl_xor(mine.hi.x, ...); mine.hi.y = tile.shfl_xor(mine.hi.y, ...); "
     "mine.hi.z = tile.shfl_xor(mine.hi.z, ...); mine.hi.w = tile.shfl_xor(mine.hi.w, ...)"),
    (23, 10, f"thread_block_tile::shfl of pair, a __half2: {TAIL}",
     "Shuffle the value as float (__half2float/__float2half), or its bits as an unsigned short/int"),
    (25, 10, f"thread_block_tile::shfl of both, a Pair: {TAIL}",
     "Shuffle each member of the struct (or its bytes as 32-bit words) and build the value again"),
    (28, 9, f"coalesced_group::shfl of two, a float2: {TAIL}",
     "Shuffle each component: two.x = active.shfl(two.x, ...); two.y = active.shfl(two.y, ...)"),
]


def _findings(source: bytes):
    result = analyze_file("x.cu", source, new_parser().parse(source), default_rules(), is_cuda_unit=True)
    return [(f.line, f.column, f.message, f.fix) for f in result.findings if f.rule_id == "HP1217"]


def test_each_non_scalar_shuffle_reported_at_its_call():
    assert _findings(FIXTURE.read_bytes()) == EXPECTED


def test_shuffle_on_an_object_that_is_not_a_group_is_left_alone():
    source = (b"#include <cooperative_groups.h>\nstruct Lanes { uint4 shfl(uint4 v, int) { return v; } };\n"
              b"__device__ uint4 f(Lanes lanes, uint4 v) { return lanes.shfl(v, 1); }\n")
    assert _findings(source) == []


def test_reported_calls_are_the_instantiations_clang_rejects(toolchain, tmp_path):
    """The ported fixture compiled for gfx90a: every static assertion's instantiation note is on
    a reported call, and the shuffles of a float, an int and a uint4 component compile."""
    out = tmp_path / "out"
    convert_tree(FIXTURE.parent, out, ConvertOptions(jobs=1))
    ported = (out / "shuffles.hip").read_text()
    shift = ported.count("\n") - FIXTURE.read_text().count("\n")
    try:
        toolchain.compile_amd(out / "shuffles.hip", tmp_path / "s.o", ["gfx90a"], ["-fsyntax-only"])
        stderr = ""
    except CompileError as exc:
        stderr = exc.stderr
    own = set(re.findall(r"shuffles\.hip:(\d+):\d+: error", stderr))
    notes = {int(m) - shift for m in re.findall(r"shuffles\.hip:(\d+):\d+: note: in instantiation", stderr)}
    assert own == set()
    assert notes == {line for line, *_ in EXPECTED}


def _nsf():
    import importlib.util
    import sys

    from helpers import REPO
    module = sys.modules.get("no_silent_failure")
    if module is None:
        spec = importlib.util.spec_from_file_location("no_silent_failure", REPO / "scripts" / "no_silent_failure.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules["no_silent_failure"] = module
        spec.loader.exec_module(module)
    return module


# clang prints an instantiation stack once per instantiation: the second error inside the same
# HIP template (the failed call after the static assertion) has none of its own.
SAME_INSTANTIATION = """\
/h/groups.h:698:19: error: static assertion failed: Neither an integer or float type.
  698 |     static_assert(is_valid_type<T>::value, "Neither an integer or float type.");
/o/scan.hip:19:18: note: in instantiation of function template specialization 'tile::shfl_xor<uint4>' requested here
   19 |   v = tile.shfl_xor(v, 1);
/h/groups.h:699:13: error: no matching function for call to '__shfl_xor'
/h/groups.h:40:1: note: candidate function not viable
/h/other.h:12:3: error: unrelated
/h/groups.h:900:3: error: far below
"""


def test_error_without_its_own_stack_shares_the_instantiation_printed_before():
    diags = _nsf().parse_diagnostics(SAME_INSTANTIATION)
    assert [(d.file, d.line, [(s.file, s.line) for s in d.chain]) for d in diags] == [
        ("/h/groups.h", 698, [("/o/scan.hip", 19)]),
        ("/h/groups.h", 699, [("/h/groups.h", 40), ("/o/scan.hip", 19)]),
        ("/h/other.h", 12, []),
        ("/h/groups.h", 900, []),
    ]


FIXED = [
    (18, 13, "HP2045", "thread_block_tile::shfl_xor of mine.hi, a uint4: rewritten to hipport_shfl_xor, which the port "
     "defines once in the file: on AMD one shuffle per component from the same lane (HIP 6.4's cooperative-groups "
     "shuffles take integer and floating-point types only), the group's own shuffle where it is compiled as HIP on "
     "NVIDIA"),
    (23, 10, "HP1217", f"thread_block_tile::shfl of pair, a __half2: {TAIL}"),
    (25, 10, "HP1217", f"thread_block_tile::shfl of both, a Pair: {TAIL}"),
    (28, 9, "HP2045", "coalesced_group::shfl of two, a float2: rewritten to hipport_shfl, which the port defines once "
     "in the file: on AMD one shuffle per component from the same lane (HIP 6.4's cooperative-groups shuffles take "
     "integer and floating-point types only), the group's own shuffle where it is compiled as HIP on NVIDIA"),
]


def test_fix_shuffles_vectors_per_component(toolchain, tmp_path):
    """--fix: the uint4 and float2 shuffles call the port's per-component shuffles, defined once
    before the kernel; the __half2 and struct shuffles keep HP1217 and are then the only calls
    clang rejects. Without them the fixed port compiles for gfx90a, gfx1100 and as HIP on NVIDIA."""
    from hipport.group_shuffles import SHUFFLE_BLOCK

    out = tmp_path / "out"
    report = convert_tree(FIXTURE.parent, out, ConvertOptions(jobs=1, fix=True)).report
    assert [(f.line, f.column, f.rule_id, f.message) for f in report.findings
            if f.rule_id in ("HP1217", "HP2045") and f.path.endswith("shuffles.cu")] == FIXED
    ported = (out / "shuffles.hip").read_text()
    block = SHUFFLE_BLOCK.replace("{nl}", "\n")
    assert ported.count("HIPPORT_GROUP_SHUFFLES_DEFINED") == 2
    assert block + "__global__ void rotate(" in ported
    assert "  mine.hi = hipport_shfl_xor(tile, mine.hi, 1);\n" in ported
    assert "  mine.lo.x = tile.shfl_down(mine.lo.x, 2);\n" in ported
    assert "  two = hipport_shfl(active, two, 0);\n" in ported
    shift = ported.count("\n") - FIXTURE.read_text().count("\n")
    try:
        toolchain.compile_amd(out / "shuffles.hip", tmp_path / "s.o", ["gfx90a"], ["-fsyntax-only"])
        stderr = ""
    except CompileError as exc:
        stderr = exc.stderr
    notes = {int(m) - shift for m in re.findall(r"shuffles\.hip:(\d+):\d+: note: in instantiation", stderr)}
    assert notes == {23, 25}
    vectors_only = ported.replace("  pair = tile.shfl(pair, 0);\n", "").replace("  both = tile.shfl(both, 3);\n", "")
    (tmp_path / "vectors.hip").write_text(vectors_only)
    toolchain.compile_amd(tmp_path / "vectors.hip", tmp_path / "v.o", ["gfx90a", "gfx1100"])
    toolchain.compile_nvidia(tmp_path / "vectors.hip", tmp_path / "v-nvidia.o", link=False)

"""Cooperative-groups members HIP 6.4 spells otherwise or lacks (hipport/group_members.py).

The fixtures in tests/fixtures/group_members/ are written for these tests: renamed.cu uses the
members HIP has under another name (num_threads -> size, thread_block::dim_threads ->
group_dim) next to a project's own num_threads member; missing.cu uses the members HIP 6.4
lacks, or has with another meaning (grid_group::group_dim). Both are valid CUDA 12.4 (compiled
with nvcc for sm_90 here); the port of renamed.cu compiles for gfx90a and gfx1100, and the port
of missing.cu fails for gfx90a exactly on the lines that carry an HP2020 finding.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from helpers import FIXTURES
from hipport.analyze import analyze_file
from hipport.convert import ConvertOptions, convert_tree
from hipport.edits import apply_edits
from hipport.parse import new_parser
from hipport.rules import default_rules
from hipport.toolchain import CompileError

SRC = FIXTURES / "group_members"
ARCHS = ["gfx90a", "gfx1100"]
CODE_OBJECTS = ["hipv4-amdgcn-amd-amdhsa--gfx1100", "hipv4-amdgcn-amd-amdhsa--gfx90a"]
HEADER = ["#include <hip/hip_runtime.h>", "#include <hip/hip_cooperative_groups.h>"]


@pytest.fixture(scope="module")
def ported(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("group_members") / "out"
    convert_tree(SRC, out, ConvertOptions(jobs=1))
    return out


def _findings(out: Path) -> list[str]:
    report = json.loads((out / "hipport-report.json").read_text())
    return [f"{f['path']}:{f['line']}:{f['column']} {f['rule_id']} {f['message']} | {f['fix']}"
            for f in report["findings"]]


def _port_text(source: str) -> tuple[str, list[str]]:
    """(ported text, findings as 'line:column id') of one header-like snippet."""
    data = source.encode()
    result = analyze_file("x.cuh", data, new_parser().parse(data), default_rules(), is_cuda_unit=False)
    return (apply_edits(data, result.edits).decode(),
            [f"{f.line}:{f.column} {f.rule_id}" for f in result.findings])


# ------------------------------------------------------------------ renamed members (exact port)
def test_renamed_members_exact_port(ported: Path) -> None:
    source = (SRC / "renamed.cu").read_text().splitlines()
    expected = source[:2] + HEADER + source[3:]
    changes = {  # 0-based line of the port -> its text
        15: "  return (items + tile.size() - 1) / tile.size();",
        18: "__device__ unsigned block_width(const cg::thread_block* group) { return group->size(); }",
        23: "  unsigned slot = block.group_index().x * block.size() + block.thread_rank();",
        24: "  out[slot] = tile_share(tile, 100u) + block.group_dim().x + block_width(&block)",
        25: "              + cg::this_thread_block().size() + pool.num_threads() + pool_width(pool);",
        27: "  if (active.thread_rank() == 0) out[slot] += active.size();",
        32: "  if (grid.thread_rank() == 0) *out = grid.size();",
    }
    for line, text in changes.items():
        expected[line] = text
    assert (ported / "renamed.hip").read_text().splitlines() == expected
    # the project's own WorkerPool::num_threads, also on a parameter named block, is untouched
    assert "__device__ unsigned pool_width(WorkerPool block) { return block.num_threads(); }" in expected
    assert not [f for f in _findings(ported) if f.startswith("renamed.cu:")]


# ------------------------------------------------------------------ missing members (exact findings)
MISSING = [
    "missing.cu:5:70 HP2020 thread_block::dim_threads() is a cooperative-groups member HIP 6.4 lacks: "
    "thread_block::dim_threads() and group_dim() are both blockDim in CUDA 12 (cooperative_groups.h:670-675); "
    "HIP 6.4 has group_dim() only, not const (amd_hip_cooperative_groups.h:245) | "
    "Write blockDim (HIP's thread_block::group_dim() is not a const member)",
    "missing.cu:9:12 HP2020 grid_group::block_rank() is a cooperative-groups member HIP 6.4 lacks: the block's "
    "linear rank in the grid (CUDA helpers.h:397); HIP 6.4's grid_group lacks it (amd_hip_cooperative_groups.h:166-180)"
    " | Write (blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x",
    "missing.cu:9:32 HP2020 grid_group::num_blocks() is a cooperative-groups member HIP 6.4 lacks: the number of "
    "blocks of the grid (CUDA helpers.h:385); HIP 6.4's grid_group lacks it (amd_hip_cooperative_groups.h:166-180) | "
    "Write (unsigned long long)gridDim.x * gridDim.y * gridDim.z",
    "missing.cu:9:52 HP2020 grid_group::dim_blocks() is a cooperative-groups member HIP 6.4 lacks: the grid's "
    "blocks per dimension (CUDA helpers.h:407); HIP 6.4's grid_group lacks it (amd_hip_cooperative_groups.h:166-180)"
    " | Write gridDim",
    "missing.cu:10:12 HP2020 grid_group::block_index() is a cooperative-groups member HIP 6.4 lacks: the block's "
    "index in the grid (CUDA helpers.h:412); HIP 6.4's grid_group lacks it, its thread_block has group_index() "
    "(amd_hip_cooperative_groups.h:238) | Write blockIdx (or cooperative_groups::this_thread_block().group_index())",
    "missing.cu:10:35 HP2020 grid_group::thread_index() is a cooperative-groups member HIP 6.4 lacks: the thread's "
    "index in the grid per dimension (CUDA helpers.h:422); HIP 6.4's grid_group lacks it "
    "(amd_hip_cooperative_groups.h:166-180) | Write dim3(blockIdx.x * blockDim.x + threadIdx.x, "
    "blockIdx.y * blockDim.y + threadIdx.y, blockIdx.z * blockDim.z + threadIdx.z)",
    "missing.cu:10:59 HP2020 grid_group::dim_threads() is a cooperative-groups member HIP 6.4 lacks: the threads "
    "of the grid per dimension (CUDA helpers.h:417); HIP 6.4's grid_group has only thread_rank, is_valid, sync, "
    "group_dim and size (amd_hip_cooperative_groups.h:166-180) | "
    "Write dim3(gridDim.x * blockDim.x, gridDim.y * blockDim.y, gridDim.z * blockDim.z)",
    "missing.cu:11:12 HP2021 grid_group::group_dim() compiles for HIP 6.4 but means something else: CUDA 12's "
    "grid_group::group_dim() is the grid's blocks per dimension, gridDim (cooperative_groups.h:364); HIP 6.4's is "
    "the block's threads, blockDim (amd_hip_cooperative_groups.h:179) | Write gridDim",
    "missing.cu:12:16 HP2020 grid_group::barrier_arrive() is a cooperative-groups member HIP 6.4 lacks: CUDA 12's "
    "split arrive/wait barrier (cooperative_groups.h:348-356, 644-648); HIP 6.4 has sync() only "
    "(amd_hip_cooperative_groups.h:178, 243) | Write the group's sync() where barrier_wait(token) is called, "
    "with no token",
    "missing.cu:13:3 HP2020 grid_group::barrier_wait() is a cooperative-groups member HIP 6.4 lacks: CUDA 12's "
    "split arrive/wait barrier (cooperative_groups.h:348-356, 644-648); HIP 6.4 has sync() only "
    "(amd_hip_cooperative_groups.h:178, 243) | Write the group's sync() here, and no barrier_arrive before it",
    "missing.cu:18:12 HP2020 thread_group::get_type() is a cooperative-groups member HIP 6.4 lacks: CUDA's group "
    "kind number (cooperative_groups.h:154); HIP 6.4's thread_group has cg_type() with values of its own "
    "(amd_hip_cooperative_groups.h:92) | Write cg_type(), compared with HIP's "
    "cooperative_groups::internal::group_type values (cg_workgroup, cg_tiled_group, cg_coalesced_group, cg_grid, "
    "cg_multi_grid), not CUDA's",
]


def test_missing_members_exact_findings(ported: Path) -> None:
    assert [f for f in _findings(ported) if f.startswith("missing.cu:")] == MISSING
    source = (SRC / "missing.cu").read_text().splitlines()
    assert (ported / "missing.hip").read_text().splitlines() == source[:1] + HEADER + source[2:]


# ------------------------------------------------------------------ must not touch
UNTOUCHED = [
    # a project's own struct, and a name declared as a group in another function
    "struct Pool { int num_threads() const; };\n"
    "__device__ void a() { auto g = cooperative_groups::this_grid(); g.sync(); }\n"
    "__device__ int b(Pool g) { return g.num_threads(); }\n",
    # the group's name shadowed by a later declaration of another type
    "namespace cg = cooperative_groups;\n"
    "struct Pool { int num_threads() const; };\n"
    "__device__ int c() { cg::thread_block g = cg::this_thread_block(); g.sync();\n"
    "  for (Pool g : pools()) return g.num_threads(); return 0; }\n",
    # a group declared in a block that ended before the call, and a lambda parameter of another type
    "namespace cg = cooperative_groups;\n"
    "struct Pool { int num_threads() const; };\n"
    "__device__ int h() { Pool g; { auto g = cg::this_grid(); g.sync(); } return g.num_threads(); }\n"
    "__device__ int i() { auto g = cg::this_thread_block(); g.sync();\n"
    "  auto l = [&](Pool g) { return g.num_threads(); }; return l(Pool{}); }\n",
    # an unqualified thread_block with no using namespace cooperative_groups: the project's type
    "struct thread_block { int num_threads() const; };\n"
    "__device__ int d(thread_block& t) { return t.num_threads(); }\n",
    # a scope that is not cooperative_groups, and a call in a #define body
    "namespace mine { struct grid_group { int block_rank() const; }; }\n"
    "__device__ int e(mine::grid_group g) { return g.block_rank(); }\n"
    "#define RANK(g) (g).block_rank()\n",
]


@pytest.mark.parametrize("source", UNTOUCHED)
def test_other_members_untouched(source: str) -> None:
    assert _port_text(source) == (source, [])


def test_alias_auto_and_direct_calls() -> None:
    source = ("namespace groups = cooperative_groups;\n"
              "__device__ unsigned f() {\n"
              "  const auto tile = groups::tiled_partition<8>(groups::this_thread_block());\n"
              "  auto&& grid = groups::this_grid();\n"
              "  return tile.num_threads() + (grid).num_threads() + groups::this_grid().block_rank();\n"
              "}\n")
    ported, findings = _port_text(source)
    assert ported == source.replace("tile.num_threads() + (grid).num_threads()", "tile.size() + (grid).size()")
    assert findings == ["5:54 HP2020"]


def test_a_lambda_sees_the_group_of_its_function() -> None:
    source = ("namespace cg = cooperative_groups;\n"
              "__device__ unsigned f() {\n"
              "  cg::thread_block block = cg::this_thread_block();\n"
              "  auto width = [&]() { return block.num_threads(); };\n"
              "  return width();\n"
              "}\n")
    assert _port_text(source) == (source.replace("block.num_threads()", "block.size()"), [])


# ------------------------------------------------------------------ compiled
def test_fixtures_are_valid_cuda(toolchain, tmp_path: Path) -> None:
    for name in ("renamed.cu", "missing.cu"):
        toolchain.compile_cuda(SRC / name, tmp_path / (name + ".o"), link=False, extra_flags=("-std=c++17",))
        assert (tmp_path / (name + ".o")).stat().st_size > 0


def test_renamed_port_compiles_for_amd(toolchain, ported: Path, tmp_path: Path) -> None:
    obj = tmp_path / "renamed.o"
    toolchain.compile_amd(ported / "renamed.hip", obj, ARCHS)
    assert toolchain.code_object_targets(obj) == CODE_OBJECTS


def test_missing_port_fails_only_where_reported(toolchain, ported: Path, tmp_path: Path) -> None:
    """Every gfx90a error of the missing.cu port is on a line with an HP2020 finding, and every
    HP2020 line has an error (the port has one more line than the source: the runtime include)."""
    with pytest.raises(CompileError) as failure:
        toolchain.compile_amd(ported / "missing.hip", tmp_path / "missing.o", ["gfx90a"])
    error_lines = {int(line) - 1 for line in re.findall(r"missing\.hip:(\d+):\d+: error:", failure.value.stderr)}
    reported = {int(f.split(":")[1]) for f in MISSING if " HP2020 " in f}
    assert error_lines == reported == {5, 9, 10, 12, 13, 18}


# ------------------------------------------------------------------ rule data
def test_members_survive_the_rule_cache(tmp_path: Path, monkeypatch) -> None:
    from hipport.rules import load_rule_file
    path = Path(default_rules().families["cooperative_groups"].path)
    monkeypatch.setenv("HIPPORT_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("HIPPORT_NO_CACHE", raising=False)
    fresh = load_rule_file(path)
    assert list(tmp_path.glob("rules-*.json"))
    cached = load_rule_file(path)
    assert cached.members == fresh.members
    assert [(m.cuda, m.status) for m in fresh.members][:2] == [("num_threads", "renamed"), ("dim_threads", "renamed")]
    assert fresh.members[1].const_instead.startswith("blockDim")


@pytest.mark.parametrize("entry, message", [
    ("{cuda: num_threads, of: [thread_block], status: renamed, note: x}",
     "x.yaml:6: member num_threads: status renamed needs 'hip' (and no 'instead'); missing and differs need "
     "'instead' (and no 'hip' or 'const_instead')"),
    ("{cuda: num_threads, of: [warp_group], status: missing, instead: y, note: x}",
     "x.yaml:6: members/0/of/0: 'warp_group' must be one of"),
])
def test_bad_member_entries_are_refused_with_their_line(tmp_path: Path, monkeypatch, entry: str, message: str) -> None:
    from hipport.rules import RuleError, load_rule_file
    monkeypatch.setenv("HIPPORT_NO_CACHE", "1")
    bad = tmp_path / "x.yaml"
    bad.write_text(f"family: x\ntitle: X\nsource: s\nmappings: []\nmembers:\n  - {entry}\n")
    with pytest.raises(RuleError) as error:
        load_rule_file(bad)
    assert str(error.value).replace(str(tmp_path) + "/", "").startswith(message)

"""Inline PTX inventory: instructions, operands and constraints of every asm block, equivalents
from rules/ptx.yaml, and "needs a human" for what has none."""

from __future__ import annotations

import json

import pytest

from hipport.analyze import ptx_instructions
from hipport.convert import convert_tree
from hipport.rules import default_rules


@pytest.mark.parametrize("template, expected", [
    (rb"mov.u32 %0, %%laneid;", [("mov.u32", "%0, %%laneid")]),
    (rb"{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %1, 0;\n\t@p add.s32 %0, %0, 1;\n}", [
        (".reg", ".pred p"), ("setp.ne.b32", "p, %1, 0"), ("add.s32", "%0, %0, 1")]),
    (rb"L1: bra L1; // spin", [("bra", "L1")]),
    (rb"", []),
])
def test_ptx_instructions(template, expected):
    assert ptx_instructions(template) == expected


@pytest.mark.parametrize("opcode, operands, match, hip", [
    ("mov.u32", "%0, %%laneid", "%laneid", "__lane_id()"),
    ("mov.u64", "%0, %%clock64", "%clock64", "clock64() or wall_clock64()"),
    ("mov.u32", "%0, %%clock", "%clock", "clock()"),
    ("shfl.sync.bfly.b32", "%0, %1, 16, 31, -1", "shfl.sync", "__shfl_sync / __shfl_up_sync / __shfl_down_sync / __shfl_xor_sync"),
    ("ld.global.nc.f32", "%0, [%1]", "ld.global.nc", "__ldg(ptr), or a load through a const __restrict__ pointer"),
    ("bfe.u32", "%0, %1, 8, 4", "bfe", "__bitextract_u32 / __bitextract_u64"),
    ("prmt.b32", "%0, %1, %2, 0x3210", "prmt", "__byte_perm(x, y, selector)"),
    ("lop3.b32", "%0, %1, %2, %3, 0x96", "lop3", "the plain C++ bitwise expression (the compiler picks the instruction)"),
    ("mov.b64", "%0, {%1, %2}", "mov.b64", "shifts and casts: ((uint64_t)hi << 32) | lo, or a union"),
    ("cvt.rn.f16.f32", "%0, %1", "cvt", "the conversion intrinsics with explicit rounding (__float2int_rn, __float2half_rz, ...)"),
    ("wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16", "...", "wgmma", None),
    ("frobnicate.b32", "%0", None, None),
])
def test_equivalents(opcode, operands, match, hip):
    entry = default_rules().ptx_equivalent(opcode, operands)
    assert (entry.match if entry else None, entry.hip if entry else None) == (match, hip)


def test_inventory_and_needs_a_human(tmp_path):
    src = tmp_path / "k.cu"
    src.write_text(
        "__global__ void k(float* out, const float* in, unsigned long long* t) {\n"
        '  asm volatile("mov.u64 %0, %%clock64;" : "=l"(t[0]));\n'
        '  asm("wgmma.fence.sync.aligned;\\n\\twgmma.commit_group.sync.aligned;" ::: "memory");\n'
        '  asm("frobnicate.b32 %0;" : "+r"(*(unsigned*)out));\n'
        "}\n")
    convert_tree(src, tmp_path / "out")
    report = json.loads((tmp_path / "out" / "hipport-report.json").read_text())
    assert [(f["line"], f["rule_id"], f["message"], f["fix"]) for f in report["findings"]] == [
        (2, "HP1001", "inline PTX assembly (asm volatile) cannot run on AMD GPUs: mov.u64",
         "Write instead: %clock64 -> clock64() or wall_clock64() (or keep the asm behind #ifdef __HIP_PLATFORM_NVIDIA__)"),
        (3, "HP1003", "inline PTX assembly (asm) needs a human: wgmma.fence.sync.aligned, wgmma.commit_group.sync.aligned",
         "wgmma: Hopper warpgroup matrix multiply: rewrite with rocWMMA, hipBLASLt or a composable-kernel GEMM; "
         "rewrite the block in HIP C++ (or keep it behind #ifdef __HIP_PLATFORM_NVIDIA__)"),
        (4, "HP1003", "inline PTX assembly (asm) needs a human: frobnicate.b32",
         "frobnicate.b32: no known equivalent; rewrite the block in HIP C++ (or keep it behind #ifdef __HIP_PLATFORM_NVIDIA__)"),
    ]
    assert report["inline_asm"] == [
        {"path": "k.cu", "line": 2, "column": 3, "statement": "asm volatile",
         "instructions": [{"opcode": "mov.u64", "operands": "%0, %%clock64"}], "constraints": ["=l"]},
        {"path": "k.cu", "line": 3, "column": 3, "statement": "asm",
         "instructions": [{"opcode": "wgmma.fence.sync.aligned", "operands": ""},
                          {"opcode": "wgmma.commit_group.sync.aligned", "operands": ""}], "constraints": ["memory"]},
        {"path": "k.cu", "line": 4, "column": 3, "statement": "asm",
         "instructions": [{"opcode": "frobnicate.b32", "operands": "%0"}], "constraints": ["+r"]},
    ]
    markdown = (tmp_path / "out" / "hipport-report.md").read_text()
    assert "| `%clock64` | 1 | `k.cu:2:3` | `clock64() or wall_clock64()` |" in markdown
    assert "| `frobnicate.b32` | 1 | `k.cu:4:3` | **needs a human**: no known equivalent |" in markdown

"""hipCUB block loads/stores with a warp-transposing algorithm need a block size that is a
multiple of the wavefront (HP1219; issue 10, HeCBench blockScan: rocPRIM's static assertion
"BlockSize must be a multiple of hardware warpsize" with no finding before). Fixture:
tests/fixtures/toolkit_headers/warp_transpose (written for these tests)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

from helpers import FIXTURES, REPO
from hipport.convert import ConvertOptions, check_tree, convert_tree
from hipport.cub_block_size import warp_algorithms
from hipport.toolchain import CompileError

WARP = FIXTURES / "toolkit_headers" / "warp_transpose"
ROCM_HEADERS = REPO / ".toolchain" / "amd-libs" / "usr" / "include"

_spec = importlib.util.spec_from_file_location("no_silent_failure", REPO / "scripts" / "no_silent_failure.py")
nsf = sys.modules.get("no_silent_failure")
if nsf is None:
    nsf = importlib.util.module_from_spec(_spec)
    sys.modules["no_silent_failure"] = nsf
    _spec.loader.exec_module(nsf)


def test_warp_transpose_algorithms_and_their_typedef_uses_are_reported() -> None:
    report = check_tree(WARP, ConvertOptions(jobs=1))
    found = [(f.line, f.column, f.rule_id, f.message.split(" needs ")[0], f.fix.split(", or use ")[1])
             for f in report.findings if f.rule_id == "HP1219"]
    assert found == [
        (8, 54, "HP1219", "BLOCK_LOAD_WARP_TRANSPOSE", "BLOCK_LOAD_TRANSPOSE (or the _DIRECT algorithm), which accepts any block size"),
        (10, 32, "HP1219", "BLOCK_STORE_WARP_TRANSPOSE", "BLOCK_STORE_TRANSPOSE (or the _DIRECT algorithm), which accepts any block size"),
        (11, 23, "HP1219", "BLOCK_LOAD_WARP_TRANSPOSE (through Loader, declared on line 8)", "BLOCK_LOAD_TRANSPOSE (or the _DIRECT algorithm), which accepts any block size"),
        (12, 23, "HP1219", "BLOCK_STORE_WARP_TRANSPOSE (through Storer, declared on line 10)", "BLOCK_STORE_TRANSPOSE (or the _DIRECT algorithm), which accepts any block size"),
        (14, 3, "HP1219", "BLOCK_LOAD_WARP_TRANSPOSE (through Loader, declared on line 8)", "BLOCK_LOAD_TRANSPOSE (or the _DIRECT algorithm), which accepts any block size"),
        (16, 3, "HP1219", "BLOCK_STORE_WARP_TRANSPOSE (through Storer, declared on line 10)", "BLOCK_STORE_TRANSPOSE (or the _DIRECT algorithm), which accepts any block size"),
    ]
    assert report.findings[0].message.endswith(
        "needs a block size that is a multiple of the wavefront in hipCUB (64 on gfx90a): a block of 32 threads, "
        "right for CUDA's 32-wide warp, stops the compile with rocPRIM's static assertion "
        "\"BlockSize must be a multiple of hardware warpsize\"")


def test_rule_data_matches_hipcub_and_rocprim(toolchain) -> None:
    """Each listed enumerator maps to the listed rocPRIM method in hipCUB's backend, whose
    specialisation asserts at the listed line; TRANSPOSE/DIRECT are not listed."""
    for name, entry in warp_algorithms().items():
        kind = "load" if "_LOAD_" in name else "store"
        hipcub = (ROCM_HEADERS / "hipcub" / "backend" / "rocprim" / "block" / f"block_{kind}.hpp").read_text()
        assert f"{name}\n        = detail::to_Block{kind.capitalize()}Algorithm_enum(::rocprim::block_{kind}_method::{entry['rocprim']})" in hipcub
        path, line = entry["asserted"].split(":")
        lines = (ROCM_HEADERS / path).read_text().splitlines()
        assert "BlockSize must be a multiple of hardware warpsize" in lines[int(line)], entry
        assert f"block_{kind}_method::{entry['rocprim']}" in "\n".join(lines[int(line) - 12:int(line)])
    assert not {"BLOCK_LOAD_TRANSPOSE", "BLOCK_LOAD_DIRECT", "BLOCK_STORE_TRANSPOSE"} & set(warp_algorithms())


def test_static_assertion_is_explained(tmp_path: Path, toolchain) -> None:
    out = tmp_path / "out"
    convert_tree(WARP, out, ConvertOptions(jobs=1))
    try:
        toolchain.compile_amd(out / "scan.hip", tmp_path / "scan.o", ["gfx90a"], ["-std=c++17"])
    except CompileError as exc:
        errors = exc.stderr
    else:
        raise AssertionError("the 32-thread warp-transpose port compiled for gfx90a")
    report = nsf.Report(WARP, out)
    diagnostics = [d for d in nsf.parse_diagnostics(errors) if "multiple of hardware warpsize" in d.message]
    assert len(diagnostics) == 2
    for d in diagnostics:
        assert [f"{f['rule_id']} {f['path']}:{f['line']}" for f in nsf.explain(d, report)][:1] in (
            ["HP1219 scan.cu:11"], ["HP1219 scan.cu:12"]), d

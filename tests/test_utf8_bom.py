"""A UTF-8 byte-order mark at the start of a source file hides nothing (issue 10, point 8).

tests/fixtures/utf8_bom/ holds three files that start with the mark (EF BB BF) right before an
``#include`` on line 1: a cuBLAS program, the header it includes (its first line includes
``cublas_v2.h`` too) and a kernel that includes ``cuda_fp8.h``, which hipport reports. The
include on line 1 must be ported (or reported) as it is without the mark, the output keeps the
mark, the generated CMake build links hipBLAS for the header's include, and the port compiles
for gfx90a and gfx1100.
"""

from __future__ import annotations

import json
from pathlib import Path

from helpers import FIXTURES
from hipport.convert import ConvertOptions, check_tree, convert_tree

SRC = FIXTURES / "utf8_bom"
BOM = b"\xef\xbb\xbf"


def test_bom_include_on_line_1_is_ported_and_the_mark_kept(tmp_path: Path) -> None:
    out = tmp_path / "out"
    convert_tree(SRC, out, ConvertOptions(jobs=1))
    header = (out / "norms.h").read_bytes()
    assert header.startswith(BOM + b"#include <hipblas/hipblas.h>\n#pragma once\n")
    assert b"cublas" not in header and b"hipblasSnrm2(handle" in header
    program = (out / "scale.hip").read_bytes()
    # the runtime include goes before the first code line, after the mark, not in front of it
    assert program.startswith(BOM + b"#include <hip/hip_runtime.h>\n#include <hipblas/hipblas.h>\n")
    assert program.count(BOM) == 1
    assert (SRC / "scale.cu").read_bytes().startswith(BOM + b"#include <cublas_v2.h>\n")  # SRC untouched
    cmake = (out / "CMakeLists.txt").read_text()
    assert "hipport_link_libraries(scale PRIVATE roc::hipblas)" in cmake


def test_bom_include_on_line_1_is_reported() -> None:
    report = check_tree(SRC, ConvertOptions(jobs=1))
    found = [(f.path, f.line, f.column, f.rule_id, f.name) for f in report.findings]
    assert found == [
        ("fp8_first.cu", 1, 10, "HP1206", "cuda_fp8.h"),
        ("fp8_first.cu", 3, 29, "HP1206", "__nv_fp8_e4m3"),
    ]


def test_bom_port_compiles_for_amd(tmp_path: Path, toolchain, amd_library_include) -> None:
    out = tmp_path / "out"
    result = convert_tree(SRC, out, ConvertOptions(jobs=1))
    data = json.loads((out / "hipport-report.json").read_text())
    assert [f["path"] for f in data["findings"]] == ["fp8_first.cu", "fp8_first.cu"]
    assert "scale.hip" in result.written
    obj = tmp_path / "scale.o"
    toolchain.compile_amd(out / "scale.hip", obj, ["gfx90a", "gfx1100"], ["-I", str(out)])
    assert toolchain.code_object_targets(obj) == ["hipv4-amdgcn-amd-amdhsa--gfx1100",
                                                  "hipv4-amdgcn-amd-amdhsa--gfx90a"]

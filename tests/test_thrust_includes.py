"""Thrust names used without their rocThrust header get it (HP2022; issue 10, cuda-samples
smokeParticles: "no member named 'sequence' in namespace 'thrust'" with no finding before).
Fixture: tests/fixtures/toolkit_headers/thrust_sequence (written for these tests)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

from helpers import FIXTURES, REPO
from hipport.analyze import analyze_file
from hipport.convert import ConvertOptions, check_tree, convert_tree
from hipport.edits import apply_edits
from hipport.parse import new_parser
from hipport.rules import default_rules
from hipport.thrust_includes import declaring_headers

SEQUENCE = FIXTURES / "toolkit_headers" / "thrust_sequence"


def _port(source: bytes) -> bytes:
    result = analyze_file("x.cu", source, new_parser().parse(source), default_rules(), is_cuda_unit=False)
    return apply_edits(source, result.edits)


def test_missing_declaring_header_is_added_and_reported(tmp_path: Path) -> None:
    report = check_tree(SEQUENCE, ConvertOptions(jobs=1))
    assert [(f.line, f.column, f.rule_id, f.severity, f.message) for f in report.findings] == [
        (6, 11, "HP2022", "info", "thrust::sequence is declared by <thrust/sequence.h> in rocThrust, which this file "
         "does not include: added after its last Thrust include (line 3)"),
    ]
    out = tmp_path / "out"
    convert_tree(SEQUENCE, out, ConvertOptions(jobs=1))
    assert (out / "order.hip").read_text().splitlines()[:5] == [
        "// Orders particles by cell: sequence and sort_by_key, with only two Thrust headers included.",
        "#include <hip/hip_runtime.h>",
        "#include <thrust/device_vector.h>",
        "#include <thrust/sort.h>",
        "#include <thrust/sequence.h>",
    ]


def test_nothing_added_where_the_header_is_included_or_no_thrust_include() -> None:
    included = b"#include <thrust/sequence.h>\n#include <thrust/sort.h>\nvoid f(int *a) { thrust::sequence(a, a + 4); }\n"
    assert _port(included) == included
    none = b'#include "my_thrust.h"\nvoid f(int *a) { thrust::sequence(a, a + 4); }\n'
    assert _port(none) == none


def test_two_headers_at_the_end_of_a_file_without_final_newline() -> None:
    source = b"void f(int *a) { thrust::fill(a, a + 4, 0); thrust::sequence(a, a + 4); }\n#include <thrust/sort.h>"
    assert _port(source) == (b"void f(int *a) { thrust::fill(a, a + 4, 0); thrust::sequence(a, a + 4); }\n"
                             b"#include <thrust/sort.h>\n#include <thrust/fill.h>\n#include <thrust/sequence.h>")


def test_table_is_generated_from_rocthrust(toolchain) -> None:
    spec = importlib.util.spec_from_file_location("rocthrust_declarations", REPO / "tools" / "rocthrust_declarations.py")
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    config = json.loads((REPO / ".toolchain" / "toolchain.json").read_text())
    assert tool.render(tool.build(Path(config["amd_library_include"]) / "thrust")) == \
        (REPO / "rules" / "toolkit" / "rocthrust_declarations.yaml").read_text()
    table = declaring_headers()
    assert table["sequence"] == ("thrust/sequence.h",) and table["sort_by_key"] == ("thrust/sort.h",)


def test_port_compiles_for_amd(tmp_path: Path, toolchain) -> None:
    out = tmp_path / "out"
    convert_tree(SEQUENCE, out, ConvertOptions(jobs=1))
    toolchain.compile_amd(out / "order.hip", tmp_path / "order.o", ["gfx90a"], ["-std=c++17"])

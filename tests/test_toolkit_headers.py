"""CUDA toolkit headers that no rule maps are reported on their #include line (HP2008; issue 10,
cuda-samples volumeRender: "'driver_functions.h' file not found" with no finding before).
Fixture: tests/fixtures/toolkit_headers/unmapped (written for these tests)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from helpers import FIXTURES, REPO
from hipport.convert import ConvertOptions, check_tree
from hipport.rules import default_rules
from hipport.toolkit_headers import closest_headers, toolkit_headers, unknown_toolkit_header

UNMAPPED = FIXTURES / "toolkit_headers" / "unmapped"


def test_unmapped_toolkit_headers_are_reported_at_their_include() -> None:
    report = check_tree(UNMAPPED, ConvertOptions(jobs=1))
    found = [(f.path, f.line, f.column, f.rule_id, f.message) for f in report.findings if f.rule_id == "HP2008"]
    assert found == [
        ("render.cu", 3, 10, "HP2008", "driver_functions.h looks like a CUDA name, but no hipport rule knows it: "
         "left unchanged; closest known names: vector_functions.h, device_functions.h, math_functions.h"),
        ("render.cu", 4, 10, "HP2008", "cuda_awbarrier_primitives.h looks like a CUDA name, but no hipport rule "
         "knows it: left unchanged; closest known names: cuda_profiler_api.h"),
    ]


@pytest.mark.parametrize("name, expected", [
    ("driver_functions.h", True),
    ("cuda_runtime.h", False),        # a header rule maps it
    ("mma.h", False),                 # a construct reports it (wmma)
    ("npp.h", False),                 # a library without a HIP counterpart (HP3005's)
    ("thrust/sort.h", False),         # rocThrust ships it under the same name
    ("thrust/system/cuda/detail/guarded_driver_types.h", True),  # CUDA-only Thrust internals
    ("my_own_header.h", False),       # not the toolkit's
])
def test_which_headers_are_unknown(name: str, expected: bool) -> None:
    assert unknown_toolkit_header(default_rules(), name) is expected


def test_closest_headers_are_mapped_headers() -> None:
    rules = default_rules()
    assert closest_headers(rules, "driver_functions.h") == ("vector_functions.h", "device_functions.h", "math_functions.h")
    assert all(name in rules.headers for name in closest_headers(rules, "cuda_awbarrier.h"))


def test_header_list_is_generated_from_the_toolchain(toolchain) -> None:
    spec = importlib.util.spec_from_file_location("cuda_toolkit_headers", REPO / "tools" / "cuda_toolkit_headers.py")
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    config = json.loads((REPO / ".toolchain" / "toolchain.json").read_text())
    text = tool.render(tool.toolkit_headers(REPO / ".toolchain" / "cuda"),
                       [Path(config["hip_amd_include"]), Path(config["amd_library_include"])])
    assert text == (REPO / "rules" / "toolkit" / "cuda_headers.yaml").read_text()
    headers, in_hip = toolkit_headers()
    assert {"driver_functions.h", "cub/cub.cuh", "thrust/sort.h", "cuda/std/atomic"} <= headers
    assert "thrust/sort.h" in in_hip and "driver_functions.h" not in in_hip

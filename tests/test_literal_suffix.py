"""A string literal written against the identifier after it (hipport/literal_suffix.py): nvcc
accepts ``extern "C"__global__`` and ``"%"PRIu64``, clang reads each as a literal with a
user-defined suffix and stops. The port inserts a space; ``"elements"s`` (std::string's literal)
keeps its suffix."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers import FIXTURES
from hipport.convert import ConvertOptions, convert_tree
from hipport.toolchain import CompileError

SOURCE = FIXTURES / "trial_classes" / "literal_suffix"
PORTED = [
    'extern "C" __global__ void saxpy(float a, const float* x, float* y) { y[threadIdx.x] += a * x[threadIdx.x]; }',
    "",
    '#define U64_LINE "%" PRIu64"\\n"',
    "",
    "void show(uint64_t count)",
    "{",
    '    printf("count=%" PRIu64"\\n", count);',
    "    printf(U64_LINE, count);",
    '    std::string unit = "elements"s;',
]


def test_the_port_spaces_the_suffixes_clang_rejects(tmp_path: Path) -> None:
    convert_tree(SOURCE, tmp_path / "out", ConvertOptions(jobs=1))
    lines = (tmp_path / "out" / "saxpy.hip").read_text(encoding="utf-8").splitlines()
    assert lines[8:17] == PORTED
    report = json.loads((tmp_path / "out" / "hipport-report.json").read_text(encoding="utf-8"))
    # the grammar cannot read the unspaced printf of the original: an info finding, not an error
    assert [(f["line"], f["rule_id"], f["severity"]) for f in report["findings"]] == [(14, "HP0001", "info")]


def test_port_compiles_for_amd_and_nvidia_and_fails_unspaced(tmp_path: Path, toolchain) -> None:
    toolchain.compile_cuda(SOURCE / "saxpy.cu", tmp_path / "cuda.o", link=False)
    convert_tree(SOURCE, tmp_path / "out", ConvertOptions(jobs=1))
    ported = tmp_path / "out" / "saxpy.hip"
    toolchain.compile_amd(ported, tmp_path / "amd.o", ["gfx90a", "gfx1100"], ["-std=c++17"])
    toolchain.compile_nvidia(ported, tmp_path / "nvidia.o", link=False)
    ported.write_text(ported.read_text(encoding="utf-8").replace('" ', '"'), encoding="utf-8")
    with pytest.raises(CompileError) as unspaced:
        toolchain.compile_amd(ported, tmp_path / "amd.o", ["gfx90a"], ["-std=c++17"])
    assert [line.split("saxpy.hip:")[1] for line in unspaced.value.stderr.splitlines()
            if ": error: " in line and "saxpy.hip:" in line] == [
        "9:11: error: string literal with user-defined suffix cannot be used here",
        "11:21: error: invalid suffix on literal; C++11 requires a space between literal and identifier "
        "[-Wreserved-user-defined-literal]",
        "15:21: error: invalid suffix on literal; C++11 requires a space between literal and identifier "
        "[-Wreserved-user-defined-literal]",
    ]

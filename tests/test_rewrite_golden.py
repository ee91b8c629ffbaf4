"""Golden files: every rewrite kind, byte for byte, plus the findings of each input.

Inputs live in tests/fixtures/rewrite/; the expected outputs and findings, written and reviewed
by the team, in tests/fixtures/rewrite/expected/. The launch input is converted a second time
with ``--launch-syntax=hip``; that output is ``expected/launches.launch-hip.hip``.
"""

from __future__ import annotations

import json

import pytest

from hipport.convert import ConvertOptions, convert_tree
from hipport.discover import output_name

from helpers import FIXTURES, findings_lines

REWRITE = FIXTURES / "rewrite"
CASES = [(p, "chevron", output_name(p.name), f"{p.name}.findings")
         for p in sorted(REWRITE.iterdir()) if p.is_file()]
CASES.append((REWRITE / "launches.cu", "hip", "launches.launch-hip.hip", "launches.launch-hip.findings"))


@pytest.mark.parametrize("source, syntax, expected_name, findings_name", CASES,
                         ids=[f"{c[0].name}-{c[1]}" for c in CASES])
def test_golden_output_and_findings(source, syntax, expected_name, findings_name, tmp_path):
    out = tmp_path / "out"
    convert_tree(source, out, ConvertOptions(launch_syntax=syntax))
    expected = (REWRITE / "expected" / expected_name).read_bytes()
    assert (out / output_name(source.name)).read_bytes() == expected
    report = json.loads((out / "hipport-report.json").read_text())
    expected_findings = (REWRITE / "expected" / findings_name).read_text().splitlines()
    assert findings_lines(report) == expected_findings


@pytest.mark.parametrize("name", ["must_not_touch.cpp", "implicit_pragma_once.cuh"])
def test_inputs_that_must_stay_unchanged(name, tmp_path):
    convert_tree(REWRITE / name, tmp_path)
    assert (tmp_path / name).read_bytes() == (REWRITE / name).read_bytes()


def test_crlf_and_tabs_survive(tmp_path):
    convert_tree(REWRITE / "crlf_tabs.cu", tmp_path)
    data = (tmp_path / "crlf_tabs.hip").read_bytes()
    assert data.count(b"\r\n") == data.count(b"\n") == 7
    assert b"\thipStream_t s;\t// tab before comment\r\n" in data
    assert b"a[0] = 1.0f;   \r\n" in data


def test_latin1_bytes_are_preserved(tmp_path):
    convert_tree(REWRITE / "latin1.cu", tmp_path)
    data = (tmp_path / "latin1.hip").read_bytes()
    assert b"caf\xe9, na\xefve" in data and b"\xa9 2024" in data
    assert b"hipMalloc(&p, 4) == hipSuccess" in data


def test_launch_syntax_hip_variants(tmp_path):
    convert_tree(REWRITE / "launches.cu", tmp_path, ConvertOptions(launch_syntax="hip"))
    text = (tmp_path / "launches.hip").read_text()
    assert "<<<" not in text
    assert text.count("hipLaunchKernelGGL(") == 7
    # two, three and four configuration arguments
    assert "hipLaunchKernelGGL(plain, 1, 32, 0, 0, p);" in text
    assert "hipLaunchKernelGGL(plain, dim3(4, 2), dim3(8, 8, 1), 256, 0, p);" in text
    assert "hipLaunchKernelGGL(plain, dim3(n, m), 64, 0, stream, p);" in text
    # template and namespace-qualified kernels, nested commas in configuration and arguments
    assert ("hipLaunchKernelGGL(HIP_KERNEL_NAME(linalg::scale<float, 16>), dim3(std::min(n, m), 2), "
            "dim3(16, 16), 0, stream, p, 2.0f, std::max(n, m));") in text
    assert "hipLaunchKernelGGL(::plain, 1, 1, 0, 0, make_params(p, p).a);" in text
    assert "hipLaunchKernelGGL(nothing, 1, 1, 0, 0);" in text

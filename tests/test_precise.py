"""Precise mode (--precise): libclang expands macros and resolves types; without libclang or CUDA
headers hipport says so and falls back to the tree-sitter analysis."""

from __future__ import annotations

import json
import sys

import pytest
from click.testing import CliRunner

import hipport.precise as precise
from hipport.cli import main

SOURCE = """\
#include <cuda_runtime.h>
#define SYNC_ALL() cudaThreadSynchronize()
#ifdef NARROW_MASKS
typedef unsigned mask_t;
#else
typedef unsigned long long mask_t;
#endif
__global__ void k(int* o, bool p) {
  mask_t m = __ballot_sync(0xffffffff, p);
  o[0] = __shfl_sync(m, 1, 0);
}
int main() { SYNC_ALL(); return 0; }
"""


@pytest.fixture(autouse=True)
def _fresh_session():
    precise._sessions.clear()
    yield
    precise._sessions.clear()


def check(*args):
    result = CliRunner().invoke(main, ["check", *map(str, args), "--format", "json", "--fail-on", "info"])
    report = json.loads(result.stdout)
    return result, [f"{f['line']}:{f['column']} {f['rule_id']}" for f in report["findings"]]


@pytest.fixture
def project(tmp_path):
    (tmp_path / "k.cu").write_text(SOURCE)
    return tmp_path


def test_tree_sitter_only_cannot_see_through_typedefs_and_macros(project):
    _, findings = check(project / "k.cu")
    assert findings == ["2:20 HP2003", "9:28 HP1101"]


def test_precise_mode_expands_macros_and_uses_real_types(project, toolchain):
    _, findings = check(project / "k.cu", "--precise", "--cuda-path", toolchain.nvcc.parent.parent, "-D", "NARROW_MASKS")
    assert findings == ["2:20 HP2003", "9:14 HP1102", "9:28 HP1101", "10:22 HP1102", "12:14 HP1301"]
    _, findings = check(project / "k.cu", "--precise", "--cuda-path", toolchain.nvcc.parent.parent)
    assert findings == ["2:20 HP2003", "9:28 HP1101", "12:14 HP1301"]  # 64-bit masks: nothing to report


def test_precise_mode_reads_compile_commands(project, toolchain):
    (project / "compile_commands.json").write_text(json.dumps([{
        "directory": str(project), "file": "k.cu",
        "arguments": ["nvcc", "-arch=sm_90", "-DNARROW_MASKS", "-c", "k.cu", "-o", "k.o"],
    }]))
    _, findings = check(project / "k.cu", "--precise", "--cuda-path", toolchain.nvcc.parent.parent,
                        "--compile-commands", project)
    assert "9:14 HP1102" in findings and "10:22 HP1102" in findings


def test_without_libclang_it_says_so_and_falls_back(project, monkeypatch):
    monkeypatch.setitem(sys.modules, "clang", None)  # import clang -> ImportError
    result, findings = check(project / "k.cu", "--precise")
    assert result.stderr == ("hipport: precise mode unavailable: the libclang Python bindings are not installed "
                             "(pip install 'hipport[precise]'); using the tree-sitter analysis only\n")
    assert findings == ["2:20 HP2003", "9:28 HP1101"]


def test_without_cuda_headers_it_says_so_and_falls_back(project, tmp_path, monkeypatch):
    monkeypatch.setattr(precise, "_find_cuda_path", lambda explicit: (_ for _ in ()).throw(
        precise.PreciseUnavailable("no CUDA headers found (give --cuda-path, set CUDA_PATH, or run scripts/install-toolchain.sh)")))
    result, findings = check(project / "k.cu", "--precise")
    assert "precise mode unavailable: no CUDA headers found" in result.stderr
    assert findings == ["2:20 HP2003", "9:28 HP1101"]

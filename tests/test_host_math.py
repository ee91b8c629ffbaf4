"""Math functions CUDA provides in host code and HIP only in device code (hipport/host_math.py,
HP2055): the list is what the toolchain's compilers say, and each reported call is a line clang
rejects in the port while nvcc compiles the original."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from helpers import FIXTURES, REPO, findings_lines
from hipport.convert import ConvertOptions, convert_tree
from hipport.toolchain import CompileError

SOURCE = FIXTURES / "trial_classes" / "host_math"


def test_list_is_what_the_compilers_say(toolchain, tmp_path: Path, monkeypatch) -> None:
    spec = importlib.util.spec_from_file_location("hip_host_math", REPO / "tools" / "hip_host_math.py")
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    monkeypatch.setattr(tool, "OUTPUT", tmp_path / "host_math.yaml")
    assert tool.main() == 0
    committed = (REPO / "rules" / "hip_headers" / "host_math.yaml").read_text()
    assert (tmp_path / "host_math.yaml").read_text() == committed
    assert "  - normcdf\n" in committed and "  - rsqrtf\n" in committed


def test_host_calls_reported_where_clang_rejects_them(toolchain, tmp_path: Path) -> None:
    toolchain.compile_cuda(SOURCE / "opt.cu", tmp_path / "cuda.o", link=False)
    out = tmp_path / "out"
    convert_tree(SOURCE, out, ConvertOptions(jobs=1))
    report = json.loads((out / "hipport-report.json").read_text(encoding="utf-8"))
    found = [f"{f['path']}:{line}" for f, line in zip(report["findings"], findings_lines(report))]
    assert [line.split(" HP2055 error ")[0] for line in found] == [
        "opt.cu:3:50", "opt.cu:4:43", "opt.cu:4:58", "opt.cu:4:80"]
    assert found[1].split(" HP2055 error ")[1] == (
        "normcdf is called in host code: CUDA provides it on the host too, HIP only in device code (clang's "
        "__clang_hip_math.h defines it __device__), so the port does not compile")
    with pytest.raises(CompileError) as failed:
        toolchain.compile_amd(out / "opt.hip", tmp_path / "amd.o", ["gfx90a"], ["-fsyntax-only", "-ferror-limit=0"])
    # the port has one more line (its runtime include): lines 3 and 4 of the original are 4 and 5
    assert sorted({line.split("opt.hip:")[1].split(": error:")[0] for line in failed.value.stderr.splitlines()
                   if ": error: " in line and "opt.hip:" in line}) == ["4:50", "5:43", "5:58", "5:80"]


def test_a_function_of_the_tree_headers_is_the_projects_own(tmp_path: Path) -> None:
    """A host call of a name that an included tree header defines (through another header) calls
    the project's function, which HIP compiles: not reported; the same call without the header is."""
    src = tmp_path / "src"
    (src / "math").mkdir(parents=True)
    (src / "math" / "approx.h").write_text("inline double rsqrt(double x) { return 1.0 / sqrt(x); }\n")
    (src / "util.h").write_text('#include <cmath>\n#include "math/approx.h"\n')
    (src / "main.cu").write_text('#include "util.h"\nint main() { return rsqrt(4.0) > 0.4 ? 0 : 1; }\n')
    (src / "alone.cu").write_text("#include <cmath>\nint main() { return rsqrt(4.0) > 0.4 ? 0 : 1; }\n")
    convert_tree(src, tmp_path / "out", ConvertOptions(jobs=1))
    report = json.loads((tmp_path / "out" / "hipport-report.json").read_text(encoding="utf-8"))
    assert [(f["path"], f["line"], f["rule_id"]) for f in report["findings"]] == [("alone.cu", 2, "HP2055")]


def test_names_the_program_gives_its_own_meaning_are_not_reported(tmp_path: Path) -> None:
    """No report for a macro, a static member, a lambda, a function-pointer parameter, a
    namespace's function, an #ifdef __CUDA_ARCH__ branch or a device lambda (not_hips.cpp, whose
    last function's normcdf the file's own member of that name also hides), nor for names a tree
    header defines, declares or #defines (a.cpp with m.h: noexcept, trailing return type,
    prototype, macro, default arguments); an include guard is no device branch (guarded.h)."""
    convert_tree(FIXTURES / "trial_classes" / "host_math_headers", tmp_path / "out", ConvertOptions(jobs=1))
    report = json.loads((tmp_path / "out" / "hipport-report.json").read_text(encoding="utf-8"))
    assert [(f["path"], f["line"]) for f in report["findings"] if f["rule_id"] == "HP2055"] == [("guarded.h", 4)]

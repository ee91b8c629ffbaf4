"""Regression tests from breaking hipport on purpose: every case here once crashed, lost data
or rewrote the wrong bytes."""

from __future__ import annotations

import json

import pytest

from hipport.convert import ConvertOptions, convert_tree
from hipport.discover import DiscoveryError
from hipport.resources import data_dir
from hipport.rules import RuleError, load_rules

from helpers import tree_digest


def port(tmp_path, name, text, syntax="chevron"):
    """Convert one file; return (ported text, findings as 'line:col RULE' strings)."""
    src = tmp_path / "src"
    src.mkdir(exist_ok=True)
    data = text.encode() if isinstance(text, str) else text
    (src / name).write_bytes(data)
    out = tmp_path / "out"
    convert_tree(src / name, out, ConvertOptions(launch_syntax=syntax))
    report = json.loads((out / "hipport-report.json").read_text())
    out_name = name[:-3] + ".hip" if name.endswith(".cu") else name
    return (out / out_name).read_bytes(), [f"{f['line']}:{f['column']} {f['rule_id']}" for f in report["findings"]]


# --- nothing lost -------------------------------------------------------------------------

def test_single_file_into_its_own_folder_is_refused(tmp_path):
    (tmp_path / "a.cpp").write_text("void f() { cudaDeviceSynchronize(); }\n")
    (tmp_path / "CMakeLists.txt").write_text("mine\n")
    before = tree_digest(tmp_path)
    with pytest.raises(DiscoveryError, match="holds the source file"):
        convert_tree(tmp_path / "a.cpp", tmp_path)
    assert tree_digest(tmp_path) == before


def test_output_folder_containing_the_source_is_refused(tmp_path):
    (tmp_path / "p" / "p").mkdir(parents=True)
    (tmp_path / "p" / "x.cpp").write_text("int top = 1;\n")
    (tmp_path / "p" / "p" / "x.cpp").write_text("void f() { cudaDeviceSynchronize(); }\n")
    with pytest.raises(DiscoveryError, match="contains the source tree"):
        convert_tree(tmp_path / "p", tmp_path)
    assert (tmp_path / "p" / "x.cpp").read_text() == "int top = 1;\n"


def test_empty_output_name_is_refused(tmp_path):
    from click.testing import CliRunner
    from hipport.cli import main

    (tmp_path / "a.cpp").write_text("int a;\n")
    result = CliRunner().invoke(main, ["convert", str(tmp_path / "a.cpp"), "-o", ""])
    assert result.exit_code == 2
    assert "Error: the output folder (-o) is empty" in result.output


def test_invalid_exclude_pattern_is_an_input_error(tmp_path):
    (tmp_path / "s").mkdir()
    with pytest.raises(DiscoveryError, match=r"--exclude '!': not a gitignore-style pattern"):
        convert_tree(tmp_path / "s", tmp_path / "o", ConvertOptions(exclude=("!",)))


def test_long_file_name_fits_the_temporary_name(tmp_path):
    name = "k" * 240 + ".cu"
    text, _ = port(tmp_path, name, "__global__ void k() {}\n")
    assert text == b"#include <hip/hip_runtime.h>\n__global__ void k() {}\n"
    assert not [p for p in (tmp_path / "out").iterdir() if p.name.endswith(".tmp")]


def test_file_name_that_is_not_utf8(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "caf\udce9.cu").write_bytes(b"int main() { return 0; }\n")  # the bytes caf\xe9.cu
    convert_tree(src, tmp_path / "out")
    assert (tmp_path / "out" / "caf\udce9.hip").exists()
    assert b'add_executable(caf "caf\xe9.hip")' in (tmp_path / "out" / "CMakeLists.txt").read_bytes()
    assert "caf\\udce9.cu" in (tmp_path / "out" / "hipport-report.json").read_text()


def test_utf16_file_is_copied_unchanged(tmp_path):
    data = "\ufeff#include <cuda_runtime.h>\n".encode("utf-16-le")
    text, findings = port(tmp_path, "wide.cu", data)
    assert text == data
    assert findings == ["1:1 HP0003"]


# --- parsing oddities ---------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    "#include <stdio.h> \nint main() { cudaDeviceSynchronize(); }\n",
    '#include "a.h"\t\r\nint x;\r\n',
    "#include <cuda_runtime.h>",
])
def test_include_lines_with_trailing_blanks_or_no_newline(tmp_path, text):
    ported, _ = port(tmp_path, "a.cpp", text)
    assert ported == text.replace("cudaDeviceSynchronize", "hipDeviceSynchronize").replace(
        "cuda_runtime.h", "hip/hip_runtime.h").encode()


def test_includes_in_unparsed_regions_are_not_dropped(tmp_path):
    text = ("#if __has_include(<cuda_runtime.h>)\n#include <cuda_runtime.h>\n#endif\n"
            "#include <cuda.h>\n#include <cuda_runtime.h>\n")
    ported, _ = port(tmp_path, "a.cpp", text)
    assert ported.count(b"#include <hip/hip_runtime.h>") >= 2


# --- headers ------------------------------------------------------------------------------

def test_ifndef_that_is_not_an_include_guard(tmp_path):
    text = "#ifndef BLOCK\n#define BLOCK 256\n#endif\n__global__ void k(float* x) { x[threadIdx.x] = BLOCK; }\n"
    ported, _ = port(tmp_path, "k.cu", text)
    assert ported == b"#include <hip/hip_runtime.h>\n" + text.encode()


def test_conditional_runtime_include_still_gets_an_unconditional_one(tmp_path):
    text = "#ifdef __CUDACC__\n#include <cuda_runtime.h>\n#endif\n__global__ void k(float* x) { x[0] = 1; }\n"
    ported, _ = port(tmp_path, "k.cu", text)
    assert ported == (b"#include <hip/hip_runtime.h>\n#ifdef __HIPCC__\n#include <hip/hip_runtime.h>\n#endif\n"
                      b"__global__ void k(float* x) { x[0] = 1; }\n")


# --- what is code -------------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    "# error cudaMalloc is mentioned\n",
    "#\twarning cudaMalloc is mentioned\n",
    '#define S R"(a " cudaMalloc )"\n',
    '#define S R"x(a )" cudaMalloc )x"\n',
    "int cudaMalloc\u00e9 = 0;\n",
    "int cudaFree$x = 0;\n",
    "int texture = 3; int f() { return texture; }\n",
])
def test_text_that_is_not_a_cuda_name_stays(tmp_path, text):
    ported, findings = port(tmp_path, "a.cpp", text)
    assert ported == text.encode()
    assert [f for f in findings if not f.endswith("HP0001")] == []


def test_digit_separators_in_a_macro_body(tmp_path):
    ported, _ = port(tmp_path, "a.cpp", "#define N 1'000 + cudaMalloc(p) + 2'0\n")
    assert ported == b"#define N 1'000 + hipMalloc(p) + 2'0\n"


def test_many_findings_keep_exact_lines(tmp_path):
    text = "".join(f"void f{i}() {{ cudaThreadSynchronize(); }}\n" for i in range(2000))
    _, findings = port(tmp_path, "a.cpp", text)
    assert findings[0] == "1:13 HP2003" and findings[-1] == "2000:16 HP2003" and len(findings) == 2000


# --- launches with --launch-syntax=hip ----------------------------------------------------

def test_launch_arguments_with_bare_commas_are_parenthesized(tmp_path):
    text = ("namespace ns { template <int A, int B> struct C { static constexpr int value = 1;"
            " static __global__ void kern(int) {} }; }\n"
            "__global__ void kp(int) {}\n"
            "void f() {\n"
            "  kp<<<dim3{2, 2}, 1>>>(3);\n"
            "  ns::C<1, 2>::kern<<<1, 1>>>(6);\n"
            "  kp<<<1, ns::C<1, 2>::value>>>(19);\n"
            "}\n")
    ported, findings = port(tmp_path, "l.cu", text, syntax="hip")
    body = ported.decode().split("void f() {\n")[1]
    assert body == ("  hipLaunchKernelGGL(kp, (dim3{2, 2}), 1, 0, 0, 3);\n"
                    "  hipLaunchKernelGGL(HIP_KERNEL_NAME(ns::C<1, 2>::kern), 1, 1, 0, 0, 6);\n"
                    "  hipLaunchKernelGGL(kp, 1, (ns::C<1, 2>::value), 0, 0, 19);\n"
                    "}\n")
    assert findings == []


def test_launches_that_are_expressions_or_in_macros_are_kept_and_reported(tmp_path):
    text = ("__global__ void kp(int) {}\n"
            "#define LAUNCH(g) kp<<<g, 1>>>(0)\n"
            "void f(bool c) {\n"
            "  c ? kp<<<1, 1>>>(1) : kp<<<2, 1>>>(2);\n"
            "  kp<<<1, 1>>>(3);\n"
            "}\n")
    ported, findings = port(tmp_path, "l.cu", text, syntax="hip")
    assert ported.decode().split("void f(bool c) {\n")[1] == (
        "  c ? kp<<<1, 1>>>(1) : kp<<<2, 1>>>(2);\n"
        "  hipLaunchKernelGGL(kp, 1, 1, 0, 0, 3);\n"
        "}\n")
    assert findings == ["2:21 HP1002", "4:9 HP1002", "4:27 HP1002"]


# --- rule data ----------------------------------------------------------------------------

def _copy_rules(tmp_path):
    rules_dir = tmp_path / "rules"
    rules_dir.mkdir()
    for path in data_dir("rules").glob("*.yaml"):
        (rules_dir / path.name).write_bytes(path.read_bytes())
    return rules_dir


@pytest.mark.parametrize("old, new, message", [
    ('"{count} region(s)', '"{bogus} region(s)', "check HP0001 message: unknown field {bogus}"),
    ('"{count} region(s)', '"{0} region(s)', "check HP0001 message: unknown field {0}"),
    ('"{count} region(s)', '"{count) region(s)', "check HP0001 message: bad template"),
    ('"{count} region(s)', '"{count.__class__} region(s)', "unknown field {count.__class__}"),
    ("name: parse-error\n", "name: parse-errors\n", "checks missing from the catalogue: parse-error"),
])
def test_bad_check_templates_are_caught_at_load(tmp_path, old, new, message):
    rules_dir = _copy_rules(tmp_path)
    checks = rules_dir / "checks.yaml"
    text = checks.read_text()
    assert old in text
    checks.write_text(text.replace(old, new, 1))
    with pytest.raises(RuleError, match=message.replace("{", r"\{").replace("}", r"\}").replace("(", r"\(").replace(")", r"\)")):
        load_rules(sorted(rules_dir.glob("*.yaml")))


def test_duplicate_yaml_key_is_reported_with_line(tmp_path):
    path = tmp_path / "dup.yaml"
    path.write_text("family: x\ntitle: X\nsource: s\nmappings:\n  - {cuda: cudaX, hip: hipA, hip: hipB, kind: function, status: supported}\n")
    with pytest.raises(RuleError, match=r"dup.yaml:5: key 'hip' appears twice"):
        load_rules([path])


def test_launch_arguments_on_the_next_line_leave_no_trailing_blank(tmp_path):
    text = "__global__ void kp(int, int) {}\nvoid f() {\n  kp<<<1, 1>>>(\n      1, 2);\n}\n"
    ported, _ = port(tmp_path, "l.cu", text, syntax="hip")
    assert ported.decode().split("void f() {\n")[1] == "  hipLaunchKernelGGL(kp, 1, 1, 0, 0,\n      1, 2);\n}\n"

"""min/max of two integer types in device code (hipport/min_max.py, HP2054).

CUDA 12.4 compares an int and an unsigned int (or a long and an unsigned long) as the unsigned
type; in HIP device code clang's two-type template returns a double. The fixture asserts CUDA's
result types with static_assert: nvcc compiles the original, clang compiles the port for AMD
(the casts give HIP's calls CUDA's types) and fails without the casts.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers import FIXTURES, findings_lines
from hipport.convert import ConvertOptions, convert_tree
from hipport.min_max import cuda_result, literal_type
from hipport.toolchain import CompileError

SOURCE = FIXTURES / "trial_classes" / "min_max"
ARCHS = ["gfx90a", "gfx1100"]

PORTED = [
    "    int i = threadIdx.x;",
    "    y[i] = x[min((unsigned int)(count - 1), i + blockDim.x)];",
    "    static_assert(std::is_same<decltype(max((unsigned int)(count), limit)), unsigned int>::value, \"unsigned int\");",
    "    static_assert(std::is_same<decltype(min(total, (unsigned long)(offset))), unsigned long>::value, \"unsigned long\");",
    "    static_assert(std::is_same<decltype(min((int)(small), count)), int>::value, \"int\");",
    "    static_assert(std::is_same<decltype(min((unsigned int)(LAST_INDEX), threadIdx.x)), unsigned int>::value, \"macro\");",
    "    y[1] = min((unsigned int)(-1), 5u) == 5u ? 1.0f : 0.0f;",
    "    y[2] = min(count, i) + ::min(count, i);",
    "    y[3] = min(x[0], 1.0f);",
    "}",
]


def _port(out: Path, fix: bool = False) -> Path:
    convert_tree(SOURCE, out, ConvertOptions(jobs=1, fix=fix))
    return out


@pytest.mark.parametrize("fix", [False, True])
def test_mixed_arguments_are_cast_to_cudas_type(tmp_path: Path, fix: bool) -> None:
    out = _port(tmp_path / "out", fix)
    lines = (out / "mixed.hip").read_text(encoding="utf-8").splitlines()
    assert lines[11:21] == PORTED
    assert lines[25] == "    y[min(LAST, blockDim.x)] = 0.0f;"
    report = json.loads((out / "hipport-report.json").read_text(encoding="utf-8"))
    assert [f"{f['path']}:{line}" for f, line in zip(report["findings"], findings_lines(report))] == [
        "mixed.cu:25:7 HP2054 warning min of LAST and an argument of type unsigned int in device code: hipport "
        "cannot read the type of LAST; if it is an integer of another type, CUDA's min converts both to one "
        "integer type (the unsigned one for a signed and an unsigned integer of one size) and HIP's returns a double"]


def test_original_compiles_with_nvcc_and_port_for_amd_but_not_without_the_casts(tmp_path: Path, toolchain) -> None:
    toolchain.compile_cuda(SOURCE / "mixed.cu", tmp_path / "cuda.o", link=False)
    out = _port(tmp_path / "out")
    ported = out / "mixed.hip"
    text = ported.read_text(encoding="utf-8")
    # the port with the template kernel's call (reported, not cast) cast by hand, as HP2054 says
    ported.write_text(text.replace("min(LAST, blockDim.x)", "min((unsigned int)(LAST), blockDim.x)"), encoding="utf-8")
    toolchain.compile_amd(ported, tmp_path / "amd.o", ARCHS)
    toolchain.compile_nvidia(ported, tmp_path / "nvidia.o", link=False)
    ported.write_text(text, encoding="utf-8")  # as ported: the reported call fails on AMD
    with pytest.raises(CompileError) as reported:
        toolchain.compile_amd(ported, tmp_path / "amd.o", ARCHS)
    assert [line.split("mixed.hip:")[1] for line in reported.value.stderr.splitlines()
            if ": error: " in line and "mixed.hip:" in line][:1] == ["26:6: error: array subscript is not an integer"]
    for cast in ("(unsigned int)", "(unsigned long)", "(int)"):
        text = text.replace(cast, "")
    ported.write_text(text.replace("min(LAST, blockDim.x)", "min(0u, blockDim.x)"), encoding="utf-8")
    with pytest.raises(CompileError) as uncast:
        toolchain.compile_amd(ported, tmp_path / "amd.o", ARCHS)
    errors = [line.split("mixed.hip:")[1] for line in uncast.value.stderr.split("generated when compiling")[0].splitlines()
              if ": error: " in line and "mixed.hip:" in line]
    assert errors == [
        "13:13: error: array subscript is not an integer",
        "14:19: error: static assertion failed due to requirement 'std::is_same<double, unsigned int>::value': unsigned int",
        "15:19: error: static assertion failed due to requirement 'std::is_same<double, unsigned long>::value': unsigned long",
        "16:19: error: static assertion failed due to requirement 'std::is_same<double, int>::value': int",
        "17:19: error: static assertion failed due to requirement 'std::is_same<double, unsigned int>::value': macro",
    ]


@pytest.mark.parametrize("text, expected", [
    ("0", (True, 1)), ("-1", (True, 1)), ("5u", (False, 1)), ("2147483648", (True, 2)), ("0xffffffff", (False, 1)),
    ("0x7fffffff", (True, 1)), ("10l", (True, 2)), ("10ul", (False, 2)), ("10LL", (True, 3)), ("10ull", (False, 3)),
    ("1'000", (True, 1)), ("017", (True, 1)), ("0b101", (True, 1)), ("1.5", "floating"), ("1e3", "floating"),
    ("2.f", "floating"), ("0x1p3", "floating"), ("4294967296u", (False, 2)),
])
def test_literal_types(text: str, expected) -> None:
    assert literal_type(text) == expected


def test_cuda_result_types() -> None:
    assert cuda_result((True, 1), (False, 1)) == (False, 1)
    assert cuda_result((False, 2), (True, 2)) == (False, 2)
    assert cuda_result((True, 3), (False, 3)) == (False, 3)
    assert cuda_result((True, 1), (True, 1)) == (True, 1)
    assert cuda_result((True, 1), (True, 2)) is None  # nvcc 12.4: more than one instance matches
    assert cuda_result((False, 1), (True, 2)) is None


def test_long_arguments_and_macros_of_two_types(tmp_path: Path) -> None:
    """A 3,000-term argument is not typed (its nesting would exceed Python's recursion limit: the
    conversion must not stop); a macro that ``#if`` branches define with values of two types has
    no known type, so its call with ``blockDim.x`` is reported, not cast."""
    src = tmp_path / "src"
    src.mkdir()
    terms = " + ".join(["i"] * 3000)
    (src / "deep.cu").write_text(
        f"__global__ void sum(int* y, int i) {{ y[0] = min({terms}, blockDim.x); }}\n"
        "#define N 1\n#if WIDE\n#define N 1u\n#endif\n"
        "__global__ void pick(int* y) { y[0] = min(N, blockDim.x); }\n")
    out = _port_tree(src, tmp_path / "out")
    lines = (out / "deep.hip").read_text(encoding="utf-8").splitlines()
    assert lines[-1] == "__global__ void pick(int* y) { y[0] = min(N, blockDim.x); }"
    assert f"min({terms}, blockDim.x)" in lines[1]
    report = json.loads((out / "hipport-report.json").read_text(encoding="utf-8"))
    assert [(f["line"], f["rule_id"]) for f in report["findings"]] == [(6, "HP2054")]


def _port_tree(src: Path, out: Path) -> Path:
    convert_tree(src, out, ConvertOptions(jobs=1))
    return out


NOT_CUDAS = """struct Pair { __device__ long min(long a, long b) const { return a < b ? a : b; }
              __device__ long go(int x, unsigned y) const { return min(x, y); } };
"""
LAMBDA = """__global__ void k(long *out, int x, unsigned y) {
  auto max = [] __device__ (long a, long b) { return a > b ? a : b; };
  out[0] = max(x, y);
}
"""
TYPES = """/*
#define n 0u
*/
#define WIDTH 10{CR}
__global__ void k(long *o, int x, int n, unsigned u, const unsigned long *p, const unsigned long *q, long l,
                  const int *v) {
  o[0] = min(x, n);
  o[1] = min(p - q, l);
  o[2] = min(x < 3, x);
  o[3] = min('a', x);
  o[4] = min(*v, u);
  o[5] = min(WIDTH, u);
}
"""


def test_calls_that_are_not_cudas_min_and_the_types_read(tmp_path: Path) -> None:
    """A file whose own min/max is a member or a lambda keeps its calls (the cast would change
    the callee's argument); pointers are not their pointee type (p - q is a ptrdiff_t), a
    #define in a comment is none, bool and char differ from int (HIP's two-type template takes
    them), *v of an int *v is an int, and a macro line ending in CR LF is read."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "pair.cu").write_text(NOT_CUDAS)
    (src / "lambda.cu").write_text(LAMBDA)
    (src / "types.cu").write_bytes(TYPES.replace("{CR}", "\r").encode())
    out = _port_tree(src, tmp_path / "out")
    assert (out / "pair.hip").read_text().splitlines()[-1].endswith("{ return min(x, y); } };")
    assert (out / "lambda.hip").read_text().splitlines()[-2] == "  out[0] = max(x, y);"
    assert [line.rstrip("\r") for line in (out / "types.hip").read_text().splitlines()[-7:-1]] == [
        "  o[0] = min(x, n);",
        "  o[1] = min(p - q, l);",
        "  o[2] = min((int)(x < 3), x);",
        "  o[3] = min((int)('a'), x);",
        "  o[4] = min((unsigned int)(*v), u);",
        "  o[5] = min((unsigned int)(WIDTH), u);",
    ]

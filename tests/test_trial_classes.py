"""Classes of compile failures with no finding, found by scripts/no_silent_failure.py on public CUDA
trees (issue 10; the classes are listed by the trials helper outside the repository): each is
fixed here by a rewrite where the rewrite is exact, else reported on the line that stops the
compile. Fixtures in tests/fixtures/trial_classes/ are written for these tests.

1. ``launch_spacing``: kernel launches written ``k << < g, b >> > (args)`` (nvcc accepts the blanks,
   clang rejects them): the chevrons become ``<<<``/``>>>`` in both launch-syntax modes, shifts,
   comparisons and template argument lists stay byte for byte (hipport/launch_spacing.py); also in a
   ``#define`` body.
2. ``macro_asm``: inline PTX in a ``#define`` body, ported silently before, is reported (HP1001/
   HP1003) at the asm keyword's line inside the macro with the PTX inventory of an asm block in
   code (hipport/macro_asm.py); clang's errors at the macro's uses carry it through their
   "expanded from macro" notes.
3. ``vector_macro``: host code that ``#define``s a HIP vector-type name (``uint4``, ``int2``) and
   then includes a ``.cu`` file the port gives ``#include <hip/hip_runtime.h>``: HP1215 on that
   include line, on the include chain of every error inside HIP's headers (hipport/vector_macros.py).
4. ``gl_interop``: ``cuda_gl_interop.h`` included before the runtime header: HIP's
   ``hip/hip_gl_interop.h`` is not self-contained (``hipError_t`` undeclared), so the port writes
   ``#include <hip/hip_runtime.h>`` on the line before it (hipport/interop_include.py).
5. ``first_line_operator``: a ``.cu`` whose first line defines an operator HIP's vector types
   already have (HP2005 guards it with ``#if !defined(__HIP_PLATFORM_AMD__)``): the implicit
   runtime include went after that guard, which then tested a macro not yet defined and kept the
   ambiguous operator on AMD; it now goes first.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from helpers import FIXTURES, REPO
from hipport.analyze import AsmBlock, analyze_file
from hipport.convert import ConvertOptions, check_tree, convert_tree
from hipport.edits import apply_edits
from hipport.parse import new_parser
from hipport.project_macros import TreeSources
from hipport.rules import default_rules
from hipport.toolchain import CompileError

_spec = importlib.util.spec_from_file_location("no_silent_failure", REPO / "scripts" / "no_silent_failure.py")
nsf = sys.modules.get("no_silent_failure")
if nsf is None:
    nsf = importlib.util.module_from_spec(_spec)
    sys.modules["no_silent_failure"] = nsf
    _spec.loader.exec_module(nsf)

CLASSES = FIXTURES / "trial_classes"
ARCHS = ["gfx90a", "gfx1100"]
CODE_OBJECTS = ["hipv4-amdgcn-amd-amdhsa--gfx1100", "hipv4-amdgcn-amd-amdhsa--gfx90a"]


def _port(src: Path, out: Path, **options) -> Path:
    convert_tree(src, out, ConvertOptions(jobs=1, **options))
    return out


def _port_text(source: bytes, *, launch_syntax: str = "chevron", path: str = "x.cu") -> bytes:
    rules = default_rules()
    tree = new_parser().parse(source)
    result = analyze_file(path, source, tree, rules, is_cuda_unit=False, launch_syntax=launch_syntax)
    return apply_edits(source, result.edits)


def _compile_errors(toolchain, src: Path, out: Path, unit: str, tmp_path: Path, flags=()) -> str | None:
    """Compile OUT's ``unit`` for gfx90a and gfx1100; None when it compiles (both code objects
    checked), else clang's standard error."""
    obj = tmp_path / (Path(unit).stem + ".o")
    try:
        toolchain.compile_amd(out / unit, obj, ARCHS, ["-I", str(out), *flags])
    except CompileError as exc:
        return exc.stderr
    assert toolchain.code_object_targets(obj) == CODE_OBJECTS
    return None


# --------------------------------------------------------------------------- 1. launch spacing
LAUNCH = CLASSES / "launch_spacing"


def test_spaced_launches_become_chevrons(tmp_path: Path) -> None:
    out = _port(LAUNCH, tmp_path / "out")
    source = (LAUNCH / "spaced.cu").read_bytes().split(b"\n")
    ported = (out / "spaced.hip").read_bytes().split(b"\n")
    assert ported[0] == source[0] and ported[2] == b"#include <hip/hip_runtime.h>"
    assert ported[18:25] == [
        b"  fill <<< 1, 64 >>> (out, 2.0f);",
        b"  fill<<<dim3(1, 1), dim3(64, 1), 0, 0>>>(out, 3.0f);",
        b"  scale<2> <<<\t1, 64 >>>",
        b"       (data);",
        b"  hipError_t status = (fill <<< 1, 32 >>> (out, 1.0f), hipGetLastError());",
        b"  unsigned bits = 1u << 4;",
        b"  bool smaller = bits >> 2 > 1u;",
    ]
    assert ported[25] == b"  std::vector<Box<Box<int>> > nested(2);"
    assert ported[11] == source[10] == b"__global__ void scale(unsigned *data) { data[threadIdx.x] = (data[threadIdx.x] << Shift) >> 1; }"
    assert len(ported) == len(source) + 1  # one line added (the runtime include), none lost


def test_spaced_launches_with_hip_launch_syntax(tmp_path: Path) -> None:
    out = _port(LAUNCH, tmp_path / "out", launch_syntax="hip")
    ported = (out / "spaced.hip").read_bytes().split(b"\n")
    assert ported[18:24] == [
        b"  hipLaunchKernelGGL(fill, 1, 64, 0, 0, out, 2.0f);",
        b"  hipLaunchKernelGGL(fill, dim3(1, 1), dim3(64, 1), 0, 0, out, 3.0f);",
        b"  hipLaunchKernelGGL(HIP_KERNEL_NAME(scale<2>), 1, 64, 0, 0, data);",
        # kept as chevrons (HP1002: the launch is an operand of a comma expression): normalised
        b"  hipError_t status = (fill <<< 1, 32 >>> (out, 1.0f), hipGetLastError());",
        b"  unsigned bits = 1u << 4;",
        b"  bool smaller = bits >> 2 > 1u;",
    ]


@pytest.mark.parametrize("launch_syntax", ["chevron", "hip"])
def test_what_is_no_launch_stays_as_written(launch_syntax: str) -> None:
    source = (b"#include <ostream>\n"
              b"template <typename T> struct P;\n"
              b"template <typename T> std::ostream &operator<<(std::ostream &, const P<T> &);\n"
              b"template <typename T> struct P { T a; friend std::ostream &operator<< <>(std::ostream &, const P<T> &); };\n"
              b"template <typename T> struct Q { P<P<T>> > *q; };\n"
              b"int shift(int a, int b) { return (a << b) < (a >> b) > 0; }\n"
              b"#define SHL(a, b) ((a) << (b))\n")
    assert _port_text(source, launch_syntax=launch_syntax) == source


def test_spaced_launch_in_a_macro_body(tmp_path: Path) -> None:
    for launch_syntax in ("chevron", "hip"):
        out = _port(LAUNCH, tmp_path / launch_syntax, launch_syntax=launch_syntax)
        ported = (out / "macro.hip").read_bytes().split(b"\n")
        assert ported[2:4] == [
            b"#define LAUNCH_CLEAR(buffer, n) clear <<< ((n) + 63) / 64, 64 >>> (buffer, (n))",
            b"#define TIMES_FOUR(x) ((x) << 2)",
        ], launch_syntax


def test_spaced_launch_ports_compile_for_amd(tmp_path: Path, toolchain) -> None:
    for launch_syntax in ("chevron", "hip"):
        out = _port(LAUNCH, tmp_path / launch_syntax, launch_syntax=launch_syntax)
        for unit in ("spaced.hip", "macro.hip"):
            assert _compile_errors(toolchain, LAUNCH, out, unit, tmp_path) is None, (launch_syntax, unit)


def test_spaced_launch_fails_in_clang_without_the_rewrite(tmp_path: Path, toolchain) -> None:
    """The error the rewrite removes: the chevron port with the blanks put back fails for
    gfx90a exactly as Rodinia's particlefilter did ("expected expression")."""
    out = _port(LAUNCH, tmp_path / "out")
    ported = (out / "spaced.hip").read_bytes()
    spaced = ported.replace(b"fill <<< 1, 64 >>> (out, 2.0f)", b"fill << < 1, 64 >> > (out, 2.0f)")
    assert spaced != ported
    (out / "spaced.hip").write_bytes(spaced)
    errors = _compile_errors(toolchain, LAUNCH, out, "spaced.hip", tmp_path)
    assert errors is not None
    assert [(d.line, d.message) for d in nsf.parse_diagnostics(errors)][:1] == [(19, "expected expression")]


# --------------------------------------------------------------------------- 2. asm in a macro body
MACRO_ASM = CLASSES / "macro_asm"


def test_asm_in_macro_bodies_is_reported_at_its_line() -> None:
    report = check_tree(MACRO_ASM, ConvertOptions(jobs=1))
    found = [(f.path, f.line, f.column, f.rule_id, f.message, f.fix) for f in report.findings]
    assert found == [
        ("clock.cu", 5, 18, "HP1001",
         "inline PTX assembly (asm volatile in macro STAMP) cannot run on AMD GPUs: mov.u32",
         "Write instead: %clock -> clock() (or keep the asm behind #ifdef __HIP_PLATFORM_NVIDIA__)"),
        ("clock.cu", 9, 5, "HP1001",
         "inline PTX assembly (__asm__ in macro LANE_OF) cannot run on AMD GPUs: mov.u32",
         "Write instead: %laneid -> __lane_id() (or keep the asm behind #ifdef __HIP_PLATFORM_NVIDIA__)"),
    ]


def test_asm_in_macro_bodies_is_in_the_asm_inventory() -> None:
    source = (MACRO_ASM / "clock.cu").read_bytes()
    result = analyze_file("clock.cu", source, new_parser().parse(source), default_rules(), is_cuda_unit=True)
    assert result.inline_asm == [
        AsmBlock(5, 18, "asm volatile in macro STAMP", [("mov.u32", "%0, %%clock")], ["=r"]),
        AsmBlock(9, 5, "__asm__ in macro LANE_OF", [("mov.u32", "%0, %%laneid")], ["=r"]),
    ]


def test_manual_ptx_in_a_macro_is_hp1003() -> None:
    source = (b"#define FENCE() \\\n"
              b"  asm volatile(\"wgmma.fence.sync.aligned;\" ::: \"memory\")\n"
              b"// #define NOT_CODE asm(\"trap;\")\n"
              b"#error asm is not reported in an #error line\n")
    result = analyze_file("f.cu", source, new_parser().parse(source), default_rules(), is_cuda_unit=False)
    assert [(f.line, f.column, f.rule_id, f.message) for f in result.findings] == [
        (2, 3, "HP1003", "inline PTX assembly (asm volatile in macro FENCE) needs a human: wgmma.fence.sync.aligned"),
    ]


def test_asm_macro_compile_error_carries_the_finding(tmp_path: Path, toolchain) -> None:
    """clang's errors for the port ("invalid instruction" at each use, noted "expanded from
    macro" at the #define) are each explained by the finding on a line of their chain, for
    gfx90a and gfx1100."""
    out = _port(MACRO_ASM, tmp_path / "out")
    errors = _compile_errors(toolchain, MACRO_ASM, out, "clock.hip", tmp_path)
    assert errors is not None
    status, results, first = nsf.classify(errors, nsf.Report(MACRO_ASM, out), "clock.hip")
    assert status == "explained" and first is None
    assert sorted({(e.line, e.message, tuple(e.explained_by)) for e in results}) == [
        (17, "invalid instruction", ("HP1001 clock.cu:5",)),
        (18, "invalid instruction", ("HP1001 clock.cu:9",)),
    ]


# --------------------------------------------------------------------------- 3. vector-type macros
VECTOR_MACRO = CLASSES / "vector_macro"


def test_vector_type_macros_before_the_hip_runtime_are_reported() -> None:
    report = check_tree(VECTOR_MACRO, ConvertOptions(jobs=1))
    found = [(f.path, f.line, f.column, f.rule_id, f.message, f.fix) for f in report.findings]
    assert found == [
        ("lookup.cpp", 8, 10, "HP1215",
         "#include \"table.cu\" brings HIP's headers (the ported file includes <hip/hip_runtime.h>) after macros "
         "named like HIP vector types: uint4 (line 2), int2 (line 3); HIP's declarations of those types no longer compile",
         "Rename the macros (and their uses), #undef them before this include, or include <hip/hip_runtime.h> "
         "before they are defined"),
    ]  # float4 is #undef-ed before the include; later.cpp defines short2 after HIP's headers


@pytest.mark.parametrize("source, expected", [
    (b"#define float2 pair\n#include <cuda_runtime.h>\n", [(2, "HP1215")]),
    (b"#define float2 pair\n#include <hip/hip_runtime.h>\n", [(2, "HP1215")]),
    (b"#define float2 pair\n#include <stdio.h>\n", []),
    (b"// #define float2 pair\n#include <cuda_runtime.h>\n", []),
    (b"#define float2x pair\n#include <cuda_runtime.h>\n", []),
])
def test_vector_type_macro_cases(source: bytes, expected) -> None:
    result = analyze_file("h.cpp", source, new_parser().parse(source), default_rules(), is_cuda_unit=False)
    assert [(f.line, f.rule_id) for f in result.findings] == expected


def test_vector_type_macro_compile_errors_carry_the_finding(tmp_path: Path, toolchain) -> None:
    """The port of lookup.cpp, compiled as HIP for gfx90a and gfx1100, fails inside HIP's headers
    (typedef redefinitions of uint4 and int2, and the errors that follow); every one of them has
    the HP1215 finding on its include chain, also those clang prints without an include stack
    (the stack of the error before them, which no_silent_failure.py carries over)."""
    out = _port(VECTOR_MACRO, tmp_path / "out")
    errors = _compile_errors(toolchain, VECTOR_MACRO, out, "lookup.cpp", tmp_path)
    assert errors is not None
    report = nsf.Report(VECTOR_MACRO, out)
    diagnostics = nsf.parse_diagnostics(errors)
    assert "typedef redefinition with different types ('HIP_vector_type<unsigned int, 4>' vs '__uint32_t' " \
           "(aka 'unsigned int'))" in [d.message for d in diagnostics]
    assert {tuple(f"{f['rule_id']} {f['path']}:{f['line']}" for f in nsf.explain(d, report))
            for d in diagnostics} == {("HP1215 lookup.cpp:8",)}
    # later.cpp (its macro after HIP's headers) compiles
    assert _compile_errors(toolchain, VECTOR_MACRO, out, "later.cpp", tmp_path) is None


VECTOR_MACRO_HEADERS = CLASSES / "vector_macro_headers"


def test_vector_type_macros_through_the_trees_headers_are_reported() -> None:
    """host.cpp defines the macros and includes grid.h, which includes cells.cu (Rodinia's
    mummergpu: mummergpu_main.cpp, mummergpu.h, common.cu); probe.cpp gets its macro from
    words.h and then includes the CUDA runtime; packed.h defines one and includes cells.cu
    itself, so reader.cpp, which only includes packed.h, adds nothing to packed.h's finding."""
    report = check_tree(VECTOR_MACRO_HEADERS, ConvertOptions(jobs=1))
    assert [(f.path, f.line, f.column, f.rule_id, f.message) for f in report.findings] == [
        ("host.cpp", 6, 10, "HP1215",
         "#include \"grid.h\" brings HIP's headers (grid.h line 3 includes \"cells.cu\": the ported file includes "
         "<hip/hip_runtime.h>) after macros named like HIP vector types: int2 (line 4), uint4 (line 5); HIP's "
         "declarations of those types no longer compile"),
        ("packed.h", 4, 10, "HP1215",
         "#include \"cells.cu\" brings HIP's headers (the ported file includes <hip/hip_runtime.h>) after macros "
         "named like HIP vector types: uint4 (line 3); HIP's declarations of those types no longer compile"),
        ("probe.cpp", 3, 10, "HP1215",
         "#include <cuda_runtime.h> brings HIP's headers (ported to <hip/hip_runtime.h>) after macros named like "
         "HIP vector types: uint2 (words.h line 3); HIP's declarations of those types no longer compile"),
    ]


@pytest.mark.parametrize("unit, explained_by", [
    ("host.cpp", "HP1215 host.cpp:6"),
    ("probe.cpp", "HP1215 probe.cpp:3"),
    ("reader.cpp", "HP1215 packed.h:4"),
])
def test_vector_type_macros_through_headers_explain_every_compile_error(tmp_path: Path, toolchain, unit,
                                                                        explained_by) -> None:
    """Each unit's port fails for gfx90a and gfx1100 inside HIP's headers, and every error has
    the unit's finding (reader.cpp: packed.h's) on its include chain."""
    out = _port(VECTOR_MACRO_HEADERS, tmp_path / "out")
    errors = _compile_errors(toolchain, VECTOR_MACRO_HEADERS, out, unit, tmp_path)
    assert errors is not None
    report = nsf.Report(VECTOR_MACRO_HEADERS, out)
    diagnostics = nsf.parse_diagnostics(errors)
    assert any(d.message.startswith("typedef redefinition with different types") for d in diagnostics)
    assert {tuple(f"{f['rule_id']} {f['path']}:{f['line']}" for f in nsf.explain(d, report))
            for d in diagnostics} == {(explained_by,)}


def _vector_findings(files: dict[str, bytes], unit: str) -> list[tuple[int, str]]:
    """HP1215 findings (line, message) of ``unit`` analysed with the tree ``files`` (in memory)."""
    source = files[unit]
    result = analyze_file(unit, source, new_parser().parse(source), default_rules(), is_cuda_unit=False,
                          sources=TreeSources(files))
    return [(f.line, f.message) for f in result.findings if f.rule_id == "HP1215"]


def test_vector_type_macro_through_two_headers_names_the_path() -> None:
    files = {"app/main.cpp": b"#define float2 pair2\n#include \"outer.h\"\n",
             "app/outer.h": b"#include <stdio.h>\n#include \"../lib/inner.h\"\n",
             "lib/inner.h": b"// the runtime, for the host's launches\n#include <cuda_runtime.h>\n"}
    assert _vector_findings(files, "app/main.cpp") == [
        (2, "#include \"outer.h\" brings HIP's headers (lib/inner.h line 2 (included through app/outer.h) includes "
            "<cuda_runtime.h>: ported to <hip/hip_runtime.h>) after macros named like HIP vector types: float2 "
            "(line 1); HIP's declarations of those types no longer compile")]


@pytest.mark.parametrize("files", [
    # the header #undef-s the macro before HIP's headers
    {"u.cpp": b"#define uint4 unsigned\n#include \"h.h\"\n", "h.h": b"#undef uint4\n#include \"k.cu\"\n",
     "k.cu": b""},
    # HIP's headers come first, through a header; the macro and the .cu come after
    {"u.cpp": b"#include \"rt.h\"\n#define uint4 unsigned\n#include \"k.cu\"\n",
     "rt.h": b"#include <cuda_runtime.h>\n", "k.cu": b""},
    # the header defines the macro after its runtime include
    {"u.cpp": b"#include \"h.h\"\n", "h.h": b"#include <cuda_runtime.h>\n#define uint4 unsigned\n"},
    # the include that would follow the header is in a comment
    {"u.cpp": b"#define uint4 unsigned\n// #include \"h.h\"\n", "h.h": b"#include <cuda_runtime.h>\n"},
])
def test_vector_type_macro_through_headers_not_reported(files) -> None:
    assert _vector_findings(files, "u.cpp") == []


# --------------------------------------------------------------------------- 4. GL interop header first
GL_INTEROP = CLASSES / "gl_interop"


def test_runtime_include_goes_before_the_gl_interop_header(tmp_path: Path) -> None:
    out = _port(GL_INTEROP, tmp_path / "out")
    ported = (out / "viewer.cpp").read_bytes().split(b"\n")
    assert ported[:6] == [
        b"// Registers an OpenGL buffer with the runtime; the interop header comes before the runtime one.",
        b"#include <GL/gl.h>",
        b"#include <hip/hip_runtime.h>",
        b"#include <hip/hip_gl_interop.h>",
        b"#include <hip/hip_runtime.h>",
        b"#include <cstdio>",
    ]
    assert check_tree(GL_INTEROP, ConvertOptions(jobs=1)).findings == []


@pytest.mark.parametrize("source", [
    b"#include <cuda_runtime.h>\n#include <cuda_gl_interop.h>\n",
    b"#include <hip/hip_runtime_api.h>\n#include <cuda_gl_interop.h>\n",
    b"// #include <cuda_gl_interop.h>\n#include <cstdio>\n",
])
def test_no_runtime_include_where_one_comes_first(source: bytes) -> None:
    assert _port_text(source, path="v.cpp").count(b"hip/hip_runtime.h") == source.count(b"cuda_runtime.h")


def test_gl_interop_port_compiles_for_amd(tmp_path: Path, toolchain) -> None:
    out = _port(GL_INTEROP, tmp_path / "out")
    assert _compile_errors(toolchain, GL_INTEROP, out, "viewer.cpp", tmp_path) is None
    # without the added line, HIP 6.4's interop header fails as cuda-samples' imageDenoisingGL did
    ported = (out / "viewer.cpp").read_bytes()
    (out / "viewer.cpp").write_bytes(ported.replace(b"#include <hip/hip_runtime.h>\n#include <hip/hip_gl", b"#include <hip/hip_gl", 1))
    errors = _compile_errors(toolchain, GL_INTEROP, out, "viewer.cpp", tmp_path)
    assert errors is not None and "unknown type name 'hipError_t'" in [d.message for d in nsf.parse_diagnostics(errors)]


# --------------------------------------------------------------------------- 5. guard on the first line
FIRST_LINE = CLASSES / "first_line_operator"


def test_runtime_include_precedes_a_guard_on_the_first_line(tmp_path: Path, toolchain) -> None:
    out = _port(FIRST_LINE, tmp_path / "out")
    assert (out / "ratio.hip").read_bytes().split(b"\n")[:4] == [
        b"#include <hip/hip_runtime.h>",
        b"#if !defined(__HIP_PLATFORM_AMD__)  // hipport: HIP's vector types define this operator on AMD",
        b"inline __host__ __device__ float2 operator/(float2 a, float2 b) { return make_float2(a.x / b.x, a.y / b.y); }",
        b"#endif",
    ]
    assert [(f.line, f.rule_id) for f in check_tree(FIRST_LINE, ConvertOptions(jobs=1)).findings] == [(1, "HP2005")]
    assert _compile_errors(toolchain, FIRST_LINE, out, "ratio.hip", tmp_path) is None


def test_spaced_launches_in_one_directive_pair_with_their_own_closers() -> None:
    """Two launches in one directive's text (a #pragma read to the end of a file whose lines end
    in CR only, or a macro with two launches): an opener is paired only with a closer before the
    next opener. Pairing the first opener with the second launch's closer rewrote that closer
    twice, and the conversion stopped with OverlappingEdits (found by a fuzzing helper)."""
    cr_only = b"#pragma unroll\rk<<\r<1, 2>> \rk<< <1, 2>> >(x);"
    assert _port_text(cr_only) == b"#pragma unroll\rk<<\r<1, 2>> \rk<<<1, 2>>>(x);"
    macro = b"#define TWO(x) a<< <1, 2>>>(x); b<< <1, 2>> >(x)\n"
    assert _port_text(macro) == b"#define TWO(x) a<< <1, 2>>>(x); b<<<1, 2>>>(x)\n"

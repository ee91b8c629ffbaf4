"""HP1216: CUDA integer handles (CUdeviceptr, texture and surface objects) whose HIP twins are
pointers, used as integers (hipport/handle_types.py; issue 10 classes from cuda-samples
vectorAddMMAP, bindlessTexture and matrixMulDrv). The fixture is
tests/fixtures/handle_types/handles.cpp, written for these tests."""

from __future__ import annotations

import json
import re

import pytest
from pathlib import Path

from helpers import CORPUS, FIXTURES, REPO
from hipport.analyze import analyze_file
from hipport.convert import ConvertOptions, convert_tree
from hipport.handle_types import integer_handles
from hipport.parse import new_parser, nodes_of_kinds
from hipport.rules import default_rules
from hipport.toolchain import CompileError

FIXTURE = FIXTURES / "handle_types"
DEVICEPTR = ("CUdeviceptr used as an integer ({}): CUDA defines it as unsigned long long (cuda.h:258, 64-bit "
             "builds), HIP's hipDeviceptr_t is void * (hip/driver_types.h:47); this does not compile for HIP")
TEXTURE = ("cudaTextureObject_t used as an integer ({}): CUDA defines it as unsigned long long (texture_types.h:174), "
           "HIP's hipTextureObject_t is struct __hip_texture * (hip/texture_types.h:71); this does not compile for HIP")
SURFACE = ("{name} used as an integer ({op}): CUDA defines it as unsigned long long ({where}), HIP's "
           "hipSurfaceObject_t is struct __hip_surface * (hip/surface_types.h:41); this does not compile for HIP")
EXPECTED = [
    (12, 28, DEVICEPTR.format("operator +")),
    (19, 3, DEVICEPTR.format("an integer assigned to it")),
    (24, 36, TEXTURE.format("operator &")),
    (24, 70, TEXTURE.format("operator >>")),
    (28, 10, TEXTURE.format("operator |")),
    (28, 43, TEXTURE.format("operator <<")),
    (32, 3, DEVICEPTR.format("operator +=")),
    (34, 3, DEVICEPTR.format("operator ++")),
    (35, 18, SURFACE.format(name="CUsurfObject", op="cast to unsigned", where="cuda.h:280-281")),
    (37, 17, DEVICEPTR.format("static_cast to size_t")),
    (39, 31, SURFACE.format(name="cudaSurfaceObject_t", op="static_cast<cudaSurfaceObject_t> of a value that is not one",
                            where="surface_types.h:105")),
    (40, 15, DEVICEPTR.format("initialised with an integer")),
    (45, 92, TEXTURE.format("operator &")),
]


def _findings(path: Path, source: bytes | None = None):
    source = path.read_bytes() if source is None else source
    result = analyze_file(path.name, source, new_parser().parse(source), default_rules(), is_cuda_unit=False)
    return [(f.line, f.column, f.message) for f in result.findings if f.rule_id == "HP1216"]


def test_each_integer_use_reported_at_its_operation():
    assert _findings(FIXTURE / "handles.cpp") == EXPECTED


def test_fix_text_per_handle_kind():
    source = (FIXTURE / "handles.cpp").read_bytes()
    result = analyze_file("handles.cpp", source, new_parser().parse(source), default_rules(), is_cuda_unit=False)
    fixes = {f.line: f.fix for f in result.findings if f.rule_id == "HP1216"}
    assert fixes[12] == ("Compute on an integer or a char pointer and convert back: (hipDeviceptr_t)((char *)p + n), "
                         "reinterpret_cast<uintptr_t>(p) for bits, and keep integers out of hipDeviceptr_t")
    assert fixes[24] == ("Keep the hipTextureObject_t as its own type; where its bits are needed use "
                         "reinterpret_cast<uintptr_t>(obj) and reinterpret_cast<hipTextureObject_t>(bits)")


def test_name_declared_with_another_type_is_left_alone():
    source = b"void a(CUdeviceptr p) { }\nvoid b(size_t p) { size_t q = p + 1; }\n"
    assert _findings(Path("x.cpp"), source) == []


def test_handle_facts_are_the_headers():
    """Each representation in the rules is the typedef the named header line holds."""
    handles = integer_handles(default_rules())
    assert sorted(handles) == ["CUdeviceptr", "CUdeviceptr_v2", "CUsurfObject", "CUtexObject", "CUtexObject_v1",
                               "cudaSurfaceObject_t", "cudaTextureObject_t"]
    cuda_include = REPO / ".toolchain" / "cuda" / "include"
    hip_include = REPO / ".toolchain" / "pkgs" / "sid" / "libamdhip64-dev" / "usr" / "include"
    for name, mapping in handles.items():
        for (definition, root, declared) in ((mapping.representation[0], cuda_include, None),
                                             (mapping.representation[1], hip_include, mapping.hip)):
            ctype, header, lines = re.fullmatch(r"(.+?) \(([\w/.]+):(\d+(?:-\d+)?)", definition.split(",")[0]
                                                 .rstrip(")")).groups()
            first = int(lines.split("-")[0])
            text = (root / header).read_text().splitlines()[first - 1]
            words = " ".join(text.replace("__device_builtin__", "").replace("*", " * ").split())
            assert words.startswith(f"typedef {ctype} "), (name, text)


def test_reported_lines_are_the_lines_clang_rejects(toolchain, tmp_path):
    """The ported fixture compiled for gfx90a: clang's errors are on the reported lines, and the
    lines not reported (a zero stored, a wide C-style cast, a comparison) compile."""
    out = tmp_path / "out"
    convert_tree(FIXTURE, out, ConvertOptions(jobs=1))
    ported = (out / "handles.cpp").read_text()
    shift = ported.count("\n") - (FIXTURE / "handles.cpp").read_text().count("\n")
    try:
        toolchain.compile_amd(out / "handles.cpp", tmp_path / "h.o", ["gfx90a"], ["-fsyntax-only"])
        stderr = ""
    except CompileError as exc:
        stderr = exc.stderr
    errors = {int(m.group(1)) - shift for m in re.finditer(r"handles\.cpp:(\d+):\d+: error:", stderr)}
    assert errors == {line for line, _, _ in EXPECTED}


FIX_FIXTURE = FIXTURES / "handle_types_fix"
FIXED_MESSAGE = ("CUdeviceptr used as an integer ({}) rewritten (--fix) as {}: HIP's hipDeviceptr_t is void * "
                 "(hip/driver_types.h:47), and the rewrite gives it the 64-bit value CUDA's unsigned long long "
                 "(cuda.h:258, 64-bit builds) held")
FIXED_LINES = {
    11: "  *(reinterpret_cast<hipDeviceptr_t *>(parameters)) = (hipDeviceptr_t)(uintptr_t)(rows);",
    12: "  *(reinterpret_cast<hipDeviceptr_t *>(parameters + 8)) = (hipDeviceptr_t)(uintptr_t)(columns * 4u);",
    16: "  hipDeviceptr_t next = (hipDeviceptr_t)((char *)pool->start + pool->used);",
    18: "  *host_view = (float *)((hipDeviceptr_t)((char *)next + bytes));",
    20: "  tail = (hipDeviceptr_t)(sizeof(float) + (char *)next);",
    21: "  hipDeviceptr_t first = (hipDeviceptr_t)(uintptr_t)(4096);",
    23: "  return hipMemsetD8((hipDeviceptr_t)((char *)pool->start - 16), 0, bytes);",
    27: "  return (p + 255) & ~255ull;",
}


def _port_pool(tmp_path: Path, fix: bool):
    out = tmp_path / ("fixed" if fix else "plain")
    report = convert_tree(FIX_FIXTURE, out, ConvertOptions(fix=fix, jobs=1)).report
    findings = [(f.line, f.column, f.rule_id, f.severity, f.message) for f in report.findings]
    return out / "pool.cpp", findings


def test_fix_rewrites_the_uses_that_keep_cudas_value(tmp_path):
    """--fix: integers stored into a CUdeviceptr and byte offsets whose result is a handle (a
    handle variable, a pointer cast, cuMemsetD8's CUdeviceptr parameter) are rewritten; (p + 255)
    & mask, whose result is an integer, keeps its error."""
    ported, findings = _port_pool(tmp_path, fix=True)
    lines = ported.read_text().splitlines()
    assert {number: lines[number - 1] for number in FIXED_LINES} == FIXED_LINES
    assert findings == [
        (11, 3, "HP1222", "info", FIXED_MESSAGE.format("an integer assigned to it", "(hipDeviceptr_t)(uintptr_t)(rows)")),
        (12, 3, "HP1222", "info", FIXED_MESSAGE.format("an integer assigned to it",
                                                       "(hipDeviceptr_t)(uintptr_t)(columns * 4u)")),
        (16, 22, "HP1222", "info", FIXED_MESSAGE.format("operator +", "(hipDeviceptr_t)((char *)pool->start + pool->used)")),
        (18, 26, "HP1222", "info", FIXED_MESSAGE.format("operator +", "(hipDeviceptr_t)((char *)next + bytes)")),
        (20, 10, "HP1222", "info", FIXED_MESSAGE.format("operator +", "(hipDeviceptr_t)(sizeof(float) + (char *)next)")),
        (21, 15, "HP1222", "info", FIXED_MESSAGE.format("initialised with an integer", "(hipDeviceptr_t)(uintptr_t)(4096)")),
        (23, 21, "HP1222", "info", FIXED_MESSAGE.format("operator -", "(hipDeviceptr_t)((char *)pool->start - 16)")),
        (27, 11, "HP1216", "error", DEVICEPTR.format("operator +")),
    ]


def test_without_fix_each_use_is_an_error(tmp_path):
    ported, findings = _port_pool(tmp_path, fix=False)
    assert "uintptr_t" not in ported.read_text() and "(char *)" not in ported.read_text()
    assert [(line, column, rule) for line, column, rule, _, _ in findings] == [
        (11, 3, "HP1216"), (12, 3, "HP1216"), (16, 22, "HP1216"), (18, 26, "HP1216"), (20, 10, "HP1216"),
        (21, 15, "HP1216"), (23, 21, "HP1216"), (27, 11, "HP1216")]
    assert findings[1][4] == DEVICEPTR.format("an integer assigned to it")  # columns * 4u: an integer expression


def test_fixed_port_compiles_but_for_the_line_left_reported(toolchain, tmp_path):
    """The --fix output for gfx90a and gfx1100: clang's only errors are on the HP1216 line; as HIP
    on NVIDIA (hipDeviceptr_t is CUdeviceptr there, nvidia_hip_runtime_api.h) all of it compiles."""
    ported, _ = _port_pool(tmp_path, fix=True)
    for arch in ("gfx90a", "gfx1100"):
        with pytest.raises(CompileError) as failure:
            toolchain.compile_amd(ported, tmp_path / f"pool-{arch}.o", [arch], ["-fsyntax-only"])
        assert {int(m.group(1)) for m in re.finditer(r"pool\.cpp:(\d+):\d+: error:", failure.value.stderr)} == {27}
    fixable = tmp_path / "fixable.cpp"
    fixable.write_text(ported.read_text().replace("  return (p + 255) & ~255ull;", "  return (unsigned long long)p;"))
    toolchain.compile_amd(fixable, tmp_path / "fixable.o", ("gfx90a", "gfx1100"), ["-fsyntax-only"])
    toolchain.compile_nvidia(ported, tmp_path / "pool-nvidia.o", link=False)
    assert (tmp_path / "pool-nvidia.o").stat().st_size > 0


def test_deviceptr_parameter_table_is_cuda_h():
    """rules/toolkit/cuda_deviceptr_parameters.yaml is what tools/cuda_deviceptr_parameters.py
    reads from the toolchain's CUDA 12.4 cuda.h."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("cuda_deviceptr_parameters",
                                                  REPO / "tools" / "cuda_deviceptr_parameters.py")
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    table = tool.deviceptr_parameters((REPO / ".toolchain" / "cuda" / "include" / "cuda.h").read_text())
    assert tool.render(table) == (REPO / "rules" / "toolkit" / "cuda_deviceptr_parameters.yaml").read_text()
    assert (table["cuMemMap"], table["cuMemcpyDtoHAsync"], table["cuMemcpyDtoD"]) == ([0], [1], [0, 1])


def test_integer_constant_macros_count_as_integers(tmp_path):
    """A macro the file defines once as an integer constant is an integer operand; one whose
    expansion next to + would regroup (1 << 4) is not, so its use keeps HP1216."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "slots.cpp").write_text(
        "#include <cuda.h>\n#define SLOT_BYTES 4ULL * 1024ULL\n#define SHIFTED 1 << 4\n"
        "CUresult clear(CUdeviceptr base, unsigned slot) {\n"
        "  CUdeviceptr mark = SLOT_BYTES;\n"
        "  cuMemsetD8(base + slot * SLOT_BYTES, 0, SLOT_BYTES);\n"
        "  return cuMemsetD8(base + SHIFTED, 0, SLOT_BYTES);\n}\n")
    report = convert_tree(src, tmp_path / "out", ConvertOptions(fix=True, jobs=1)).report
    lines = (tmp_path / "out" / "slots.cpp").read_text().splitlines()
    assert lines[4:7] == ["  hipDeviceptr_t mark = (hipDeviceptr_t)(uintptr_t)(SLOT_BYTES);",
                          "  hipMemsetD8((hipDeviceptr_t)((char *)base + slot * SLOT_BYTES), 0, SLOT_BYTES);",
                          "  return hipMemsetD8(base + SHIFTED, 0, SLOT_BYTES);"]
    assert [(f.line, f.column, f.rule_id) for f in report.findings if f.rule_id in ("HP1216", "HP1222")] == [
        (5, 15, "HP1222"), (6, 14, "HP1222"), (7, 21, "HP1216")]


def test_function_spans_find_the_definition_a_walk_up_the_parents_finds():
    """_FunctionSpans.of (binary search) gives, for every declaration and identifier of real files
    (nested local-class methods, lambdas, templates, namespaces), the start of the innermost
    function definition among the node's ancestors, or -1."""
    from hipport.analyze import _FileContext
    from hipport.handle_types import _FunctionSpans
    from hipport.parse import new_parser, nodes_of_kinds
    from hipport.rules import default_rules

    def walk_up(node) -> int:
        node = node.parent
        while node is not None and node.type != "function_definition":
            node = node.parent
        return -1 if node is None else node.start_byte

    source = (b"namespace n { int g; __global__ void k(int a) { struct L { int m(int b) { int c; return b; } };"
              b" auto f = [](int d) { int e = d; return e; }; int h; } }\n"
              b"template <typename T> __device__ T t(T x) { T y = x; return y; }\nint tail(int z);\n")
    parser = new_parser()
    checked = 0
    for text in [source, *(path.read_bytes() for path in sorted(CORPUS.rglob("*.cu")))]:
        ctx = _FileContext("x.cu", text, parser.parse(text), default_rules())
        spans = _FunctionSpans(ctx)
        for node in nodes_of_kinds(ctx.root, ("declaration", "parameter_declaration", "field_declaration", "identifier")):
            assert spans.of(node) == walk_up(node), (text[:40], node.start_point)
            checked += 1
    assert checked > 1000


def _declarations_read_whole(ctx):
    """Every declaration of the file read at once: what Declarations held before it read lazily."""
    from hipport.handle_types import Declarations

    declarations = Declarations(ctx)
    declarations._read_all()
    return declarations


def test_declarations_read_on_lookup_answer_as_reading_them_all():
    """Declarations reads a declaration only when a name it may declare is looked up; for every
    identifier and member name of a crafted file and of the corpus, its answers (of, field,
    integer) equal those of the same index with every declaration read, whether the names are
    looked up one at a time (a scan each, then all at once past SINGLE_LOOKUPS) or resolved
    together first; a name of non-ASCII bytes reads them all."""
    from hipport.analyze import _FileContext
    from hipport.handle_types import Declarations, integer_handles
    from hipport.parse import nodes_of_kinds

    source = ("#define SLOT 4ULL\nstruct S { CUdeviceptr ptr; int n; } s, *sp;\nCUdeviceptr g; int g2;\n"
              "void f(CUdeviceptr d, int n) { int g = 1; struct L { unsigned m; } l; CUdeviceptr e = d + n;"
              " for (int i = 0; i < n; ++i) { const CUdeviceptr q = e; } int \u00e9t\u00e9 = 2; }\n"
              "CUdeviceptr constg, gconst; volatile CUdeviceptr v[2];\n").encode()
    parser = new_parser()
    rules = default_rules()
    checked = 0
    for text in [source, *(path.read_bytes() for path in sorted(CORPUS.rglob("*.cu")))]:
        tree = parser.parse(text)
        whole = _declarations_read_whole(_FileContext("x.cu", text, tree, rules))
        nodes = nodes_of_kinds(tree.root_node, ("identifier", "field_identifier"))
        one_by_one = Declarations(_FileContext("x.cu", text, tree, rules))
        together = Declarations(_FileContext("x.cu", text, tree, rules))
        together.resolve({node.text for node in nodes})
        assert not together._all_read or any(not node.text.isascii() for node in nodes)
        for node in nodes:
            for declarations in (one_by_one, together):
                assert declarations.of(node.text, node) == whole.of(node.text, node), (text[:40], node.text)
                assert declarations.field(node.text) == whole.field(node.text)
                assert declarations.integer(node.text, node) == whole.integer(node.text, node)
            checked += 1
        typed = Declarations(_FileContext("x.cu", text, tree, rules))
        typed.resolve_typed(integer_handles(rules))
        handles = set(integer_handles(rules))
        assert {n for n, f in typed.variables.items() if any(t in handles for e in f.values() for t, _ in e)} \
            == {n for n, f in whole.variables.items() if any(t in handles for e in f.values() for t, _ in e)}
        assert {n for n, e in typed.fields.items() if any(t in handles for t, _, _ in e)} \
            == {n for n, e in whole.fields.items() if any(t in handles for t, _, _ in e)}
    assert checked > 1000
    crafted = Declarations(_FileContext("x.cu", source, parser.parse(source), rules))
    assert crafted.of(b"ptr", None) == set() and crafted.field(b"ptr") == {("CUdeviceptr", 0)}
    assert not crafted._all_read and crafted._single_lookups == 1  # of and field: one scan for "ptr"
    crafted.field("\u00e9t\u00e9".encode())
    assert crafted._all_read
    bounded = Declarations(_FileContext("x.cu", source, parser.parse(source), rules))
    for name in (b"s", b"sp", b"g", b"g2", b"d", b"n", b"e", b"i"):
        bounded.field(name)
    assert not bounded._all_read and bounded._single_lookups == Declarations.SINGLE_LOOKUPS == 8
    bounded.field(b"q")
    assert bounded._all_read and bounded._single_lookups == 8
    tree = parser.parse(source)
    ctx = _FileContext("x.cu", source, tree, rules)
    typed = Declarations(ctx)
    typed.resolve_typed(integer_handles(rules))
    assert set(typed.variables) >= {b"d", b"e", b"q", b"g", b"constg", b"gconst", b"v"}
    assert typed.variables[b"v"] == {-1: {("CUdeviceptr", 1)}}
    assert typed.fields[b"ptr"] == {("CUdeviceptr", 0, -1)}


def test_integer_macros_from_define_tokens_are_the_preproc_def_nodes():
    """Declarations.integer_macros finds the preproc_def nodes from the ``#define`` tokens of the
    text; it equals the set read from a query of every preproc_def node, on the corpus, the
    fixtures and a file with spaced, indented, commented and quoted defines."""
    from hipport.analyze import _FileContext
    from hipport.handle_types import Declarations, integer_macro_body
    from hipport.parse import nodes_of_kinds

    crafted = (b"#define A 4\n  #  define B (1 << 3)\n#\tdefine C 2ULL * 1024ULL\n#define F(x) 3\n"
               b"// #define D 5\nconst char *s = \"#define E 6\";\n#define G 1\n#define G 2\n"
               b"#ifdef X\n#define H 0x10\n#endif\nstruct S { int a; };\n#define NOT_INT 1.5\n")
    parser, rules = new_parser(), default_rules()
    texts = [crafted, *(path.read_bytes() for path in sorted([*CORPUS.rglob("*.cu"), *FIXTURES.rglob("*.c*")]))]
    for text in texts:
        ctx = _FileContext("x.cu", text, parser.parse(text), rules)
        bodies: dict[bytes, list[bytes]] = {}
        for node in nodes_of_kinds(ctx.root, ("preproc_def",)):
            value = node.child_by_field_name("value")
            bodies.setdefault(node.child_by_field_name("name").text, []).append(value.text if value else b"")
        expected = {name for name, values in bodies.items() if len(values) == 1 and integer_macro_body(values[0])}
        assert Declarations(ctx).integer_macros == expected
    ctx = _FileContext("x.cu", crafted, parser.parse(crafted), rules)
    assert Declarations(ctx).integer_macros == {b"A", b"B", b"C", b"H"}


def test_operations_around_the_mentions_hold_every_operation_the_mention_test_keeps():
    """The handle-type pass finds its operations by walking up from the mentions instead of a
    query of every operation; on the fixture, the corpus and a crafted file (declarations whose
    initialisers hold no handle-type word, a handle type glued to another word), it finds each
    operation of the query that the mention test keeps, in the query's order."""
    import bisect

    from hipport.analyze import _FileContext
    from hipport.handle_types import _OPERATIONS, Declarations, _handle_mentions, _operations_around

    crafted = (b"CUdeviceptr a = 4, b = a + 1; int n = 2; CUdeviceptr c = n, d;\n"
               b"typedef unsigned long long constCUdeviceptr; constCUdeviceptr e = 5;\n"
               b"void f(CUdeviceptr p) { p += 3; unsigned x = (unsigned)p; auto q = static_cast<size_t>(p); "
               b"CUdeviceptr r = (CUdeviceptr)(x) + n; for (CUdeviceptr i = 0; i < p; i++) {} }\n")
    parser, rules = new_parser(), default_rules()
    handles = integer_handles(rules)
    texts = [crafted, (FIXTURE / "handles.cpp").read_bytes(), *(p.read_bytes() for p in sorted(CORPUS.rglob("*.cu")))]
    kept_total = 0
    for text in texts:
        ctx = _FileContext("x.cu", text, parser.parse(text), rules)
        mentions = _handle_mentions(ctx, handles, Declarations(ctx))
        found = _operations_around(ctx, mentions)
        kept = []
        for node in nodes_of_kinds(ctx.root, _OPERATIONS):
            first = node.parent.start_byte if node.type == "init_declarator" else node.start_byte
            at = bisect.bisect_left(mentions, first)
            if at < len(mentions) and mentions[at] < node.end_byte:
                kept.append(node)
        ids = [node.id for node in found]
        assert [node.id for node in kept] == [i for i in ids if i in {node.id for node in kept}]
        kept_total += len(kept)
    assert kept_total > 20


def test_long_expressions_are_read_without_deep_recursion_or_parent_walks():
    """A sum of 2,000 terms nests 2,000 binary expressions. The known-integer test checks the
    operands from a stack (it recursed, and a 1,000-term initialiser stopped the conversion with
    a RecursionError), and the pass finds the operations and declarations around its mentions
    with one tree cursor (a walk up the parents from each mention made such a line cubic in its
    length). Each `+` with a handle operand is reported once (the nested sums all start at the
    first term's column); the initialiser of the handle is an integer."""
    terms = 2000
    source = ("unsigned long long w = " + " + ".join("(CUdeviceptr)0" for _ in range(terms)) + ";\n"
              "CUdeviceptr z = " + " + ".join("1" for _ in range(terms)) + ";\n"
              "int y = " + " + ".join(f"CUdeviceptr_{i}" for i in range(terms)) + ";\n").encode()
    found = _findings(FIXTURE / "long.cpp", source)
    assert [f for f in found if f[0] == 1] == [(1, 24, DEVICEPTR.format("operator +"))] * (terms - 1)
    assert [f for f in found if f[0] != 1] == [(2, 13, DEVICEPTR.format("initialised with an integer"))]


ADDRESS_RANGE = b"""#include <cuda.h>

CUresult base_of(const char *text, CUdeviceptr *base, size_t *size)
{
    return cuMemGetAddressRange(base, size, reinterpret_cast<CUdeviceptr>(text));
}

unsigned long long bits_of(const char *text)
{
    return reinterpret_cast<unsigned long long>(text);
}
"""


def test_reinterpret_cast_to_deviceptr_becomes_a_c_style_cast(toolchain, tmp_path):
    """``reinterpret_cast<CUdeviceptr>`` of a ``const char *`` compiles in CUDA (pointer to
    integer) and not in HIP (``void *``: it casts away const); the C-style cast the port writes
    compiles in both. Another reinterpret_cast is left as written."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "range.cpp").write_bytes(ADDRESS_RANGE)
    toolchain.compile_cuda(src / "range.cpp", tmp_path / "cuda.o", link=False)
    out = tmp_path / "out"
    convert_tree(src, out, ConvertOptions(jobs=1))
    ported = out / "range.cpp"
    assert ported.read_text().splitlines()[3:10] == [
        "{",
        "    return hipMemGetAddressRange(base, size, (hipDeviceptr_t)(text));",
        "}",
        "",
        "unsigned long long bits_of(const char *text)",
        "{",
        "    return reinterpret_cast<unsigned long long>(text);",
    ]
    toolchain.compile_amd(ported, tmp_path / "amd.o", ["gfx90a"], ["-fsyntax-only"])
    toolchain.compile_nvidia(ported, tmp_path / "nvidia.o", link=False)
    ported.write_text(ported.read_text().replace("(hipDeviceptr_t)(text)", "reinterpret_cast<hipDeviceptr_t>(text)"))
    with pytest.raises(CompileError) as kept:
        toolchain.compile_amd(ported, tmp_path / "amd.o", ["gfx90a"], ["-fsyntax-only"])
    assert [line.split("range.cpp:")[1] for line in kept.value.stderr.splitlines() if ": error: " in line] == [
        "5:46: error: reinterpret_cast from 'const char *' to 'hipDeviceptr_t' (aka 'void *') casts away qualifiers"]


MEMBER_VECTOR = b"""#include <cuda.h>

struct DeviceVector {
    CUdeviceptr base;
    size_t used;
    CUresult clear_tail(size_t bytes) { return cuMemsetD8(base + used, 0, bytes); }
    CUresult grow(size_t bytes);
};

CUresult DeviceVector::grow(size_t bytes)
{
    CUresult status = cuMemsetD8(base + used, 0, bytes);
    used += bytes;
    return status;
}
"""


@pytest.mark.parametrize("fix", [False, True])
def test_member_named_by_itself_in_member_functions(toolchain, tmp_path, fix):
    """A CUdeviceptr member used by its bare name in a member function, defined in the class or
    outside it (``this->`` implied; cuda-vmm's cuvector.cpp), is a handle like ``v.base``:
    reported (HP1216), and rewritten with --fix (HP1222, ``used`` read as the size_t member)."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "vector.cpp").write_bytes(MEMBER_VECTOR)
    out = tmp_path / "out"
    convert_tree(src, out, ConvertOptions(jobs=1, fix=fix))
    ported = out / "vector.cpp"
    lines = ported.read_text().splitlines()
    report = (out / "hipport-report.json").read_text()
    ids = re.findall(r'"rule_id": "(HP12\d\d)"', report)
    if fix:
        assert (lines[5], lines[11]) == (
            "    hipError_t clear_tail(size_t bytes) { return hipMemsetD8((hipDeviceptr_t)((char *)base + used), 0, bytes); }",
            "    hipError_t status = hipMemsetD8((hipDeviceptr_t)((char *)base + used), 0, bytes);")
        assert ids == ["HP1222", "HP1222"]
        toolchain.compile_amd(ported, tmp_path / "amd.o", ["gfx90a"], ["-fsyntax-only"])
    else:
        assert ids == ["HP1216", "HP1216"]
        with pytest.raises(CompileError) as failed:
            toolchain.compile_amd(ported, tmp_path / "amd.o", ["gfx90a"], ["-fsyntax-only"])
        assert [line.split("vector.cpp:")[1].split(": error:")[0] for line in failed.value.stderr.splitlines()
                if ": error: " in line] == ["6:67", "12:42"]


def test_member_hides_a_global_and_template_members_are_members(tmp_path):
    """In a member function a member named by itself hides a global of that name (``base`` is
    the size_t member, not the CUdeviceptr global); a member function template is a member
    function (its ``ptr + sizeof(T)`` is the handle member's)."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "vec.cpp").write_text(
        "#include <cuda.h>\n#include <cstddef>\nCUdeviceptr base;\n"
        "struct Vec {\n  CUdeviceptr ptr;\n  size_t base;\n"
        "  size_t fine() const { return base + 4; }\n"
        "  template <class T> size_t at() const { return ptr + sizeof(T); }\n};\n")
    convert_tree(src, tmp_path / "out", ConvertOptions(jobs=1))
    report = json.loads((tmp_path / "out" / "hipport-report.json").read_text())
    assert [(f["line"], f["rule_id"]) for f in report["findings"]] == [(8, "HP1216")]

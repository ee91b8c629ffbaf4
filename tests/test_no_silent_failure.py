"""No silent failure (issue 10): every ported corpus program and CUDA input fixture compiles for
AMD gfx90a, or each of its compile errors has a finding on its line, its include chain or its
instantiation/macro chain (scripts/no_silent_failure.py, whose functions are tested here too).

Groups checked, each converted once as the other tests convert them:
- ``corpus/`` (less ``projects/``), default options (tests/test_corpus_builds.py);
- ``corpus/projects/`` with ``--fix`` (tests/test_corpus_projects_port.py);
- ``tests/fixtures/families/`` (``--target-libs=hip``; ``_unported`` fixtures included: their
  errors must all be reported), ``tests/fixtures/rewrite/``, ``tests/fixtures/compile/``,
  ``tests/fixtures/libs/``, ``tests/fixtures/cuda_libs/`` (the inputs of
  tests/test_family_fixtures.py, test_rewrite_golden.py, test_corpus_builds.py,
  test_library_ports.py), less their ``expected/`` folders;
- ``tests/fixtures/no_silent_failure/``: four programs written for this test.

One test per translation unit; a unit fails when an error has no finding (the nvcc baseline is
off here: a unit whose original does not compile is a broken fixture, so it fails too). A unit
that fails because of a hipport gap is a strict xfail naming the gap (GAPS). Golden rewrite
inputs that are not programs (NOT_PROGRAMS: they include headers the fixture folder lacks, or
hold an ``#error``) are checked to fail as they must, not to compile.

About 100 units: 8.5 minutes for the whole file on the shared 2-core machine (2026-12-02,
118 passed, 2 xfailed; ``HIPPORT_NSF_JOBS`` sets the parallel compiles, default 2). Since the
include of a header no HIP/ROCm 6.4 package ships is reported (HP2016: cudnn.h -> hipdnn.h):
120 passed, no gap left (11 min 19 s with HIPPORT_NSF_JOBS=1).
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import sys
from pathlib import Path

import pytest

from helpers import CORPUS, CORPUS_EXCLUDE, CORPUS_PROJECTS, FIXTURES, REPO
from hipport.discover import output_name

_spec = importlib.util.spec_from_file_location("no_silent_failure", REPO / "scripts" / "no_silent_failure.py")
nsf = importlib.util.module_from_spec(_spec)
sys.modules["no_silent_failure"] = nsf
_spec.loader.exec_module(nsf)

NSF = FIXTURES / "no_silent_failure"
#: Parallel compiles (the project's limit on a shared 2-core machine is 2).
JOBS = int(os.environ.get("HIPPORT_NSF_JOBS", "2"))

#: group -> (SRC, convert options)
GROUPS: dict[str, tuple[Path, dict]] = {
    "corpus": (CORPUS, {"exclude": CORPUS_EXCLUDE}),
    "corpus-projects": (CORPUS_PROJECTS, {"fix": True}),
    "families": (FIXTURES / "families", {"exclude": ("expected/",)}),
    "rewrite": (FIXTURES / "rewrite", {"exclude": ("expected/",)}),
    "compile": (FIXTURES / "compile", {}),
    "libs": (FIXTURES / "libs", {}),
    "cuda_libs": (FIXTURES / "cuda_libs", {}),
    "no_silent_failure": (NSF, {}),
}

#: Units that fail for a known hipport gap: (group, OUT unit) -> the gap. Strict xfails: when the
#: gap is closed the test passes, fails as XPASS, and the entry must go.
GAPS: dict[tuple[str, str], str] = {}

#: Inputs that are not programs: golden rewrite inputs whose CUDA original does not compile either
#: (nvcc stops at the same line). (group, OUT unit) -> why. Checked to be compiled and to fail.
NOT_PROGRAMS: dict[tuple[str, str], str] = {
    ("rewrite", "includes.hip"): "includes project headers the fixture folder does not have ('my-cuda.h')",
    ("rewrite", "must_not_touch.cpp"): "includes project headers the fixture folder does not have ('my-cuda.h')",
    ("rewrite", "macros.hip"): "holds an #error directive (names in #error lines must stay)",
    ("no_silent_failure", "unexplained/main.hip"): "this test's own unexplained case: a plain mistake nvcc rejects too",
}

#: CUDA (and CUDA library) headers: a .cpp/.cc source that includes one, directly or through the
#: tree's headers, becomes a HIP translation unit.
_CUDA_INCLUDE = re.compile(r"^(cuda|cu[a-z]+[_.]|nccl|nvrtc|nvtx|thrust/|cub/|cooperative_groups|mma\.h|"
                           r"device_|vector_types|builtin_types|sm_\d)")


def _units(src: Path, exclude: tuple[str, ...]) -> list[str]:
    """The OUT paths of the HIP translation units the check compiles, from the SRC tree: .cu
    files and .cpp/.cc/.cxx files that include a CUDA header, less units another file includes."""
    scan = nsf.TreeScan.scan(src)
    skip = tuple(e.rstrip("/") + "/" for e in exclude)
    included = scan.included_units([])
    units = []
    for rel in sorted(scan.includes):
        suffix = Path(rel).suffix
        if rel.startswith(skip) or rel in included or suffix not in (".cu", ".hip", ".cpp", ".cc", ".cxx"):
            continue
        if suffix in (".cpp", ".cc", ".cxx"):
            closure, _ = scan.closure(rel, [])
            if not any(_CUDA_INCLUDE.match(name) or nsf.HIP_INCLUDE.match(name)
                       for f in closure for _, name in scan.includes.get(f, [])):
                continue
        units.append(output_name(rel))
    return units


UNITS = [(group, unit) for group, (src, opts) in GROUPS.items() for unit in _units(src, opts.get("exclude", ()))]
CASES = [case for case in UNITS if case not in NOT_PROGRAMS]


@pytest.fixture(scope="module")
def checked(toolchain, tmp_path_factory):
    """Run the check once per group (on first use): group -> {unit: unit result dict}."""
    cache: dict[str, dict] = {}

    def get(group: str) -> dict:
        if group not in cache:
            src, opts = GROUPS[group]
            options = nsf.Options(src=src, out=tmp_path_factory.mktemp(f"nsf-{group}") / "out", jobs=JOBS,
                                  baseline=False, fix=opts.get("fix", False), exclude=tuple(opts.get("exclude", ())))
            results = nsf.run_check(options, toolchain)
            cache[group] = {u["unit"]: u for p in results["programs"] for u in p["units"]}
        return cache[group]

    return get


def _describe(unit: dict) -> str:
    lines = [f"{unit['unit']}: {unit['status']}"]
    for e in unit["errors"]:
        where = f"{e['file']}:{e['line']}" if e["line"] else (e["file"] or "?")
        lines.append(f"  {where}: {e['message']}  [{', '.join(e['explained_by']) or 'NO FINDING'}]"
                     + (f"\n      {e['source_line']}" if e["source_line"] else ""))
    return "\n".join(lines)


@pytest.mark.parametrize(
    "group, unit",
    [pytest.param(g, u, marks=pytest.mark.xfail(strict=True, reason=GAPS[(g, u)])) if (g, u) in GAPS else (g, u)
     for g, u in CASES],
    ids=[f"{g}:{u}" for g, u in CASES])
def test_every_compile_error_has_a_finding(checked, group, unit):
    results = checked(group)
    assert unit in results, f"{unit} was not compiled as a HIP unit; compiled: {sorted(results)}"
    assert results[unit]["status"] in ("ok", "explained"), _describe(results[unit])


@pytest.mark.parametrize("group", list(GROUPS))
def test_every_compiled_unit_is_a_case(checked, group):
    """The units the check compiles are exactly the parametrized cases and NOT_PROGRAMS (no unit
    left unchecked)."""
    assert sorted(checked(group)) == sorted(u for g, u in UNITS if g == group)


@pytest.mark.parametrize("group, unit", list(NOT_PROGRAMS), ids=[f"{g}:{u}" for g, u in NOT_PROGRAMS])
def test_inputs_that_are_not_programs_fail_to_compile(checked, group, unit):
    """The units left out of the check really do not compile (so leaving them out hides nothing
    that builds), and their errors are at the line that makes them non-programs."""
    result = checked(group)[unit]
    assert result["status"] == "unexplained"
    first = result["first_unexplained"]
    assert (first["file"], first["message"]) == {
        "includes.hip": ("includes.hip", "'my-cuda.h' file not found"),
        "must_not_touch.cpp": ("must_not_touch.cpp", "'my-cuda.h' file not found"),
        "macros.hip": ("macros.hip", '"cudaMalloc is mentioned in an error directive and stays"'),
        "unexplained/main.hip": ("unexplained/main.hip", "use of undeclared identifier 'scale_factor'"),
    }[unit]


# --------------------------------------------------------------------------- the check's own fixtures
@pytest.fixture(scope="module")
def fixture_results(toolchain, tmp_path_factory):
    options = nsf.Options(src=NSF, out=tmp_path_factory.mktemp("nsf-own") / "out", jobs=JOBS)
    return nsf.run_check(options, toolchain)


def test_fixture_programs_exact_results(fixture_results):
    units = {u["unit"]: u for p in fixture_results["programs"] for u in p["units"]}
    assert sorted(units) == ["explained/main.hip", "macro/main.hip", "unexplained/main.hip", "warp_masks/main.hip"]
    explained = units["explained/main.hip"]
    assert explained["status"] == "explained"
    assert explained["errors"] == [{"file": "explained/main.hip", "line": 8, "message": "invalid instruction",
                                    "source_line": 'asm("mov.u32 %0, %%laneid;" : "=r"(lane));',
                                    "explained_by": ["HP1001 explained/main.cu:7"]}]
    # the port added '#include <hip/hip_runtime.h>' as line 3: main.hip:8 is main.cu:7
    unexplained = units["unexplained/main.hip"]
    assert unexplained["first_unexplained"] == {
        "file": "unexplained/main.hip", "line": 8, "message": "use of undeclared identifier 'scale_factor'",
        "source_line": "if (i < n) x[i] *= scale_factor;", "explained_by": []}
    # nvcc rejects the original as well: not a silent failure of the port
    assert unexplained["status"] == "original-fails"
    assert unexplained["baseline_error"] == 'unexplained/main.cu(7): error: identifier "scale_factor" is undefined'
    assert [p["program"] for p in fixture_results["programs"]] == ["explained", "macro", "unexplained", "warp_masks"]
    assert [p["only_hip_features"] for p in fixture_results["programs"]] == [False, False, True, True]
    assert fixture_results["programs"][0]["missing_feature_findings"] == ["HP1001 explained/main.cu:7"]


def test_inline_ptx_in_a_macro_is_explained(fixture_results):
    unit = next(u for p in fixture_results["programs"] for u in p["units"] if u["unit"] == "macro/main.hip")
    assert unit["status"] == "explained", _describe(unit)


def test_32bit_masks_are_explained_at_each_call(fixture_results):
    """warp_masks/main.cu: each *_sync call with a 32-bit mask is a compile error of its own
    (HIP 6.4's static_assert on the mask type, reported in amd_warp_sync_functions.h with the
    call in an instantiation note), whether the mask is a macro or constant of the file or of
    its header lanes.h, a struct member, a parameter (one of a typedef of lanes.h), a local, a
    literal or an expression of them; each is explained by the HP1102 at that call (issue 10:
    the finding on the macro's or constant's own line explains none of them). The 64-bit mask
    of line 23 compiles."""
    unit = next(u for p in fixture_results["programs"] for u in p["units"] if u["unit"] == "warp_masks/main.hip")
    assert unit["status"] == "explained", _describe(unit)
    header = "amd_warp_sync_functions.h"
    assert [(Path(e["file"]).name, e["line"], e["message"].split(":")[0], e["explained_by"]) for e in unit["errors"]] == [
        (header, line, f"static assertion failed due to requirement 'sizeof({mask}) == 8'", [f"HP1102 warp_masks/main.cu:{call}"])
        for line, mask, call in [(235, "unsigned int", 13), (261, "unsigned int", 14), (274, "unsigned int", 15),
                                 (248, "unsigned int", 16), (152, "unsigned int", 17), (129, "unsigned int", 17),
                                 (141, "unsigned int", 18), (129, "int", 19), (235, "int", 20), (189, "unsigned int", 21),
                                 (219, "unsigned int", 22)]]


def test_exit_status_and_bad_path(tmp_path, capsys):
    assert nsf.main([str(tmp_path / "missing"), "-j", "1"]) == 2
    assert capsys.readouterr().err == f"no_silent_failure: {tmp_path / 'missing'}: no such file or folder\n"


def test_output_inside_the_source_tree_is_refused(tmp_path, capsys):
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.cu").write_text("__global__ void k() {}\n")
    assert nsf.main([str(src), "--out", str(src / "out")]) == 2
    assert capsys.readouterr().err.startswith(f"no_silent_failure: {src / 'out'}: the output folder must not be inside")
    assert sorted(p.name for p in src.iterdir()) == ["a.cu"]


def test_command_line_writes_json_and_exits_1_on_an_unexplained_failure(toolchain, tmp_path, capsys):
    """The unexplained fixture alone, baseline off: exit 1, and the JSON says why."""
    result = tmp_path / "r.json"
    code = nsf.main([str(NSF / "unexplained"), "--no-baseline", "-j", "1", "--json", str(result)])
    printed = capsys.readouterr().out
    assert code == 1
    assert "\n.        1    0   0          1            main.hip:8: use of undeclared identifier 'scale_factor'  " \
           "| if (i < n) x[i] *= scale_factor;\n" in printed
    data = json.loads(result.read_text())
    assert data["summary"]["programs_unexplained"] == 1 and data["summary"]["units"] == 1
    assert data["programs"][0]["units"][0]["status"] == "unexplained"


# --------------------------------------------------------------------------- parser and matching
CLANG_OUTPUT = """\
In file included from /o/app/main.hip:2:
In file included from /o/include/lib.h:5:
/o/include/impl.h:12:9: error: no member named 'foo' in 'int'
   12 |   return x.foo;
      |          ~ ^
/o/app/main.hip:20:5: note: in instantiation of function template specialization 'f<int>' requested here
   20 |     CALL(p[1]);
      |     ^
/o/app/main.hip:3:17: note: expanded from macro 'CALL'
    3 | #define CALL(x) f(x)
      |                 ^
/o/app/main.hip:30:1: warning: unused variable 'w' [-Wunused-variable]
/o/app/main.hip:30:1: note: this note belongs to the warning
/o/app/main.hip:41:34: error: invalid instruction
   41 | __global__ void k2(int *p) { asm("mov.u32 %0, %%laneid;" : "=r"(p[0])); }
      |                                  ^
<inline asm>:1:2: note: instantiated into assembly here
    1 |         mov.u32 s2, %laneid;
      |         ^
/o/app/main.hip:41:34: error: invalid instruction
/o/app/main.hip:50: fatal error: 'helper.h' file not found
fatal error: too many errors emitted, stopping now [-ferror-limit=]
3 errors generated when compiling for gfx90a.
clang++-19: error: amdgcn-link command failed with exit code 1 (use -v to see invocation)
"""


def test_parse_diagnostics_exact():
    diags = nsf.parse_diagnostics(CLANG_OUTPUT)
    assert [(d.file, d.line, d.column, d.message, d.fatal) for d in diags] == [
        ("/o/include/impl.h", 12, 9, "no member named 'foo' in 'int'", False),
        ("/o/app/main.hip", 41, 34, "invalid instruction", False),
        ("/o/app/main.hip", 50, None, "'helper.h' file not found", True),
        (None, None, None, "clang++-19: amdgcn-link command failed with exit code 1 (use -v to see invocation)", False),
    ]
    assert [(s.file, s.line, s.kind) for s in diags[0].chain] == [
        ("/o/app/main.hip", 2, "include"), ("/o/include/lib.h", 5, "include"),
        ("/o/app/main.hip", 20, "note"), ("/o/app/main.hip", 3, "note")]
    assert diags[0].chain[2].message == "in instantiation of function template specialization 'f<int>' requested here"
    # the warning's note is not attached to the error before it; the inline-asm note is kept
    assert [(s.file, s.line, s.kind) for s in diags[1].chain] == [("<inline asm>", 1, "note")]
    assert diags[2].chain == [] and diags[3].chain == []


def test_parse_skips_snippets_that_look_like_diagnostics():
    text = '   7 | printf("a.cu:1:2: error: not a diagnostic");\n      | ^\n/o/a.hip:7:1: error: real\n'
    assert [(d.file, d.line, d.message) for d in nsf.parse_diagnostics(text)] == [("/o/a.hip", 7, "real")]


def test_parse_carries_the_include_stack_clang_leaves_out():
    """clang prints an include stack only when it changes: the second error in vec.h (after a
    note in vec.h) comes with none and gets vec.h's stack; the main file's error keeps an empty
    chain, and so does an error in a header whose stack was never printed."""
    text = (
        "In file included from /o/host.cpp:9:\n"
        "In file included from /o/shared.h:2:\n"
        "/o/hip/vec.h:1188:1: error: typedef redefinition\n"
        "/o/hip/vec.h:1161:15: note: expanded from macro 'MAKE'\n"
        "/o/hip/vec.h:2189:1: error: excess elements in scalar initializer\n"
        "/o/hip/vec.h:2127:10: note: expanded from macro 'FOUR'\n"
        "/o/host.cpp:20:3: error: use of undeclared identifier 'x'\n"
        "/o/other.h:4:1: error: unknown type name 'y'\n"
    )
    diags = nsf.parse_diagnostics(text)
    stack = [("/o/host.cpp", 9, "include"), ("/o/shared.h", 2, "include")]
    assert [[(s.file, s.line, s.kind) for s in d.chain] for d in diags] == [
        stack + [("/o/hip/vec.h", 1161, "note")],
        stack + [("/o/hip/vec.h", 2127, "note")],
        [],
        [],
    ]


def test_line_map_identity_and_added_lines():
    assert nsf.line_map(b"a\nb\nc\n", b"A\nb\nC\n") is None
    assert nsf.line_map(b"// c\ncudaMalloc\nx\n", b"// c\n#include <hip/hip_runtime.h>\nhipMalloc\nx\n") == [1, None, 2, 3, 4]
    assert nsf.line_map(b"a\nb\n", b"#include <hip/hip_runtime.h>\na\nb\n") == [None, 1, 2, 3]


@pytest.fixture
def tree(tmp_path):
    """A SRC/OUT pair: OUT's main.hip has one added line (line 2); findings on main.cu:3 and
    util.cuh:1."""
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir(), out.mkdir()
    (src / "main.cu").write_text('#include "util.cuh"\nint a;\nint b = cudaThing;\nint c;\n')
    (out / "main.hip").write_text('#include "util.cuh"\n#include <hip/hip_runtime.h>\nint a;\nint b = cudaThing;\nint c;\n')
    (src / "util.cuh").write_text("asm_here;\n")
    (out / "util.cuh").write_text("asm_here;\n")
    report = {"files": [{"path": "main.cu", "output": "main.hip"}, {"path": "util.cuh", "output": "util.cuh"}],
              "findings": [{"path": "main.cu", "line": 3, "rule_id": "HP2001", "severity": "error"},
                           {"path": "util.cuh", "line": 1, "rule_id": "HP1001", "severity": "error"}]}
    (out / "hipport-report.json").write_text(json.dumps(report))
    return nsf.Report(src, out), out


def test_explained_on_its_line_through_the_line_map(tree):
    report, out = tree
    diag = nsf.Diagnostic(str(out / "main.hip"), 4, 9, "use of undeclared identifier 'cudaThing'")
    assert [f["rule_id"] for f in nsf.explain(diag, report)] == ["HP2001"]
    # main.hip:3 is main.cu:2, which has no finding
    assert nsf.explain(nsf.Diagnostic(str(out / "main.hip"), 3, 1, "x"), report) == []


def test_explained_through_a_note_or_an_include_site(tree):
    report, out = tree
    in_system = nsf.Diagnostic("/usr/include/hip/x.h", 100, 1, "static assertion failed",
                               chain=[nsf.Site(str(out / "main.hip"), 4, "note")])
    assert [f["rule_id"] for f in nsf.explain(in_system, report)] == ["HP2001"]
    via_include = nsf.Diagnostic("/usr/include/y.h", 5, 1, "boom", chain=[nsf.Site(str(out / "util.cuh"), 1, "include")])
    assert [f["rule_id"] for f in nsf.explain(via_include, report)] == ["HP1001"]


def test_unexplained_sites(tree):
    report, out = tree
    # the added include line maps to no SRC line; a system header and a driver error name no tree line
    assert nsf.explain(nsf.Diagnostic("/usr/include/z.h", 1, 1, "e", chain=[nsf.Site(str(out / "main.hip"), 2, "include")]),
                       report) == []
    assert nsf.explain(nsf.Diagnostic(None, None, None, "clang++-19: error: x"), report) == []
    assert nsf.explain(nsf.Diagnostic(str(out / "main.hip"), 5, 1, "e"), report) == []


def test_program_grouping_and_header_folders(tmp_path):
    root = tmp_path / "t"
    for rel, text in {"Common/helper.h": "", "proj/CMakeLists.txt": "", "proj/app/main.cu": "int main() {}\n",
                      "proj/src/k.cu": "__global__ void k() {}\n", "solo/a.cu": "int main(void) { return 0; }\n",
                      "solo/sub/b.cu": "", "lib/x.cu": "// int main() in a comment\n"}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    scan = nsf.TreeScan.scan(root)
    assert scan.mains == {"proj/app/main.cu", "solo/a.cu"}
    assert [scan.program_of(u) for u in ("proj/app/main.cu", "proj/src/k.cu", "solo/sub/b.cu", "lib/x.cu")] == [
        "proj", "proj", "solo", "lib"]
    assert nsf.header_dirs(root / "proj" / "src", root) == [root / "Common"]


def test_errors_that_follow_from_an_explained_error(tree):
    """clang's recovery: a use of a variable whose type was unknown (explained) names the type
    clang substituted; that error is a consequence, not a silent failure. An unrelated later
    error stays unexplained."""
    report, out = tree
    main = out / "main.hip"
    stderr = (f"{main}:4:9: error: unknown type name 'cudaThing'; did you mean 'hipThingID'?\n"
              f"{main}:5:1: error: member reference base type 'hipThingID' is not a structure or union\n"
              f"{main}:3:1: error: member reference base type 'float' is not a structure or union\n")
    status, errors, first = nsf.classify(stderr, report, "main.hip")
    assert status == "unexplained"
    assert [(e.line, e.explained_by) for e in errors] == [
        (4, ["HP2001 main.cu:3"]), (5, ["consequence of HP2001 main.cu:3"]), (3, [])]
    assert first is errors[2]


def test_errors_in_code_a_cuda_version_test_selects(tmp_path):
    """An ``#if CUDART_VERSION >= ...`` (HP1209 on its line) takes its ``#else`` in a HIP build:
    an error inside that conditional, and a use elsewhere of a name that the tree declares only in
    a file included under it, are explained by the HP1209 finding; an error outside it, or an
    undeclared name the conditional does not hold, stays unexplained."""
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir(), out.mkdir()
    main = ("#if CUDART_VERSION >= 2020\n#include \"kernels.cuh\"\n#else\nint fallback();\n#endif\n"
            "int run() { return set_count(0) + other(); }\n"
            "int main() {\n#if CUDART_VERSION >= 2020\n  return run();\n#else\n  old_path();\n#endif\n}\n")
    (src / "main.cu").write_text(main)
    (out / "main.hip").write_text(main)
    (src / "kernels.cuh").write_text("int set_count(int n);\n")
    (out / "kernels.cuh").write_text("int set_count(int n);\n")
    report = {"files": [{"path": "main.cu", "output": "main.hip"}, {"path": "kernels.cuh", "output": "kernels.cuh"}],
              "findings": [{"path": "main.cu", "line": 1, "rule_id": "HP1209", "severity": "warning"},
                           {"path": "main.cu", "line": 8, "rule_id": "HP1209", "severity": "warning"}]}
    (out / "hipport-report.json").write_text(json.dumps(report))
    rep = nsf.Report(src, out)
    assert [(r.path, r.first, r.last) for r in rep.version_regions] == [("main.cu", 1, 5), ("main.cu", 8, 12)]
    hip = str(out / "main.hip")

    def cause(line, message):
        return [f"{f['rule_id']} {f['path']}:{f['line']}" for f in nsf.explain(nsf.Diagnostic(hip, line, 1, message), rep)]

    assert cause(11, "use of undeclared identifier 'old_path'") == ["HP1209 main.cu:8"]
    assert cause(6, "use of undeclared identifier 'set_count'") == ["HP1209 main.cu:1"]
    assert cause(6, "use of undeclared identifier 'other'") == []
    assert cause(7, "expected ';'") == []


def test_a_version_test_explains_names_only_in_the_files_the_unit_reads(tmp_path):
    """The name a CUDA version test declares in one program does not explain the same undeclared
    name in another program of the tree (HeCBench: su3-cuda's missing thrust::host_vector was
    'explained' by an HP1209 region of attention-paged-cuda): with the unit's closure, only the
    regions of the files it reads count."""
    src, out = tmp_path / "src", tmp_path / "out"
    for root in (src, out):
        (root / "a").mkdir(parents=True), (root / "b").mkdir()
    versioned = "#if CUDART_VERSION >= 11000\nint fast_count(int n);\n#endif\n"
    (src / "a" / "main.cu").write_text(versioned)
    (out / "a" / "main.hip").write_text(versioned)
    (src / "b" / "main.cu").write_text("int main() { return fast_count(1); }\n")
    (out / "b" / "main.hip").write_text("int main() { return fast_count(1); }\n")
    report = {"files": [{"path": "a/main.cu", "output": "a/main.hip"}, {"path": "b/main.cu", "output": "b/main.hip"}],
              "findings": [{"path": "a/main.cu", "line": 1, "rule_id": "HP1209", "severity": "warning"}]}
    (out / "hipport-report.json").write_text(json.dumps(report))
    rep = nsf.Report(src, out)
    error = nsf.Diagnostic(str(out / "b" / "main.hip"), 1, 21, "use of undeclared identifier 'fast_count'")
    assert [f["path"] for f in nsf.explain(error, rep)] == ["a/main.cu"]  # no closure: any file of the tree
    assert nsf.explain(error, rep, {"b/main.hip"}) == []
    assert [f["path"] for f in nsf.explain(error, rep, {"b/main.hip", "a/main.hip"})] == ["a/main.cu"]
    stderr = f"{out / 'b' / 'main.hip'}:1:21: error: use of undeclared identifier 'fast_count'\n"
    status, errors, first = nsf.classify(stderr, rep, "b/main.hip", {"b/main.hip"})
    assert (status, errors[0].explained_by, first.line) == ("unexplained", [], 1)


def test_errors_on_the_later_lines_of_a_call_whose_first_line_is_explained(tmp_path):
    """clang's "did you mean" recovery on a call's first line (explained by its finding) goes on
    with errors on the call's argument lines: consequences of that finding. An error on the next
    statement, whose line opens no parenthesis left open, stays unexplained."""
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir(), out.mkdir()
    code = ("void f(Layout a, int r) {\n"
            "  status = layoutInitOld(\n"
            "    &a, kind, r > 0 ? r : 1,\n"
            "    \"(\", r);\n"
            "  other(&a);\n"
            "}\n")
    (src / "main.cu").write_text(code)
    (out / "main.hip").write_text(code)
    report_json = {"files": [{"path": "main.cu", "output": "main.hip"}],
                   "findings": [{"path": "main.cu", "line": 2, "rule_id": "HP2001", "severity": "error"}]}
    (out / "hipport-report.json").write_text(json.dumps(report_json))
    report = nsf.Report(src, out)
    main = out / "main.hip"
    stderr = (f"{main}:2:12: error: use of undeclared identifier 'layoutInitOld'; did you mean 'layoutCreate'?\n"
              f"{main}:3:5: error: cannot initialize a parameter of type 'Layout *' with an rvalue of type 'Opaque *'\n"
              f"{main}:4:5: error: no viable conversion from 'const char[2]' to 'int'\n"
              f"{main}:5:3: error: cannot initialize a parameter of type 'Layout *' with an rvalue of type 'Opaque *'\n")
    status, errors, first = nsf.classify(stderr, report, "main.hip")
    assert [(e.line, e.explained_by) for e in errors] == [
        (2, ["HP2001 main.cu:2"]), (3, ["consequence of HP2001 main.cu:2"]),
        (4, ["consequence of HP2001 main.cu:2"]), (5, [])]
    assert status == "unexplained" and first is errors[3]


def test_open_paren_lines():
    lines = ["x = 1;", "  s = f(a,", '   g(b, ")(",', "     c));", "y;"]
    assert nsf.open_paren_lines(lines, 4) == [3, 2]
    assert nsf.open_paren_lines(lines, 3) == [2]
    assert nsf.open_paren_lines(lines, 5) == []  # the call closed on line 4
    assert nsf.open_paren_lines(lines, 2) == []  # line 1 ends a statement

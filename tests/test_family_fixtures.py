"""One golden fixture per API family (issue 3 point 6): tests/fixtures/families/.

For every family of the rule data (rules/*.yaml) there is ``<family>.cu`` (or ``.cpp``): realistic
code using the family's API, with names of every kind and status the family's data holds, and
inputs that must not change (the names in comments, string literals, longer identifiers, members,
user namespaces named like library namespaces). Where a family's unsupported or removed names
make a port uncompilable by design they live in ``<family>_unported.cu``, which is never compiled
as HIP. The expected outputs and findings, written and reviewed by the team, are in
``tests/fixtures/families/expected/``: ``<output name>`` and ``<stem>.findings`` for
``--target-libs=hip``, ``<stem>.roc.<suffix>`` and ``<stem>.roc.findings`` for
``--target-libs=roc`` in the families that have a ROCm library (``roc_library``).

Checked here:
1. every fixture converts byte for byte to its expected output, with exactly its findings. Where
   hipport is wrong, the expected file still says what is correct; the case's byte-exact tests are
   strict xfails, and KNOWN_BUGS records each difference (reason, expected text -> hipport's text,
   findings added or left out), which test_known_bugs_are_the_only_differences checks exactly;
2. each family's fixtures use at least one name of every kind and every status (and, with a
   ROCm library, every ``--target-libs=roc`` status) present in the family's data, so new data
   of a new kind or status fails until a fixture case is added;
3. every family of the data has a fixture, and every fixture belongs to a family;
4. the inputs are valid CUDA for nvcc 12.4 (sm_90) where its headers are installed, and the
   expected HIP outputs of the fixtures written to be compilable compile for gfx90a.

A new fixture: write the input, convert it (``hipport convert FILE -o OUT`` and ``--target-libs=roc``),
copy the output and the findings (``line:column RULE severity message``, helpers.findings_lines)
into expected/, then review every line against the data and the HIP/ROCm headers.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from helpers import FIXTURES, findings_lines
from hipport.convert import ConvertOptions, convert_tree
from hipport.discover import output_name
from hipport.rules import default_rules
from hipport.toolchain import CompileError

FAMILIES = FIXTURES / "families"
EXPECTED = FAMILIES / "expected"
SOURCES = sorted(p for p in FAMILIES.iterdir() if p.is_file())
UNPORTED = "_unported"


def family_of(source: Path) -> str:
    return source.stem.removesuffix(UNPORTED)


def roc_families() -> set[str]:
    return {f.id for f in default_rules().families.values() if f.roc_library}


def expected_names(source: Path, target_libs: str) -> tuple[str, str]:
    """(expected output file, expected findings file) of ``source`` under ``target_libs``."""
    name = Path(output_name(source.name))
    if target_libs == "hip":
        return name.name, f"{source.stem}.findings"
    return f"{name.stem}.roc{name.suffix}", f"{source.stem}.roc.findings"


CASES = [(source, target) for source in SOURCES for target in ("hip", "roc")
         if target == "hip" or family_of(source) in roc_families()]


def _port(source: Path, target_libs: str, tmp_path: Path) -> tuple[bytes, list[str]]:
    out = tmp_path / f"out-{target_libs}"
    convert_tree(source, out, ConvertOptions(target_libs=target_libs))
    report = json.loads((out / "hipport-report.json").read_text())
    return (out / output_name(source.name)).read_bytes(), findings_lines(report)


@dataclass(frozen=True)
class Deviation:
    """A known bug: where hipport's output or findings for a fixture differ from the expected
    (correct) ones. ``output``: (expected text, the text hipport writes instead) pairs, every
    occurrence; ``extra`` / ``missing``: findings lines hipport adds / leaves out; ``messages``:
    (expected text, hipport's text) pairs replaced in every expected findings line."""

    reason: str
    output: tuple[tuple[str, str], ...] = ()
    extra: tuple[str, ...] = ()
    missing: tuple[str, ...] = ()
    messages: tuple[tuple[str, str], ...] = ()


#: (fixture, target) -> its known bugs. The byte-exact tests of such a case are strict xfails
#: naming the bugs (a fix makes the run fail until the entry goes), and
#: test_known_bugs_are_the_only_differences pins hipport's current output down to them.
KNOWN_BUGS: dict[tuple[str, str], tuple[Deviation, ...]] = {}


def _bug(*cases: tuple[str, str], **fields) -> None:
    for case in cases:
        KNOWN_BUGS[case] = (*KNOWN_BUGS.get(case, ()), Deviation(**fields))


_bug(("cufft.cu", "hip"),
     reason="data: MAJOR_VERSION, MINOR_VERSION and PATCH_LEVEL (libraryPropertyType, library_types.h) are unknown "
            "to hipport and stay; hipfftGetProperty takes hipfftLibraryPropertyType (HIPFFT_MAJOR_VERSION...), "
            "so the port does not compile",
     output=(("hipfftGetProperty(HIPFFT_MAJOR_VERSION, &major)", "hipfftGetProperty(MAJOR_VERSION, &major)"),))
_bug(("cusolver.cu", "roc"),
     reason="data (from HIPIFY): cusolverDnSpotrf (and D/C/Z) is renamed to rocsolver_spotrf, which takes no "
            "workspace, lwork or devInfo (6 arguments, cuSOLVER has 8); rules/cusolver.yaml reports getrf/getrs, "
            "which differ the same way, as unsupported for rocSOLVER",
     output=(("CUSOLVER_CHECK(cusolverDnSpotrf(my_cusolverHandle,", "CUSOLVER_CHECK(rocsolver_spotrf(my_cusolverHandle,"),),
     extra=(),
     missing=("88:18 HP2001 error cusolverDnSpotrf (function, cusolver) has no rocSOLVER equivalent",))

def _cases(what: str) -> list:
    params = []
    for source, target in CASES:
        bugs = [b for b in KNOWN_BUGS.get((source.name, target), ())
                if (b.output if what == "output" else b.extra or b.missing or b.messages)]
        marks = [pytest.mark.xfail(strict=True, reason="; ".join(b.reason for b in bugs))] if bugs else []
        params.append(pytest.param(source, target, id=f"{source.name}-{target}", marks=marks))
    return params


@pytest.mark.parametrize("source, target_libs", _cases("output"))
def test_family_fixture_output(source, target_libs, tmp_path):
    ported, _ = _port(source, target_libs, tmp_path)
    assert ported == (EXPECTED / expected_names(source, target_libs)[0]).read_bytes()


@pytest.mark.parametrize("source, target_libs", _cases("findings"))
def test_family_fixture_findings(source, target_libs, tmp_path):
    _, findings = _port(source, target_libs, tmp_path)
    assert findings == (EXPECTED / expected_names(source, target_libs)[1]).read_text().splitlines()


def _position(line: str) -> tuple[int, int]:
    row, column = line.split(" ", 1)[0].split(":")
    return int(row), int(column)


@pytest.mark.parametrize("case", sorted(KNOWN_BUGS), ids=[f"{n}-{t}" for n, t in sorted(KNOWN_BUGS)])
def test_known_bugs_are_the_only_differences(case, tmp_path):
    name, target_libs = case
    source = FAMILIES / name
    ported, findings = _port(source, target_libs, tmp_path)
    output_file, findings_file = expected_names(source, target_libs)
    text = (EXPECTED / output_file).read_text(encoding="utf-8")
    lines = (EXPECTED / findings_file).read_text().splitlines()
    for bug in KNOWN_BUGS[case]:
        for right, wrong in bug.output:
            assert right in text, (bug.reason, right)
            text = text.replace(right, wrong)
        for line in bug.missing:
            lines.remove(line)
        for right, wrong in bug.messages:
            assert any(right in line for line in lines), (bug.reason, right)
            lines = [line.replace(right, wrong) for line in lines]
        lines = sorted([*lines, *bug.extra], key=_position)
    assert ported.decode("utf-8") == text
    assert findings == lines


def test_every_expected_file_belongs_to_a_case():
    wanted = {name for source, target in CASES for name in expected_names(source, target)}
    assert sorted(p.name for p in EXPECTED.iterdir()) == sorted(wanted)


# ------------------------------------------------------------------------------ coverage

_LEXEMES = re.compile(r"""//[^\n]*|/\*.*?\*/|R"\((?:.|\n)*?\)"|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'""", re.S)
_INCLUDE = re.compile(r"^[ \t]*#[ \t]*include[ \t]*[<\"]([^>\"]+)[>\"]", re.M)
_DIRECTIVE_TEXT = re.compile(r"^[ \t]*#[ \t]*(?:include|error|warning|pragma)\b[^\n]*", re.M)
#: An identifier that is not a member (``obj.name``, ``p->name``) nor part of a longer word.
_IDENTIFIER = re.compile(r"(?<![\w.])(?<!->)[A-Za-z_]\w*")


def used_names(text: str) -> tuple[set[str], set[str], str]:
    """(identifiers in code, headers named by #include, code text) of a fixture: comments,
    string and character literals and the text of #include/#error/#warning/#pragma lines are
    not code."""
    headers = set(_INCLUDE.findall(text))
    code = _DIRECTIVE_TEXT.sub("", _LEXEMES.sub(" ", text))
    return set(_IDENTIFIER.findall(code)), headers, code


def _namespace_used(name: str, code: str) -> bool:
    pattern = r"(?<![\w:])(?:::\s*)?" + r"\s*::\s*".join(map(re.escape, name.split("::"))) + r"\s*::"
    return re.search(pattern, code) is not None


def _present_and_used(family: str) -> dict[str, tuple[set[str], set[str]]]:
    rules = default_rules()
    identifiers, headers, code = set(), set(), ""
    for source in SOURCES:
        if family_of(source) == family:
            ids, incs, text = used_names(source.read_text(encoding="utf-8"))
            identifiers |= ids
            headers |= incs
            code += text
    present: dict[str, set[str]] = {"kind": set(), "status": set(), "roc status": set()}
    used: dict[str, set[str]] = {"kind": set(), "status": set(), "roc status": set()}
    tables = [(rules.identifiers, lambda n: n in identifiers), (rules.headers, lambda n: n in headers),
              (rules.namespaces, lambda n: _namespace_used(n, code))]
    for table, is_used in tables:
        for name, mapping in table.items():
            if mapping.family != family:
                continue
            facts = {"kind": mapping.kind, "status": mapping.status}
            if mapping.roc_library:
                facts["roc status"] = mapping.target("roc")[1]
            for what, value in facts.items():
                present[what].add(value)
                if is_used(name):
                    used[what].add(value)
    return {what: (present[what], used[what]) for what in present}


@pytest.mark.parametrize("family", sorted(default_rules().families))
def test_fixture_uses_every_kind_and_status_of_its_family(family):
    for what, (present, used) in _present_and_used(family).items():
        assert sorted(present - used) == [], f"{family}: no fixture name of {what} {sorted(present - used)}"


def test_every_family_has_a_fixture_and_every_fixture_a_family():
    families = set(default_rules().families)
    assert {family_of(s) for s in SOURCES} == families
    assert all(s.name in (f"{family_of(s)}{s.suffix}", f"{family_of(s)}{UNPORTED}{s.suffix}") for s in SOURCES)


# ------------------------------------------------------------------------------ compiling

#: Fixtures nvcc 12.4 compiles as they are (cuDNN's and NCCL's headers are not installed; the
#: removed names of the *_unported files are behind CUDA version tests, as real code has them).
CUDA_VALID = [s.name for s in SOURCES if family_of(s) not in ("cudnn", "nccl")]

#: Expected outputs that compile for gfx90a with HIP 6.4 and Debian sid's ROCm 6.4 libraries:
#: every non-_unported fixture, for each target it has, except
#: - libcudacxx.cu: it uses only libcu++, which HIP has no counterpart for (every name is reported);
#: - cudnn.cu: hipDNN (its HIP target) is packaged neither by ROCm 6.4 nor by Debian, and MIOpen's
#:   functions take other arguments than the cuDNN names HIPIFY maps to them, so a renamed cuDNN
#:   program is not expected to compile against MIOpen;
#: - cusolver.cu for roc: rocSOLVER has counterparts for 32 of cuSOLVER's 746 names, so the port
#:   keeps (and reports) most of its calls.
NOT_COMPILED_FOR_AMD = {"libcudacxx", "cudnn", ("cusolver", "roc")}
AMD_COMPILED = [(s, t) for s, t in CASES if UNPORTED not in s.stem and family_of(s) not in NOT_COMPILED_FOR_AMD
                and (family_of(s), t) not in NOT_COMPILED_FOR_AMD]


@pytest.mark.parametrize("name", CUDA_VALID)
def test_fixture_is_valid_cuda(toolchain, tmp_path, name):
    toolchain.compile_cuda(FAMILIES / name, tmp_path / "cuda.o", link=False, extra_flags=("-std=c++17",))
    assert (tmp_path / "cuda.o").stat().st_size > 0


#: Expected ports that do not compile for AMD because of a hipport or data bug (strict xfails).
AMD_COMPILE_BUGS: dict[tuple[str, str], str] = {
    ("cusparse.cu", "roc"): "a rename cannot port these calls to rocSPARSE: CUDA_R_32F becomes rocblas_datatype_f32_r "
                            "(cudaDataType has rocBLAS names; rocSPARSE wants rocsparse_datatype_f32_r); "
                            "rocsparse_sparse_to_dense, rocsparse_spmv and rocsparse_scsrilu0_analysis take other "
                            "arguments than their cuSPARSE names (buffer-size pointer, stage, two policies), and "
                            "rocsparse_scsrilu0_buffer_size writes a size_t where cuSPARSE writes an int",
    ("cublas.cu", "roc"): "a rename cannot port these calls to rocBLAS: cuComplex stays hipComplex (cuComplex has no "
                          "roc name) where rocblas_cgemm takes rocblas_float_complex; cublasGemmEx (19 arguments) "
                          "becomes rocblas_gemm_ex (24: a D matrix, solution index and flags), and "
                          "CUBLAS_COMPUTE_32F becomes rocblas_compute_type_f32, a rocblas_computetype where "
                          "rocblas_gemm_ex wants a rocblas_datatype",
    ("curand.cu", "roc"): "data: curandMakeMTGP32KernelState becomes rocrand_make_state_mtgp32, which takes no "
                          "kernel-parameter argument (4 arguments, CUDA has 5), and mtgp32_kernel_params_t, unknown "
                          "to hipport, stays (rocRAND: mtgp32_params); a rename cannot port these calls",
}


def _amd_cases() -> list:
    return [pytest.param(s, t, id=f"{s.name}-{t}",
                         marks=[pytest.mark.xfail(strict=True, raises=CompileError, reason=AMD_COMPILE_BUGS[(s.name, t)])]
                         if (s.name, t) in AMD_COMPILE_BUGS else [])
            for s, t in AMD_COMPILED]


@pytest.mark.parametrize("source, target_libs", _amd_cases())
def test_expected_port_compiles_for_amd(toolchain, amd_library_include, tmp_path, source, target_libs):
    ported = EXPECTED / expected_names(source, target_libs)[0]
    toolchain.compile_amd(ported, tmp_path / "amd.o", ["gfx90a"], extra_flags=("-std=c++17",))
    assert (tmp_path / "amd.o").stat().st_size > 0

"""HP2008 unknown-cuda-name: no CUDA-looking name passes silently (issue 10, point 3).

tests/fixtures/unknown_names/ is a two-file project: common/check.h declares the project's own
CUDA-looking names (a CUDA_CHECK macro, a cudaReportFailure function, a cuScalar typedef, a
cuMode enum with CU_MODE_* enumerators, a cudaBuffers struct with cudaData/cudaCount fields),
kernels.cu uses them next to CUDA names no rule knows (the template form of
cudaLaunchKernelEx, CU_MEM_ALLOCATION_COMP_GENERIC, atomicInc_system, the sm_20 intrinsic
__cvta_generic_to_shared (HIP 6.4.3 declares none), and a made-up name in a macro body), names in comments, strings and #if conditions, a name under a
project namespace and a suppressed use.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from helpers import CORPUS, FIXTURES
from hipport.cli import main
from hipport.convert import ConvertOptions, check_paths, check_tree, convert_tree
from hipport.rules import default_rules
from hipport.unknown_names import closest_names, known_names, looks_like_cuda

PROJECT = FIXTURES / "unknown_names"
MESSAGE = "{} looks like a CUDA name, but no hipport rule knows it: left unchanged; closest known names: {}"


def _hp2008(report) -> list[tuple[str, int, int, str, str]]:
    return [(f.path, f.line, f.column, f.name, f.message) for f in report.findings if f.rule_id == "HP2008"]


def test_exact_findings_of_the_project() -> None:
    report = check_tree(PROJECT, ConvertOptions(jobs=1))
    assert _hp2008(report) == [
        ("kernels.cu", 9, 48, "__cvta_generic_to_shared",
         "__cvta_generic_to_shared looks like a CUDA name, but no hipport rule knows it: left unchanged"),
        ("kernels.cu", 13, 46, "cudaPeekAtLastErrorTwice",
         MESSAGE.format("cudaPeekAtLastErrorTwice", "cudaPeekAtLastError, cudaGetLastError, cudnnGetLastErrorString")),
        ("kernels.cu", 22, 5, "cudaLaunchKernelEx",
         MESSAGE.format("cudaLaunchKernelEx", "cudaLaunchKernelExC, cudaLaunchKernel, cudaLaunch")),
        ("kernels.cu", 30, 23, "CU_MEM_ALLOCATION_COMP_GENERIC",
         MESSAGE.format("CU_MEM_ALLOCATION_COMP_GENERIC",
                        "CU_MEM_ALLOCATION_TYPE_PINNED, CU_MEM_LOCATION_TYPE_DEVICE, CU_MEM_ALLOCATION_TYPE_MAX")),
    ]
    # atomicInc_system, "seen unreported" in issue 10, is known now: HIP 6.4.3 lacks it (HP2001).
    lacking = next(f for f in report.findings if f.name == "atomicInc_system")
    assert (lacking.rule_id, lacking.severity, lacking.line, lacking.column) == ("HP2001", "error", 10, 5)
    assert lacking.message == (
        "atomicInc_system (function, cuda_device) has no HIP equivalent (HIP 6.4.3 declares no atomicInc_system, "
        "and its atomicInc is device-scoped (wrong for memory the host or another GPU updates meanwhile): write "
        "the increment as a loop on atomicCAS_system, which HIP declares.)")
    finding = next(f for f in report.findings if f.rule_id == "HP2008")
    assert (finding.rule_name, finding.severity) == ("unknown-cuda-name", "warning")
    assert finding.fingerprint  # suppressions and baselines work on it like on any finding


def test_names_the_tree_declares_elsewhere_are_reported_without_their_header() -> None:
    """The same kernels.cu checked alone: the names common/check.h declares are now unknown."""
    report = check_tree(PROJECT / "kernels.cu", ConvertOptions(jobs=1))
    assert [(line, name) for _, line, _, name, _ in _hp2008(report)] == [
        (9, "__cvta_generic_to_shared"), (13, "cudaPeekAtLastErrorTwice"),
        (15, "cudaBuffers"), (16, "cuScalar"), (22, "cudaLaunchKernelEx"), (23, "CUDA_CHECK"),
        (24, "cudaReportFailure"), (29, "CU_MODE_FAST"), (30, "CU_MEM_ALLOCATION_COMP_GENERIC"),
    ]


def test_check_paths_sees_the_declarations_of_every_path(monkeypatch) -> None:
    """As a pre-commit hook passes files: a name declared in one of them is not reported in another."""
    monkeypatch.chdir(PROJECT)
    report = check_paths([Path("kernels.cu"), Path("common/check.h")], ConvertOptions(jobs=1))
    assert [(f.path, f.line, f.name) for f in report.findings if f.rule_id == "HP2008"] == [
        ("kernels.cu", 9, "__cvta_generic_to_shared"),
        ("kernels.cu", 13, "cudaPeekAtLastErrorTwice"), ("kernels.cu", 22, "cudaLaunchKernelEx"),
        ("kernels.cu", 30, "CU_MEM_ALLOCATION_COMP_GENERIC")]
    alone = check_paths([Path("kernels.cu")], ConvertOptions(jobs=1))
    assert [f.name for f in alone.findings if f.rule_id == "HP2008"].count("CUDA_CHECK") == 1


def test_convert_reports_them_too(tmp_path: Path) -> None:
    result = convert_tree(PROJECT, tmp_path / "out", ConvertOptions(jobs=1))
    assert [(f.line, f.name) for f in result.report.findings if f.rule_id == "HP2008"] == [
        (9, "__cvta_generic_to_shared"), (13, "cudaPeekAtLastErrorTwice"),
        (22, "cudaLaunchKernelEx"), (30, "CU_MEM_ALLOCATION_COMP_GENERIC")]
    assert "HP2008" in (tmp_path / "out" / "hipport-report.md").read_text()


#: (code, the names reported in it). Each snippet is checked as a .cu file of its own.
MUST_FLAG = [
    ("void f() { cudaGraphMadeUp(nullptr); }", ["cudaGraphMadeUp"]),
    ("void f() { cuMadeUpDriverCall(0); }", ["cuMadeUpDriverCall"]),
    ("int x = CU_MADE_UP_ENUMERATOR;", ["CU_MADE_UP_ENUMERATOR"]),
    ("int x = CUDA_MADE_UP_CONSTANT;", ["CUDA_MADE_UP_CONSTANT"]),
    ("int x = CUB_MADE_UP;", ["CUB_MADE_UP"]),
    ("void f() { cublasMadeUp(); cusparseMadeUp(); curandMadeUp(); cufftMadeUp(); }",
     ["cublasMadeUp", "cusparseMadeUp", "curandMadeUp", "cufftMadeUp"]),
    ("void f() { cusolverDnMadeUp(); cudnnMadeUp(); nvrtcMadeUp(); ncclMadeUp(); }",
     ["cusolverDnMadeUp", "cudnnMadeUp", "nvrtcMadeUp", "ncclMadeUp"]),
    ("__device__ float f(float x) { return __nv_made_up(x); }", ["__nv_made_up"]),
    ("__global__ void k(unsigned* c) { atomicFetchMin_system(c, 4u); }", ["atomicFetchMin_system"]),
    ("__global__ void k(float* p) { p[0] = __ldmadeup(p); }", []),  # not a cache-load name
    ("__global__ void __cluster_dims__(2, 1, 1) k() {}", ["__cluster_dims__"]),
    ("#define PEEK() cudaMadeUpInMacro()\n", ["cudaMadeUpInMacro"]),
    ("void f() { int v = tex2DMadeUp<float>(0, 0.f, 0.f); }", ["tex2DMadeUp"]),
]
#: Code whose CUDA-looking names are never reported.
MUST_NOT_FLAG = [
    "void f() { cudaMalloc(nullptr, 4); cudaFree(nullptr); }",  # known, mapped
    "__global__ void k(int* p) { atomicAdd(p, 1); __syncthreads(); }",  # known, kept
    "__global__ __launch_bounds__(256) void k() {}",  # HIP's own keyword
    "__device__ __forceinline__ int f() { return 1; } __constant__ int c; __shared__ int s;",
    "// cudaOnlyInAComment\n/* cuOnlyInABlockComment */",
    'const char* s = "cudaOnlyInAString"; char c = \'c\';',
    "#include \"cudaProjectHeader.h\"\n#include <cudaSystemLikeHeader.h>",
    "#ifdef CUDA_PROJECT_OPTION\n#endif\n#if defined(CU_PROJECT_FLAG) && CUDA_LEVEL > 2\n#endif",
    "#undef CUDA_PROJECT_OPTION\n#pragma cuda_made_up",
    "int cudaStatus = 0; int g() { return cudaStatus; }",
    "void cudaHelper(int cudaArg) { cudaHelper(cudaArg); }",
    "struct cuThing { int cudaField; }; int g(cuThing t) { return t.cudaField; }",
    "typedef int cuIndex; using cudaSize = long; cuIndex i; cudaSize n;",
    "enum { CUDA_PROJECT_ONE = 1 }; int g() { return CUDA_PROJECT_ONE; }",
    "namespace cudaUtil { int x; } int g() { return cudaUtil::x; }",
    "int g() { return mylib::cudaScoped() + Outer<int>::cuInner; }",
    "#define CUDA_CALL(cudaExpr) (cudaExpr)\nint g() { return CUDA_CALL(1); }",
    "int g() { int a = 1; // hipport: ignore[HP2008]\n return cudaSuppressed(a); // hipport: ignore[HP2008]\n}",
    "template <typename cudaT> cudaT id(cudaT v) { return v; }",
    "#error cudaInAnErrorLine\n",
    'void g() { printf("%s\\n", __func__); }',  # C++'s own __word__ (seen in NVIDIA's cuda-samples)
]


def _check_snippet(tmp_path: Path, code: str) -> list[str]:
    source = tmp_path / "snippet.cu"
    source.write_text(code + "\n")
    return [f.name for f in check_tree(source, ConvertOptions(jobs=1)).findings if f.rule_id == "HP2008"]


@pytest.mark.parametrize("code, names", MUST_FLAG, ids=[names[0] if names else "none" for _, names in MUST_FLAG])
def test_must_flag(tmp_path: Path, code: str, names: list[str]) -> None:
    assert _check_snippet(tmp_path, code) == names


@pytest.mark.parametrize("code", MUST_NOT_FLAG)
def test_must_not_flag(tmp_path: Path, code: str) -> None:
    assert _check_snippet(tmp_path, code) == []


def test_known_names_and_patterns() -> None:
    rules = default_rules()
    known = known_names(rules)
    assert {"cudaMalloc", "tex2D", "__reduce_add_sync", "__global__", "cub", "atomicInc", "atomicInc_system"} <= known
    assert not {"cudaLaunchKernelEx", "__cvta_generic_to_shared"} & known
    assert "__grid_constant__" in known  # ported to HIPPORT_GRID_CONSTANT (HP1221)
    assert all(looks_like_cuda(n) for n in ("cudaX", "cuX", "CU_X", "CUDA_X", "CUB_X", "__nv_x", "cublasX",
                                            "nvtxRangePushA", "NVTX_VERSION", "atomicFoo", "__madeup__"))
    assert not any(looks_like_cuda(n) for n in ("cube", "cucumber", "occupancy", "atomic", "texture", "__x"))
    assert closest_names(rules, "cudaMallocc") == ("cudaMalloc", "cudaMalloc3D", "cudaMallocPitch")


def test_explain_knows_every_name_the_checks_report() -> None:
    """``hipport explain`` describes (exit 0) every construct of rules/constructs.yaml and every
    CUDA name that an API or construct finding of the corpus and of this project names; for a
    name HP2008 reports it says so, with the closest known names (exit 2: the name is unknown)."""
    rules = default_rules()
    api_checks = {"unsupported-api", "removed-api", "deprecated-api", "experimental-api",
                  *(c.check for c in rules.constructs.values())}
    findings = [*check_tree(PROJECT, ConvertOptions(jobs=1)).findings, *check_tree(CORPUS, ConvertOptions(jobs=1)).findings]
    names = {name for _, name in rules.constructs} | {f.name for f in findings if f.rule_name in api_checks}
    runner = CliRunner()
    failing = {name: result.output for name in sorted(names)
               if (result := runner.invoke(main, ["explain", name])).exit_code != 0}
    assert failing == {}
    unknown = {f.name for f in findings if f.rule_id == "HP2008"}
    assert unknown == {"__cvta_generic_to_shared", "cudaPeekAtLastErrorTwice", "cudaLaunchKernelEx",
                       "CU_MEM_ALLOCATION_COMP_GENERIC"} | CORPUS_UNKNOWN
    for name in sorted(unknown):
        result = runner.invoke(main, ["explain", name])
        assert result.exit_code == 2 and "hipport check reports it as HP2008 unknown-cuda-name" in result.output, name


#: The HP2008 names of the corpus (corpus/).
CORPUS_UNKNOWN: set[str] = set()


def test_explain_output_of_a_construct_and_an_unknown_name() -> None:
    runner = CliRunner()
    construct = runner.invoke(main, ["explain", "tex2D"])
    assert construct.exit_code == 0
    assert construct.output.splitlines()[:4] == [
        "CUDA        tex2D", "used as     identifier", "reported    HP1210 image-api-gfx94x (warning)",
        "see         hipport explain HP1210"]
    unknown = runner.invoke(main, ["explain", "cudaMemcpyBatchAsync"])
    assert unknown.exit_code == 2
    assert unknown.output == (
        "Error: 'cudaMemcpyBatchAsync' is neither a check id or name nor a CUDA name hipport knows (hipport check "
        "reports it as HP2008 unknown-cuda-name; closest known names: cudaMemcpyAsync, cudaMemcpy3DAsync, "
        "cudaMemcpy2DAsync); did you mean cudaMemcpyAsync, cudaMemcpy3DAsync, cudaMemcpy2DAsync?\n")


def test_close_matches_is_difflibs_answer():
    """close_matches stops early but returns difflib.get_close_matches' list (ties: larger string first)."""
    import difflib

    from hipport.unknown_names import close_matches

    names = ["cudaMalloc", "cudaMallocHost", "cudaMallocManaged", "cudaFree", "cudaMemcpy", "cudaMemset",
             "cudaMallocPitch", "cudaMalloc3D", "cudaMallocArray", "cudaMalloc_", "cudaMalloD"]
    assert close_matches("cudaMallc", names) == ["cudaMalloc", "cudaMalloc_", "cudaMalloc3D"]
    assert close_matches("cudaMallocx", names, n=2) == ["cudaMalloc", "cudaMalloc_"]
    assert close_matches("zzz", names) == []
    assert close_matches("", ["", "a", ""]) == difflib.get_close_matches("", ["", "a", ""]) == ["", ""]
    for word in ("cudaMallc", "cudaMemcp", "cudaMallocHst", "cudaFre", "cudaMalloc", "cudaMallocArr"):
        for n in (1, 2, 3, 5):
            assert close_matches(word, names, n=n) == difflib.get_close_matches(word, names, n=n, cutoff=0.6)


def test_lcs_length_is_the_longest_common_subsequence():
    """The bit-parallel LCS that bounds close_matches' ratios equals the textbook table's answer."""
    from hipport.unknown_names import _lcs_length

    def table_lcs(a: str, b: str) -> int:
        row = [0] * (len(b) + 1)
        for char in a:
            diagonal = 0
            for j, other in enumerate(b, 1):
                diagonal, row[j] = row[j], diagonal + 1 if char == other else max(row[j], row[j - 1])
        return row[-1]

    words = ["", "a", "cudaMalloc", "cudaMallocHost", "CUDART_VERSION", "abcabcabc", "cbacbacba", "xyz",
             "__shfl_down_sync", "CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK_WITH_A_NAME_LONGER_THAN_64_CHARACTERS"]
    for word in words:
        masks: dict[str, int] = {}
        for position, char in enumerate(word):
            masks[char] = masks.get(char, 0) | (1 << position)
        for other in words:
            assert _lcs_length(masks, len(word), other) == table_lcs(word, other), (word, other)


def test_close_matches_is_difflibs_answer_on_the_known_names():
    """Against the ~9,000 names of the shipped rules, close_matches returns difflib's list for
    misspellings of several kinds (the cases the unknown-name findings meet)."""
    import difflib

    from hipport.unknown_names import _by_prefix, close_matches

    rules = default_rules()
    by_prefix = _by_prefix(rules)
    for word in ("cudaMemcpyBatchAsync", "CUDA_R_8F_E4M3", "cudaGraphInstantiateWithParam", "CUDART_INF_F2",
                 "cublasLtMatmulDescCreat", "cub::WarpScn", "curandGenerateNormalDouble2", "cuMemAddressReserv",
                 "CU_TENSOR_MAP_DATA_TYPE_FLOAT8", "cudaStreamBeginCaptureToGraph", "__shfl_xor_syn"):
        possibilities = by_prefix.get(word[:3], ())
        assert possibilities, word
        assert close_matches(word, possibilities) == difflib.get_close_matches(word, possibilities, n=3, cutoff=0.6)

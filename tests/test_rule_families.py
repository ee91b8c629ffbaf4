"""Mapping data for every API family (rules/*.yaml): the files load, named entries hold exactly the
published facts, the counts match HIPIFY's tables, no name is reported twice, the importer
(tools/import_hipify_tables.py) reproduces its output byte for byte from small table excerpts
(tests/fixtures/hipify/), and a ported file using several libraries compiles for AMD."""

from __future__ import annotations

import importlib.util
import json
import shutil
import sys

import pytest

from helpers import FIXTURES, REPO
from hipport.convert import ConvertOptions, convert_tree
from hipport.counts import family_counts
from hipport.resources import data_dir
from hipport.rules import default_rules, load_rule_file

HIPIFY_FIXTURES = FIXTURES / "hipify"

GENERATED = ["cub", "cublas", "cublaslt", "cucomplex", "cuda_device", "cuda_driver", "cuda_runtime", "cudnn",
             "cufft", "curand", "cusolver", "cusparse", "nvrtc"]
HAND_WRITTEN = ["cooperative_groups", "cuda_macros", "libcudacxx", "nccl", "nvtx", "thrust"]


def _importer():
    """tools/import_hipify_tables.py as a module (tools/ is not a package)."""
    name = "import_hipify_tables"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, REPO / "tools" / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # dataclasses look their module up while the class is built
        spec.loader.exec_module(module)
    return sys.modules[name]


def test_every_family_file_loads():
    files = {p.stem: load_rule_file(p) for p in sorted(data_dir("rules").glob("*.yaml"))}
    families = {name: content.family for name, content in files.items() if content.family is not None}
    assert sorted(families) == sorted(GENERATED + HAND_WRITTEN)
    for name, family in families.items():
        assert family.id == name
        assert files[name].mappings, name
    for name in GENERATED:
        assert families[name].source.startswith("HIPIFY docs/tables/") and "014177bc, MIT licence" in families[name].source
    assert {n: f.roc_library for n, f in families.items() if f.roc_library} == {
        "cublas": "rocBLAS", "curand": "rocRAND", "cusparse": "rocSPARSE", "cusolver": "rocSOLVER", "cudnn": "MIOpen"}
    assert set(default_rules().families) == set(families)


#: HIPIFY's counts of the rows each generated file was made from (cuBLAS's table is split
#: between cublas and cublaslt: 979 + 494 = 1,473 rows, 759 + 85 = 844 mapped).
UPSTREAM = {
    "cub": ("CUB_API_supported_by_HIP.md", 70, 11, None),
    "cublas": ("CUBLAS_API_supported_by_HIP_and_ROC.md", 979, 759, 755),
    "cublaslt": ("CUBLAS_API_supported_by_HIP_and_ROC.md", 494, 85, 0),
    "cucomplex": ("cuComplex_API_supported_by_HIP.md", 26, 26, None),
    "cuda_device": ("CUDA_Device_API_supported_by_HIP.md", 818, 513, None),
    "cuda_driver": ("CUDA_Driver_API_functions_supported_by_HIP.md", 2008, 1105, None),
    "cuda_runtime": ("CUDA_Runtime_API_functions_supported_by_HIP.md", 1436, 920, None),
    "cudnn": ("CUDNN_API_supported_by_HIP_and_MIOPEN.md", 1162, 267, 555),
    "cufft": ("CUFFT_API_supported_by_HIP.md", 147, 87, None),
    "curand": ("CURAND_API_supported_by_HIP_and_ROC.md", 151, 117, 107),
    "cusolver": ("CUSOLVER_API_supported_by_HIP_and_ROC.md", 746, 342, 32),
    "cusparse": ("CUSPARSE_API_supported_by_HIP_and_ROC.md", 859, 684, 612),
    "nvrtc": ("CUDA_RTC_API_supported_by_HIP.md", 36, 27, None),
}

#: hipport's own counts (known names, mapped to HIP, mapped to ROC, headers). Above HIPIFY where
#: HIP 6.4.3 declares a name HIPIFY's table has none for (cuda_device: 32 device functions, the two
#: round-to-nearest bfloat16 conversions __float2bfloat16_rn/__float2bfloat162_rn through HIP's __float2bfloat16,
#: the 11 atomic*_block functions (to HIP's device-scope atomics) and atomicInc/Dec_system (unsupported), 4
#: bfloat16 types and 7 cuda_fp16.h/cuda_bf16.h typedefs such as nv_bfloat16 and nv_half, and __dp4a/__dp2a_lo/__dp2a_hi
#: (HP2042, definitions the port adds); cuda_macros: __grid_constant__ (HP1221); cuda_runtime +16 and cuda_driver +15 names HIP 6.4 added, less 2 HIPIFY names
#: HIP does not declare); cuda_device and cudnn leave out names other rule files report. cublas:
#: cublasGetStatusString gets hipBLAS's name, cublasSetWorkspace(_v2) (not in HIPIFY's table) are
#: added with their rocBLAS name, 2 HIPIFY rocBLAS status names are dropped; cusolver: 3 dropped,
#: cusolverSp{S,D}csrlsvqr get hipSOLVER 6.4's names. cub: 5 macros and CubVector get hipCUB 6.4's
#: names HIPIFY lacks, 7 cub/util_*.cuh headers hipCUB has are mapped. nvtx: hand-written (rocTX). cufft: 28 cufftXt names get
#: hipFFT 6.4's (hipfftXt.h, hiplibxt.h), and cudalibxt.h's 11 names and header are added (9 mapped to
#: hiplibxt.h's descriptors, the 2 copy-type names unsupported). cuda_driver: 21 JIT option, cache-mode and fallback names
#: HIPIFY lacks get hip/linker_types.h's, and cuuint32_t/cuuint64_t (not in HIPIFY's table) are added.
COUNTS = {
    "cub": (71, 17, None, 60), "cublas": (981, 823, 755, 4), "cublaslt": (494, 85, None, 1),
    "cucomplex": (26, 26, None, 1), "cuda_device": (834, 572, None, 15), "cuda_driver": (2010, 1141, None, 6),
    "cuda_runtime": (1436, 934, None, 15), "cudnn": (1160, 267, 555, 1), "cufft": (162, 124, None, 4),
    "curand": (151, 117, 111, 13), "cusolver": (746, 344, 29, 6), "cusparse": (859, 684, 612, 2),
    "nvrtc": (36, 27, None, 1), "nccl": (88, 77, None, 1), "thrust": (2, 2, None, 71),
    "libcudacxx": (0, 0, None, 52), "cuda_macros": (13, 13, None, 0), "cooperative_groups": (6, 0, None, 4),
    "nvtx": (60, 9, None, 8),
}


def test_upstream_counts_are_hipifys_and_hipport_maps_at_least_as_many():
    rules = default_rules()
    upstream = {f.id: f.upstream for f in rules.families.values() if f.upstream}
    assert {family: (u["table"], u["known"], u["mapped"], u.get("mapped_roc")) for family, u in upstream.items()} == UPSTREAM
    counts = {c.family: (c.known, c.mapped, c.mapped_roc, c.headers) for c in family_counts(rules)}
    assert counts == COUNTS
    # HIPIFY names the importer drops (HIP_FIXES: hip or roc None) because the headers contradict them.
    fixes = _importer().HIP_FIXES
    dropped = {(family, key): sum(1 for fix in fixes.get(family, {}).values() if key in fix and fix[key] is None)
               for family in UPSTREAM for key in ("hip", "roc")}
    for family, (_table, _known, mapped, mapped_roc) in UPSTREAM.items():
        assert counts[family][1] + dropped[family, "hip"] >= mapped, family
        assert mapped_roc is None or (counts[family][2] or 0) + dropped[family, "roc"] >= mapped_roc, family


def _entry(rules, name):
    mapping = rules.identifiers.get(name) or rules.namespaces.get(name) or rules.headers.get(name)
    return (mapping.family, mapping.hip, mapping.roc, mapping.kind, mapping.status, mapping.roc_status, mapping.versions)


@pytest.mark.parametrize("name, expected", [
    ("cudaMalloc", ("cuda_runtime", "hipMalloc", None, "function", "supported", "", {"hip_added": "1.5.0"})),
    ("cudaEventRecordDefault", ("cuda_runtime", "hipEventRecordDefault", None, "macro", "supported", "", {"cuda_added": "11.1"})),
    ("cudaBindTexture", ("cuda_runtime", "hipBindTexture", None, "function", "removed", "",
                         {"cuda_deprecated": "11.0", "cuda_removed": "12.0", "hip_added": "1.6.0", "hip_deprecated": "3.8.0"})),
    ("cuMemAlloc", ("cuda_driver", "hipMalloc", None, "function", "supported", "", {"hip_added": "1.5.0"})),
    ("CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR",
     ("cuda_driver", "hipDeviceAttributeMaxBlocksPerMultiProcessor", None, "enumerator", "supported", "",
      {"cuda_added": "11.0", "hip_added": "4.3.0"})),
    ("CUoccupancyB2DSize", ("cuda_driver", None, None, "type", "unsupported", "", {})),
    ("cuda.h", ("cuda_driver", "hip/hip_runtime.h", None, "header", "supported", "", {})),
    ("__bfloat162float", ("cuda_device", "__bfloat162float", None, "function", "supported", "", {"cuda_added": "11.0"})),
    ("__nv_bfloat16", ("cuda_device", "__hip_bfloat16", None, "type", "supported", "", {"cuda_added": "11.0", "hip_added": "3.5.0"})),
    ("__shfl_down", ("cuda_device", "__shfl_down", None, "function", "deprecated", "",
                     {"cuda_added": "7.5", "cuda_deprecated": "9.0", "hip_added": "1.6.0"})),
    ("__trap", ("cuda_device", None, None, "function", "unsupported", "", {})),
    ("cuda_bf16.h", ("cuda_device", "hip/hip_bf16.h", None, "header", "supported", "", {})),
    ("cuCaddf", ("cucomplex", "hipCaddf", None, "function", "supported", "", {"hip_added": "1.6.0"})),
    ("cuComplex.h", ("cucomplex", "hip/hip_complex.h", None, "header", "supported", "", {})),
    ("cublasSgemm", ("cublas", "hipblasSgemm", "rocblas_sgemm", "function", "supported", "",
                     {"hip_added": "1.8.2", "roc_added": "1.5.0"})),
    ("cublasSgemm_64", ("cublas", "hipblasSgemm_64", "rocblas_sgemm_64", "function", "experimental", "experimental",
                        {"cuda_added": "12.0", "hip_added": "6.3.0", "roc_added": "6.3.0"})),
    ("cublasContext", ("cublas", None, "_rocblas_handle", "type", "unsupported", "", {"roc_added": "1.5.0"})),
    ("cublas_v2.h", ("cublas", "hipblas/hipblas.h", "rocblas/rocblas.h", "header", "supported", "", {})),
    ("cublasLtMatmul", ("cublaslt", "hipblasLtMatmul", None, "function", "supported", "",
                        {"cuda_added": "10.1", "hip_added": "5.5.0"})),
    ("cublasLt.h", ("cublaslt", "hipblaslt/hipblaslt.h", None, "header", "supported", "", {})),
    ("curandStateSobol32", ("curand", "hiprandStateSobol32", "rocrand_state_sobol32", "type", "supported", "",
                            {"hip_added": "1.8.0", "roc_added": "1.5.0"})),
    ("curand_uniform", ("curand", "hiprand_uniform", "rocrand_uniform", "function", "supported", "",
                        {"hip_added": "1.5.0", "roc_added": "1.5.0"})),
    ("curand_kernel.h", ("curand", "hiprand/hiprand_kernel.h", "rocrand/rocrand_kernel.h", "header", "supported", "", {})),
    ("cufftPlan1d", ("cufft", "hipfftPlan1d", None, "function", "supported", "", {"hip_added": "1.7.0"})),
    ("cufftw.h", ("cufft", None, None, "header", "unsupported", "", {})),
    ("cusparseCreate", ("cusparse", "hipsparseCreate", "rocsparse_create_handle", "function", "supported", "",
                        {"hip_added": "1.9.2", "roc_added": "1.9.0"})),
    ("cusparseScsrmv", ("cusparse", "hipsparseScsrmv", "rocsparse_scsrmv", "function", "removed", "removed",
                        {"cuda_deprecated": "10.2", "cuda_removed": "11.0", "hip_added": "1.9.2", "hip_deprecated": "3.9.0",
                         "roc_added": "1.9.0"})),
    ("cusolverDnSgetrf", ("cusolver", "hipsolverDnSgetrf", None, "function", "supported", "", {"hip_added": "5.1.0"})),
    ("cusolverSp.h", ("cusolver", "hipsolver/hipsolver.h", None, "header", "supported", "", {})),
    ("cudnnConvolutionForward", ("cudnn", "hipdnnConvolutionForward", "miopenConvolutionForward", "function", "deprecated",
                                 "deprecated", {"cuda_added": "1.0.0", "cuda_deprecated": "9.0.0", "roc_added": "2.1.0"})),
    ("CUDNN_STATUS_SUCCESS", ("cudnn", "HIPDNN_STATUS_SUCCESS", "miopenStatusSuccess", "enumerator", "supported", "",
                              {"cuda_added": "1.0.0", "roc_added": "2.1.0"})),
    ("cudnn.h", ("cudnn", "hipdnn.h", "miopen/miopen.h", "header", "supported", "", {})),
    ("CubDebug", ("cub", "HipcubDebug", None, "macro", "supported", "", {"hip_added": "2.5.0"})),
    ("cub", ("cub", "hipcub", None, "namespace", "supported", "", {})),
    ("cub/block/block_reduce.cuh", ("cub", "hipcub/block/block_reduce.hpp", None, "header", "supported", "", {})),
    ("nvrtcCreateProgram", ("nvrtc", "hiprtcCreateProgram", None, "function", "supported", "",
                            {"cuda_changed": "8.0", "hip_added": "2.6.0"})),
    ("nvrtc.h", ("nvrtc", "hip/hiprtc.h", None, "header", "supported", "", {})),
    ("ncclAllReduce", ("nccl", "ncclAllReduce", None, "function", "supported", "", {})),
    ("ncclCommSplit", ("nccl", "ncclCommSplit", None, "function", "supported", "", {})),
    ("ncclCommShrink", ("nccl", None, None, "function", "unsupported", "", {})),
    ("nccl.h", ("nccl", "rccl/rccl.h", None, "header", "supported", "", {})),
    ("thrust::cuda", ("thrust", "thrust::hip", None, "namespace", "supported", "", {})),
    ("thrust/system/cuda/execution_policy.h",
     ("thrust", "thrust/system/hip/execution_policy.h", None, "header", "supported", "", {})),
    ("thrust/sort.h", ("thrust", "thrust/sort.h", None, "header", "supported", "", {})),
    ("cuda/std/type_traits", ("libcudacxx", None, None, "header", "unsupported", "", {})),
])
def test_named_entries(name, expected):
    assert _entry(default_rules(), name) == expected


def test_notes_say_where_a_fact_differs_from_hipify():
    rules = default_rules()
    assert rules.identifiers["__bfloat162float"].note == (
        "Declared in HIP 6.4.3's hip/amd_detail/amd_hip_bf16.h (included by hip/hip_bf16.h) although HIPIFY's "
        "table lists no HIP name.")
    assert rules.identifiers["CUoccupancyB2DSize"].note == (
        "HIPIFY maps this callback type to void*, but HIP 6.4 has no block-size to shared-memory callback: "
        "hipModuleOccupancyMaxPotentialBlockSize takes none.")
    assert rules.identifiers["cudaEventRecordDefault"].note == (
        "HIPIFY's table lists no HIP name; HIP 6.4.3's hip/hip_runtime_api.h declares hipEventRecordDefault, "
        "with the same value.")
    assert rules.identifiers["ncclCommSplit"].note == (
        "Declared by RCCL's nccl.h of the ROCm 6.3/6.4 development line (NCCL 2.21 API); Debian's older "
        "librccl-dev 5.4.3 lacks it.")


def test_names_several_families_list_have_the_same_effect_and_count_in_each():
    rules = default_rules()
    repeated = sorted((m.cuda, m.family, rules.identifiers[m.cuda].family) for m in rules.repeats)
    assert repeated == [
        ("CUeglStreamConnection_st", "cuda_runtime", "cuda_driver"), ("CUevent_st", "cuda_runtime", "cuda_driver"),
        ("CUgraphExec_st", "cuda_runtime", "cuda_driver"), ("CUgraphNode_st", "cuda_runtime", "cuda_driver"),
        ("CUgraph_st", "cuda_runtime", "cuda_driver"), ("CUkern_st", "cuda_runtime", "cuda_driver"),
        ("CUstream_st", "cuda_runtime", "cuda_driver"), ("CUuuid_st", "cuda_runtime", "cuda_driver"),
        ("__CUDACC__", "cuda_macros", "cuda_driver"),
    ]


def test_no_name_is_reported_twice():
    """A construct (rules/constructs.yaml) raises its own check; a mapping of the same name that
    is not plainly supported would add an HP2001-HP2004 finding for the same token."""
    rules = default_rules()
    # Known exception, older than these families: the runtime table's deprecated
    # cudaLaunchCooperativeKernelMultiDevice is reported as deprecated (HP2003) and by check
    # cooperative-multi-device (HP1208), which says what to do instead.
    known = {("identifier", "cudaLaunchCooperativeKernelMultiDevice")}
    for (where, name), construct in rules.constructs.items():
        mapping = rules.headers.get(name) if where == "header" else rules.identifiers.get(name)
        if mapping is not None and (where, name) not in known:
            assert rules.target(mapping)[1] == "supported", (name, construct.check)
            assert mapping.target("roc")[1] == "supported", (name, construct.check)


LIBRARY_SOURCE = """\
#include <cublas_v2.h>
#include <cub/cub.cuh>
#include <thrust/sort.h>
#include <thrust/system/cuda/execution_policy.h>
#include <cuda/std/type_traits>
#include <cuda/atomic>
#include <nccl.h>

void run(cublasHandle_t handle, float* a, int n, ncclComm_t comm, cudaStream_t stream) {
  cublasCreate(&handle);
  cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, nullptr, a, n, a, n, nullptr, a, n);
  thrust::sort(thrust::cuda::par.on(stream), a, a + n);
  size_t bytes = 0;
  cub::DeviceReduce::Sum(nullptr, bytes, a, a, n, stream);
  ncclAllReduce(a, a, n, ncclFloat, ncclSum, comm, stream);
}
"""

PORTED = {
    "hip": ("#include <hipblas/hipblas.h>", "hipblasHandle_t handle", "hipblasCreate(&handle);",
            "hipblasSgemm(handle, HIPBLAS_OP_N, HIPBLAS_OP_N,"),
    "roc": ("#include <rocblas/rocblas.h>", "rocblas_handle handle", "rocblas_create_handle(&handle);",
            "rocblas_sgemm(handle, rocblas_operation_none, rocblas_operation_none,"),
}


def _port(tmp_path, target_libs):
    src = tmp_path / "src"
    src.mkdir()
    (src / "lib.cu").write_text(LIBRARY_SOURCE)
    out = tmp_path / f"out-{target_libs}"
    convert_tree(src, out, ConvertOptions(target_libs=target_libs))
    report = json.loads((out / "hipport-report.json").read_text())
    return out / "lib.hip", [f"{f['line']}:{f['column']} {f['rule_id']} {f['name']}" for f in report["findings"]]


@pytest.mark.parametrize("target_libs", ["hip", "roc"])
def test_library_calls_port_to_the_chosen_libraries(tmp_path, target_libs):
    ported, findings = _port(tmp_path, target_libs)
    header, handle, create, gemm = PORTED[target_libs]
    assert ported.read_text() == (
        "#include <hip/hip_runtime.h>\n"
        f"{header}\n"
        "#include <hipcub/hipcub.hpp>\n"
        "#include <thrust/sort.h>\n"
        "#include <thrust/system/hip/execution_policy.h>\n"
        "#include <cuda/std/type_traits>\n"
        "#include <cuda/atomic>\n"
        "#include <rccl/rccl.h>\n"
        "\n"
        f"void run({handle}, float* a, int n, ncclComm_t comm, hipStream_t stream) {{\n"
        f"  {create}\n"
        f"  {gemm} n, n, n, nullptr, a, n, a, n, nullptr, a, n);\n"
        "  thrust::sort(thrust::hip::par.on(stream), a, a + n);\n"
        "  size_t bytes = 0;\n"
        "  hipcub::DeviceReduce::Sum(nullptr, bytes, a, a, n, stream);\n"
        "  ncclAllReduce(a, a, n, ncclFloat, ncclSum, comm, stream);\n"
        "}\n")
    # libcu++: the header the constructs check covers is reported once by it (HP1204), any
    # other libcu++ header once as unsupported (HP2001).
    assert findings == ["5:10 HP2001 cuda/std/type_traits", "6:10 HP1204 cuda/atomic"]


@pytest.mark.parametrize("target_libs", ["hip", "roc"])
def test_ported_library_calls_compile_for_amd(toolchain, amd_library_include, tmp_path, target_libs):
    ported, _ = _port(tmp_path, target_libs)
    # libcu++ has no AMD counterpart (reported above); leave its two includes out to compile the rest.
    source = tmp_path / "lib_no_libcudacxx.hip"
    source.write_text("".join(line for line in ported.read_text().splitlines(keepends=True) if "<cuda/" not in line))
    toolchain.compile_amd(source, tmp_path / "lib.o", ["gfx90a"])
    assert (tmp_path / "lib.o").stat().st_size > 0


def test_header_entries_name_files_the_hip_and_rocm_packages_have(toolchain, amd_library_include):
    roots = [toolchain.hip_amd_include, toolchain.amd_library_include]
    missing = []
    for mapping in default_rules().headers.values():
        for name in (mapping.hip, mapping.roc):
            # hipdnn.h: the archived ROCm/hipDNN, which neither ROCm 6.4 nor Debian ships (see rules/cudnn.yaml).
            if name and name != "hipdnn.h" and not any((root / name).is_file() for root in roots):
                missing.append(f"{mapping.cuda} -> {name}")
    assert missing == []


# ------------------------------------------------------------------------------ importer

IMPORTER_CASES = {
    # family: (read the fixture's small CUDA headers, start from an earlier output with a hand tail)
    "cuda_runtime": (True, True),
    "cublas": (True, False),
    "cublaslt": (False, False),
    "cuda_device": (False, False),
    "curand": (False, False),
}


@pytest.mark.parametrize("family_id", sorted(IMPORTER_CASES))
def test_importer_reproduces_its_output_byte_for_byte(tmp_path, family_id):
    imp = _importer()
    read_headers, existing = IMPORTER_CASES[family_id]
    family = imp.FAMILIES[family_id]
    output = tmp_path / f"{family_id}.yaml"
    if existing:
        shutil.copy(HIPIFY_FIXTURES / "existing" / f"{family_id}.yaml", output)
    text = imp.generate(family, HIPIFY_FIXTURES / "tables" / family.table, output,
                        [HIPIFY_FIXTURES / "include"] if read_headers else None)
    assert text == (HIPIFY_FIXTURES / "expected" / f"{family_id}.yaml").read_text()
    output.write_text(text)
    load_rule_file(output)  # and the schema accepts it
    # A second run over its own output changes nothing (the hand tail and notes are kept).
    assert imp.generate(family, HIPIFY_FIXTURES / "tables" / family.table, output,
                        [HIPIFY_FIXTURES / "include"] if read_headers else None) == text


def test_importer_reads_the_roc_block_and_counts_hipifys_rows():
    imp = _importer()
    rows = imp.parse_table(HIPIFY_FIXTURES / "tables" / "CUBLAS_API_supported_by_HIP_and_ROC.md")
    sgemm = next(r for r in rows if r.cuda == "cublasSgemm_64")
    assert (sgemm.hip, sgemm.hip_versions, sgemm.experimental) == ("hipblasSgemm_64", ("6.3.0", "", "", ""), "6.3.0")
    assert (sgemm.roc, sgemm.roc_versions, sgemm.roc_experimental) == ("rocblas_sgemm_64", ("6.3.0", "", "", ""), "6.3.0")
    assert imp.derive_status(sgemm) == imp.derive_roc_status(sgemm) == "experimental"
    lt = imp.select_rows(rows, imp.FAMILIES["cublaslt"])
    assert [r.cuda for r in lt] == ["CUBLASLT_EPILOGUE_BGRADA", "CUBLASLT_MATMUL_TILE_8x128",
                                    "CUBLASLT_MATMUL_TILE_8x64", "cublasLtCreate"]
    assert imp.upstream_counts(lt, "T.md") == {"table": "T.md", "known": 4, "mapped": 2, "mapped_roc": 0}
    runtime = imp.parse_table(HIPIFY_FIXTURES / "tables" / "CUDA_Runtime_API_functions_supported_by_HIP.md")
    assert runtime[0].roc is None
    assert imp.upstream_counts(runtime, "R.md") == {"table": "R.md", "known": 10, "mapped": 8}


def test_library_caps_kind():
    imp = _importer()
    assert imp.library_caps_kind("CUDNN_DATA_HALF", ["CUDNN_DATA_FLOAT", "CUDNN_DEFAULT_MATH"]) == "enumerator"
    assert imp.library_caps_kind("CUDNN_DIM_MAX", ["CUDNN_DEFAULT_MATH", "CUDNN_DIVNORM_PRECOMPUTED_MEANS"]) == "macro"
    assert imp.library_caps_kind("CUDNN_MAJOR", ["CUDNN_MAJOR_X"]) == "macro"
    assert imp.library_caps_kind("__CUB_LP64__", ["__CUB_ALIGN_BYTES"]) == "macro"

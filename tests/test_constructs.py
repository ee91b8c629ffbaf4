"""CUDA-only constructs from rules/constructs.yaml, and dynamic parallelism."""

from __future__ import annotations

import json

import pytest

from hipport.convert import convert_tree
from hipport.rules import RuleError, load_rules
from hipport.resources import data_dir


def findings_of(tmp_path, body, name="k.cu"):
    (tmp_path / "src").mkdir(exist_ok=True)
    src = tmp_path / "src" / name
    src.write_text(body)
    convert_tree(src.parent, tmp_path / "out")
    report = json.loads((tmp_path / "out" / "hipport-report.json").read_text())
    return [f"{f['line']}:{f['column']} {f['rule_id']} {f['message']}" for f in report["findings"]]


def test_constructs_are_reported(tmp_path):
    findings = findings_of(tmp_path, (
        "#include <cuda/atomic>\n"
        "#include <mma.h>\n"
        "#include <cuda_fp8.h>\n"
        "__managed__ int flag;\n"
        "__global__ void k(float* p) {\n"
        "  __nanosleep(100);\n"
        "  nvcuda::wmma::fragment<nvcuda::wmma::accumulator, 16, 16, 16, float> acc;\n"
        "  cuda::atomic<int> counter;\n"
        "  __nv_fp8_e4m3 x(1.5f);\n"
        "}\n"
        "void host(float** p) { cudaMallocManaged(p, 64); }\n"))
    assert findings == [
        "1:10 HP1204 cuda/atomic: libcu++ (the cuda:: library) has no HIP counterpart",
        "2:10 HP1205 mma.h: CUDA warp matrix functions (nvcuda::wmma) do not exist in HIP",
        "3:10 HP1206 cuda_fp8.h: CUDA's FP8 types have different names and encodings in HIP",
        "4:1 HP1201 __managed__: managed memory migrates pages on demand on AMD GPUs only with XNACK enabled",
        "6:3 HP1203 __nanosleep: HIP has no __nanosleep",
        "7:3 HP1205 nvcuda: CUDA warp matrix functions (nvcuda::wmma) do not exist in HIP",
        "7:26 HP1205 nvcuda: CUDA warp matrix functions (nvcuda::wmma) do not exist in HIP",
        "8:3 HP1204 cuda: libcu++ (the cuda:: library) has no HIP counterpart",
        "9:3 HP1206 __nv_fp8_e4m3: CUDA's FP8 types have different names and encodings in HIP",
        "11:24 HP1201 cudaMallocManaged: managed memory migrates pages on demand on AMD GPUs only with XNACK enabled",
    ]


def test_dynamic_parallelism(tmp_path):
    findings = findings_of(tmp_path, (
        "__global__ void child(int* d) { d[0] = 1; }\n"
        "__global__ void parent(int* d) {\n"
        "  child<<<1, 64>>>(d);\n"
        "  cudaDeviceSynchronize();\n"
        "}\n"
        "__device__ void helper(int* d) { child<<<1, 1>>>(d); }\n"
        "void host(int* d) { child<<<1, 1>>>(d); cudaDeviceSynchronize(); }\n"))
    assert findings == [
        "3:8 HP1202 <<< in device code (parent): HIP has no dynamic parallelism",
        "4:3 HP1202 cudaDeviceSynchronize in device code (parent): HIP has no dynamic parallelism",
        "6:39 HP1202 <<< in device code (helper): HIP has no dynamic parallelism",
    ]


@pytest.mark.parametrize("body", [
    "int cuda = 3;\n",                                        # a variable named cuda, not the namespace
    'const char* s = "__managed__ cudaMallocManaged";\n',
    "// nvcuda::wmma in a comment\n",
    '#include "mma.h"\n',                                       # a project file of that name (below)
])
def test_not_flagged(tmp_path, body):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "mma.h").write_text("// the project's own mma.h\n")
    assert [f for f in findings_of(tmp_path, body, "k.cpp") if " HP12" in f] == []


def test_construct_naming_an_unknown_check_is_refused(tmp_path):
    rules_dir = tmp_path / "rules"
    rules_dir.mkdir()
    for path in data_dir("rules").glob("*.yaml"):
        (rules_dir / path.name).write_bytes(path.read_bytes())
    constructs = rules_dir / "constructs.yaml"
    constructs.write_text(constructs.read_text().replace("check: nanosleep", "check: nanosleeep"))
    with pytest.raises(RuleError, match=r"constructs.yaml:\d+: '__nanosleep' names the check 'nanosleeep'"):
        load_rules(sorted(rules_dir.glob("*.yaml")))


def test_surface_references_and_multi_device_cooperative_launches(tmp_path):
    findings = findings_of(tmp_path, (
        "surface<void, 2> output_surface;\n"
        "int surface = 2;\n"
        "void launch(cudaLaunchParams* p, int n) { cudaLaunchCooperativeKernelMultiDevice(p, n); }\n"))
    assert [f.split(":")[0] + ":" + f.split(":")[1].split(" ")[0] + " " + f.split(" ")[1] for f in findings] == [
        "1:1 HP1207", "3:43 HP1208", "3:43 HP2003"]


def test_warp_synchronous_last_warp(tmp_path):
    findings = findings_of(tmp_path, (
        "__global__ void r(float* sdata) {\n"
        "  unsigned tid = threadIdx.x;\n"
        "  if (tid < 32) {\n"
        "    volatile float* s = sdata;\n"
        "    s[tid] += s[tid + 32]; s[tid] += s[tid + 16];\n"
        "  }\n"
        "  if (tid < 32) { sdata[tid] += sdata[tid + 16]; __syncwarp(); }\n"
        "}\n"))
    assert [f for f in findings if "HP1110" in f] == [
        "3:3 HP1110 warp-synchronous code under tid < 32 with no __syncwarp or __syncthreads: "
        "it assumes the 32 lanes of a warp run in lockstep"]


def test_effort_grades():
    from hipport.findings import Finding
    from hipport.report import effort

    def f(severity):
        return Finding("a", 1, 1, "HP0000", "x", severity, "m", "f")

    assert [effort([]), effort([f("info")] * 9), effort([f("warning")]), effort([f("warning")] * 3),
            effort([f("error")]), effort([f("error")] * 2 + [f("warning")] * 3), effort([f("error")] * 3)] == [
        "none", "none", "low", "low", "medium", "medium", "high"]


def test_cuda_version_macros_are_reported_and_guards_mapped(tmp_path):
    findings = findings_of(tmp_path, (
        "#if __CUDA_ARCH__ >= 700\n"
        "int fast = 1;\n"
        "#endif\n"
        "#if CUDART_VERSION >= 11000 && defined(__CUDACC__)\n"
        "int modern = 1;\n"
        "#endif\n"), name="v.cpp")
    assert [f.split(" ")[0] + " " + f.split(" ")[1] for f in findings] == ["1:5 HP1209", "4:5 HP1209"]
    assert (tmp_path / "out" / "v.cpp").read_text().splitlines()[3] == "#if CUDART_VERSION >= 11000 && defined(__HIPCC__)"


def test_cooperative_groups_headers_hip_lacks_are_reported(tmp_path):
    findings = findings_of(tmp_path, "#include <cooperative_groups.h>\n#include <cooperative_groups/reduce.h>\n")
    assert findings == ["2:10 HP2001 cooperative_groups/reduce.h (header, cooperative_groups) has no HIP equivalent "
                        "(HIP 6.4 has no cooperative_groups::reduce; reduce a tile with shfl_down over its size)"]
    assert (tmp_path / "out" / "k.hip").read_text() == (
        "#include <hip/hip_runtime.h>\n#include <hip/hip_cooperative_groups.h>\n#include <cooperative_groups/reduce.h>\n")


def test_texture_and_surface_functions_warn_about_gfx94x(tmp_path):
    findings = findings_of(tmp_path, (
        "__global__ void k(cudaTextureObject_t t, cudaSurfaceObject_t s, float *out) {\n"
        "  float v = tex2D<float>(t, 0.5f, 0.5f) + tex1Dfetch<float>(t, 3);\n"
        "  surf2Dwrite(v, s, 0, 0);\n"
        "  int tex2Dcount = 0;  // tex2D in a comment; a longer name is not the function\n"
        "}\n"))
    message = ("reads or writes through the texture/image hardware, which gfx940, gfx941 and gfx942 (MI300) lack: "
               "the port's CMake build leaves them out of the offload architectures of the targets that compile it")
    assert findings == [f"2:13 HP1210 tex2D {message}", f"2:43 HP1210 tex1Dfetch {message}",
                        f"3:3 HP1210 surf2Dwrite {message}"]


def test_hip_rejects_texture_functions_for_gfx942_only(toolchain, tmp_path):
    source = tmp_path / "t.hip"
    source.write_text("#include <hip/hip_runtime.h>\n"
                      "__global__ void k(hipTextureObject_t t, float *out) { out[0] = tex2D<float>(t, 0.5f, 0.5f); }\n")
    toolchain.compile_amd(source, tmp_path / "ok.o", ("gfx90a", "gfx1030", "gfx1100"))
    assert toolchain.code_object_targets(tmp_path / "ok.o") == [
        "hipv4-amdgcn-amd-amdhsa--gfx1030", "hipv4-amdgcn-amd-amdhsa--gfx1100", "hipv4-amdgcn-amd-amdhsa--gfx90a"]
    from hipport.toolchain import CompileError
    with pytest.raises(CompileError, match="image/texture API not supported on the device"):
        toolchain.compile_amd(source, tmp_path / "bad.o", ("gfx942",))

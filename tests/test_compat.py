"""``hipport convert --compat``: the CUDA sources stay as written, the compat header maps exactly
the names the tree uses, a re-run regenerates it, and the corpus builds from the same unchanged
``.cu`` files for AMD (gfx90a, gfx1100), HIP on NVIDIA and plain CUDA (sm_90)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from hipport import __version__
from hipport.compat import compat_tree
from hipport.convert import ConvertOptions

from helpers import CORPUS, CORPUS_EXCLUDE, FIXTURES, findings_lines

SMALL = FIXTURES / "compat" / "small.cu"
CORPUS_PROGRAMS = ("multi_file", "shared_reduce", "stream_events", "template_namespace", "vector_add")

EXPECTED_SMALL_HEADER = f"""\
// hipport_compat.h: written by hipport {__version__} (hipport convert --compat); a new run rewrites it.
// Maps the 11 CUDA names this tree uses to HIP when compiled as HIP for AMD; maps nothing
// under nvcc (CUDA, or HIP on NVIDIA, where the CUDA names are CUDA's own).
// CUDA headers (hipport_compat/ on the AMD include path): cuda_runtime.h -> hip/hip_runtime.h
// After each mapping: its rule family, then the CUDA and HIP releases the names appeared in
// (rules/*.yaml, from HIPIFY's tables; (not recorded): the rule records no release).
#ifndef HIPPORT_COMPAT_H
#define HIPPORT_COMPAT_H
#if defined(__HIP__) || defined(__HIP_PLATFORM_AMD__)
#include <hip/hip_runtime.h>
template <typename... A> inline hipError_t hipport_cudaEventCreate(A&&... args) {{ return hipEventCreate(static_cast<A&&>(args)...); }}
template <typename A0, typename A1> inline hipError_t hipport_cudaEventCreate(A0&& a0, A1&& a1) {{ return hipEventCreateWithFlags(static_cast<A0&&>(a0), static_cast<A1&&>(a1)); }}
#define cudaError_t hipError_t  // cuda_runtime; CUDA (not recorded), HIP 1.5.0
#define cudaEventCreate hipport_cudaEventCreate  // cuda_runtime; CUDA (not recorded), HIP 1.6.0
#define cudaEventDisableTiming hipEventDisableTiming  // cuda_runtime; CUDA (not recorded), HIP 1.6.0
#define cudaEvent_t hipEvent_t  // cuda_runtime; CUDA (not recorded), HIP 1.6.0
#define cudaFree hipFree  // cuda_runtime; CUDA (not recorded), HIP 1.5.0
#define cudaGetErrorString hipGetErrorString  // cuda_runtime; CUDA (not recorded), HIP 1.6.0
#define cudaMalloc hipMalloc  // cuda_runtime; CUDA (not recorded), HIP 1.5.0
#define cudaStreamCreate hipStreamCreate  // cuda_runtime; CUDA (not recorded), HIP 1.6.0
#define cudaStreamSynchronize hipStreamSynchronize  // cuda_runtime; CUDA (not recorded), HIP 1.6.0
#define cudaStream_t hipStream_t  // cuda_runtime; CUDA (not recorded), HIP 1.5.0
#define cudaSuccess hipSuccess  // cuda_runtime; CUDA (not recorded), HIP 1.5.0
#elif defined(__HIP_PLATFORM_NVIDIA__)
#include <hip/hip_runtime.h>
#endif
#endif
"""


def test_header_maps_exactly_the_names_used(tmp_path):
    """One line per CUDA name used in code (not cudaMemset of the comment nor cudaDeviceReset of
    the string); __CUDACC__ is left out (HP1402)."""
    out = tmp_path / "out"
    result = compat_tree(SMALL, out)
    assert (out / "hipport_compat.h").read_text() == EXPECTED_SMALL_HEADER
    assert (out / "hipport_compat" / "cuda_runtime.h").read_text() == (
        f"// cuda_runtime.h for HIP on AMD: written by hipport {__version__} (hipport convert --compat).\n"
        "#pragma once\n#include <hip/hip_runtime.h>\n#include \"../hipport_compat.h\"\n")
    assert result.report.generated == ["hipport_compat.h", "hipport_compat/cuda_runtime.h", "CMakeLists.txt",
                                       "cmake/HipportPlatform.cmake"]


def test_sources_are_kept_byte_for_byte(tmp_path):
    out = tmp_path / "out"
    compat_tree(CORPUS, out, ConvertOptions(exclude=CORPUS_EXCLUDE))
    sources = sorted(p.relative_to(CORPUS) for p in CORPUS.rglob("*") if p.is_file() and "projects" not in p.parts)
    assert sources and all((out / rel).read_bytes() == (CORPUS / rel).read_bytes() for rel in sources)
    assert not list(out.rglob("*.hip"))


def test_findings_of_what_a_macro_cannot_express(tmp_path):
    import json

    out = tmp_path / "out"
    compat_tree(SMALL, out)
    report = json.loads((out / "hipport-report.json").read_text())
    # the 2-argument cudaEventCreate of line 17 is an overload of the header, not HP1401
    assert findings_lines(report) == [
        "5:8 HP1402 warning __CUDACC__ is not defined by hipport_compat.h (HIP's own headers test it to find the "
        "NVIDIA backend), so code under #if __CUDACC__ is left out of the HIP build for AMD",
    ]


def test_calls_hip_templates_take_as_written_are_not_reported(tmp_path):
    """shared_reduce passes a kernel template to cudaOccupancyMaxActiveBlocksPerMultiprocessor:
    convert casts it to const void*, HIP's template overload takes it as written."""
    out = tmp_path / "out"
    result = compat_tree(CORPUS / "shared_reduce", out)
    assert [f.rule_id for s in result.report.files for f in s.findings] == []


def test_header_lines_name_the_cuda_and_hip_releases(tmp_path):
    """Each line names the CUDA release its name appeared in (cuDNN's for cuDNN names) and the HIP
    release, from the rules' cuda_added/hip_added fields (HIPIFY's tables: cudaMallocAsync
    11.2/5.2.0, cudaMemAdvise 8.0/3.7.0; cudaMemcpyToArray deprecated in CUDA 10.1)."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.cu").write_text("#include <cuda_runtime.h>\n"
                              "void f(void** p, cudaStream_t s) { cudaMallocAsync(p, 4, s); cudaMemAdvise(*p, 4, "
                              "cudaMemAdviseSetReadMostly, 0); }\n"
                              "void g(cudaArray_t a, const void* h) { cudaMemcpyToArray(a, 0, 0, h, 4, cudaMemcpyHostToDevice); }\n")
    compat_tree(src, tmp_path / "out")
    lines = [line for line in (tmp_path / "out" / "hipport_compat.h").read_text().splitlines()
             if line.startswith("#define cuda")]
    assert lines == [
        "#define cudaArray_t hipArray_t  // cuda_runtime; CUDA (not recorded), HIP 1.7.0",
        "#define cudaMallocAsync hipMallocAsync  // cuda_runtime; CUDA 11.2, HIP 5.2.0",
        "#define cudaMemAdvise hipMemAdvise  // cuda_runtime; CUDA 8.0, HIP 3.7.0",
        "#define cudaMemAdviseSetReadMostly hipMemAdviseSetReadMostly  // cuda_runtime; CUDA 8.0, HIP 3.7.0",
        "#define cudaMemcpyHostToDevice hipMemcpyHostToDevice  // cuda_runtime; CUDA (not recorded), HIP 1.5.0",
        "#define cudaMemcpyToArray hipMemcpyToArray  // cuda_runtime; CUDA (not recorded), HIP 1.6.0, deprecated in CUDA 10.1",
        "#define cudaStream_t hipStream_t  // cuda_runtime; CUDA (not recorded), HIP 1.5.0",
    ]


def test_rerun_regenerates_the_header(tmp_path):
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    (src / "a.cu").write_text("#include <cuda_runtime.h>\nint main() { return cudaDeviceSynchronize() != cudaSuccess; }\n")
    compat_tree(src, out)
    header = out / "hipport_compat.h"
    assert "#define cudaDeviceSynchronize hipDeviceSynchronize" in header.read_text()
    before = header.stat().st_mtime_ns
    os.utime(header, ns=(before - 10**9, before - 10**9))
    compat_tree(src, out)  # nothing changed: the header is not rewritten
    assert header.stat().st_mtime_ns == before - 10**9
    (src / "a.cu").write_text("int main() { void* p; return cudaMalloc(&p, 4) != cudaSuccess; }\n")
    compat_tree(src, out)
    lines = [line for line in header.read_text().splitlines() if line.startswith("#define")]
    assert lines == ["#define HIPPORT_COMPAT_H", "#define cudaMalloc hipMalloc  // cuda_runtime; CUDA (not recorded), HIP 1.5.0",
                     "#define cudaSuccess hipSuccess  // cuda_runtime; CUDA (not recorded), HIP 1.5.0"]
    assert not (out / "hipport_compat" / "cuda_runtime.h").exists()  # no include of it any more
    assert (out / "a.cu").read_text() == (src / "a.cu").read_text()


def test_compat_header_is_empty_under_plain_nvcc_preprocessing(toolchain, tmp_path):
    """nvcc defines neither __HIP__ nor __HIP_PLATFORM_AMD__: no name is mapped there."""
    out = tmp_path / "out"
    compat_tree(SMALL, out)
    done = subprocess.run([str(toolchain.nvcc), "-ccbin", str(toolchain.ccbin), "-E", "-x", "cu",
                           "-include", str(out / "hipport_compat.h"), str(out / "small.cu")],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "hipMalloc" not in done.stdout and "cudaMalloc(&d" in done.stdout


def _run(command):
    done = subprocess.run([str(c) for c in command], capture_output=True, text=True)
    assert done.returncode == 0, f"{' '.join(map(str, command))}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


@pytest.fixture(scope="module")
def compat_corpus(tmp_path_factory):
    out = tmp_path_factory.mktemp("compat-corpus")
    compat_tree(CORPUS, out, ConvertOptions(exclude=CORPUS_EXCLUDE, offload_archs=("gfx90a", "gfx1100")))
    return out


def test_compat_corpus_builds_for_amd(toolchain, compat_corpus, tmp_path):
    build = tmp_path / "build"
    _run([toolchain.cmake, "-S", compat_corpus, "-B", build, f"-DCMAKE_TOOLCHAIN_FILE={toolchain.cmake_hip_toolchain_file}"])
    _run([toolchain.cmake, "--build", build, "--parallel", "1"])
    for program in CORPUS_PROGRAMS:
        assert (build / program).is_file()
    obj = build / "CMakeFiles" / "vector_add.dir" / "vector_add" / "vector_add.cu.o"
    assert toolchain.code_object_targets(obj) == ["hipv4-amdgcn-amd-amdhsa--gfx1100", "hipv4-amdgcn-amd-amdhsa--gfx90a"]


def _nvidia_args(toolchain):
    return [f"-DCMAKE_CUDA_COMPILER={toolchain.nvcc}", f"-DCMAKE_CUDA_HOST_COMPILER={toolchain.ccbin}"]


def test_compat_corpus_builds_as_plain_cuda_for_sm90(toolchain, compat_corpus, tmp_path):
    """-DHIPPORT_COMPAT_CUDA=ON: nvcc with no HIP include folder, no forced include, no HIP define."""
    build = tmp_path / "build"
    _run([toolchain.cmake, "-S", compat_corpus, "-B", build, "-DHIPPORT_COMPAT_CUDA=ON", "-DCMAKE_CUDA_ARCHITECTURES=90",
          *_nvidia_args(toolchain)])
    commands = (build / "CMakeFiles" / "vector_add.dir" / "flags.make").read_text()
    assert "hip" not in commands.lower() and "compute_90" in commands
    _run([toolchain.cmake, "--build", build, "--parallel", "1"])
    for program in CORPUS_PROGRAMS:
        assert (build / program).is_file()


def test_compat_corpus_builds_with_hip_on_nvidia(toolchain, compat_corpus, tmp_path):
    build = tmp_path / "build"
    _run([toolchain.cmake, "-S", compat_corpus, "-B", build, "-DHIPPORT_PLATFORM=nvidia",
          f"-DHIPPORT_HIP_NVIDIA_INCLUDE={toolchain.hip_nvidia_include}", *_nvidia_args(toolchain)])
    flags = (build / "CMakeFiles" / "vector_add.dir" / "flags.make").read_text()
    assert "__HIP_PLATFORM_NVIDIA__" in flags and f"-include {compat_corpus}/hipport_compat.h" in flags
    _run([toolchain.cmake, "--build", build, "--parallel", "1"])
    for program in CORPUS_PROGRAMS:
        assert (build / program).is_file()


def test_tag_keyword_before_a_typedef_name_is_reported(tmp_path):
    """hipport_compat.h's #define cudaGraphicsResource hipGraphicsResource would make the kept
    `struct cudaGraphicsResource` the uncompilable `struct hipGraphicsResource` (HIP's name is a
    typedef, hipport.elaborated): each such place is HP1401; an enum tag HIP keeps is not."""
    import json

    src = tmp_path / "src"
    src.mkdir()
    (src / "interop.cu").write_text("#include <cuda_runtime.h>\nstruct cudaGraphicsResource;\n"
                                    "struct cudaGraphicsResource *resource;\n"
                                    "enum cudaMemcpyKind kind = cudaMemcpyHostToDevice;\n")
    compat_tree(src, tmp_path / "out")
    assert (src / "interop.cu").read_text().count("struct cudaGraphicsResource") == 2
    report = json.loads((tmp_path / "out" / "hipport-report.json").read_text())
    what = ("HP1401 error cudaGraphicsResource: the port writes struct _hipGraphicsResource for struct "
            "cudaGraphicsResource, as HIP's name is a typedef; in a --compat tree the CUDA source keeps it as "
            "written, which no name mapping can change")
    assert findings_lines(report) == [f"2:1 {what}", f"3:1 {what}"]
    assert [f["fix"] for f in report["findings"]] == [
        "keep this forward declaration for CUDA only (#if !defined(__HIP__)): HIP's headers declare the type",
        "write cudaGraphicsResource without the keyword, which CUDA and HIP both take"]


def test_what_compat_keeps_as_written_comes_from_the_rule_data(tmp_path):
    """rules/calls.yaml's hip_template (HIP's C++ template overload takes the argument as CUDA
    writes it) and rules/cuda_macros.yaml's compat_kept decide; the same rules without those
    fields report the call (HP1401) and map the macro."""
    import dataclasses
    import json

    from hipport.rules import default_rules

    rules = default_rules("hip")
    assert rules.compat_kept == frozenset({"__CUDACC__", "__NVCC__"})
    assert [c.hip_template for c in rules.calls["cudaMemcpyToSymbol"]] == ["hip/hip_runtime_api.h:9139"]
    assert rules.compat_as_written("cudaOccupancyMaxActiveBlocksPerMultiprocessor")
    assert not rules.compat_as_written("cudaFuncGetAttributes")  # HIP 6.4.3 has only the const void* form
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.cu").write_text("#include <cuda_runtime.h>\n__constant__ float k[4];\n"
                              "#ifdef __CUDACC__\nvoid f(const float* h) { cudaMemcpyToSymbol(k, h, sizeof(k)); }\n#endif\n")
    compat_tree(src, tmp_path / "out", rules=rules)
    report = json.loads((tmp_path / "out" / "hipport-report.json").read_text())
    assert [f"{f['line']}:{f['column']} {f['rule_id']}" for f in report["findings"]] == ["3:8 HP1402"]
    assert "#define __CUDACC__" not in (tmp_path / "out" / "hipport_compat.h").read_text()

    without = dataclasses.replace(
        rules, calls={name: tuple(dataclasses.replace(c, hip_template="") for c in entries)
                      for name, entries in rules.calls.items()},
        identifiers={name: dataclasses.replace(m, compat_kept=False) for name, m in rules.identifiers.items()},
        repeats=tuple(dataclasses.replace(m, compat_kept=False) for m in rules.repeats))
    compat_tree(src, tmp_path / "out2", rules=without)
    report = json.loads((tmp_path / "out2" / "hipport-report.json").read_text())
    assert findings_lines(report) == [
        "4:26 HP1401 error cudaMemcpyToSymbol: the port rewrites the call: argument 1 becomes HIP_SYMBOL(k); in a "
        "--compat tree the CUDA source keeps it as written, which no name mapping can change"]
    assert "#define __CUDACC__ __HIPCC__  // " in (tmp_path / "out2" / "hipport_compat.h").read_text()


FIX = FIXTURES / "compat" / "fix.cu"
#: fix.cu after `convert --compat --fix`: register deleted and the wavefront-size rewrites
#: (% warpSize, the 64-bit ballot and __popcll) applied; __syncwarp (HIP 7.0's AMD builtins) and
#: the CUdeviceptr offset (hipDeviceptr_t) left as written.
EXPECTED_FIXED = FIX.read_text().replace(
    "    register int lane = threadIdx.x % 32;\n    unsigned mask = __ballot_sync(0xffffffff, in[threadIdx.x] > 0);\n"
    "    if (lane == 0) atomicAdd(&out[blockIdx.x], __popc(mask));\n",
    "    int lane = threadIdx.x % warpSize;\n    unsigned long long mask = __ballot_sync(0xffffffff, in[threadIdx.x] > 0);\n"
    "    if (lane == 0) atomicAdd(&out[blockIdx.x], __popcll(mask));\n")


def test_fix_applies_the_edits_that_stay_cuda_and_refuses_the_others(toolchain, tmp_path):
    """--compat --fix: the edits of convert --fix that are CUDA too are applied; those writing
    HIP-only code (HP1115's __builtin_amdgcn_* definition of __syncwarp, HP1222's hipDeviceptr_t)
    are refused: the line keeps the findings of a run without --fix, plus HP1401. The result
    compiles as plain CUDA for sm_90."""
    import json

    out = tmp_path / "out"
    compat_tree(FIX, out, ConvertOptions(fix=True))
    assert EXPECTED_FIXED != FIX.read_text()
    assert (out / "fix.cu").read_text() == EXPECTED_FIXED
    assert findings_lines(json.loads((out / "hipport-report.json").read_text())) == [
        "7:5 HP1214 info 'register' storage class deleted (declaration; --fix): C++17, the standard clang compiles HIP as, has none",
        "7:39 HP1107 info lane arithmetic: % 32 rewritten to % warpSize (--fix)",
        "8:14 HP1107 info the mask mask: unsigned rewritten to unsigned long long (--fix)",
        "8:35 HP1401 error __ballot_sync: the port widens the mask to hipport_wave_lanes(), a 64-bit mask; HIP 6.4 refuses a 32-bit mask "
        "at compile time; in a --compat tree the CUDA source keeps it as written, which no name mapping can change",
        "9:48 HP1107 info the count of a lane mask: __popc rewritten to __popcll (--fix)",
        "10:5 HP1108 warning __syncwarp: HIP has __syncwarp only from HIP 7.0 (ROCm 7)",
        "10:5 HP1401 error __syncwarp(): convert --fix rewrites it (HP1115) to code that needs __builtin_amdgcn_fence, which "
        "CUDA lacks; in a --compat tree the CUDA source keeps it as written, which no name mapping can change",
        "16:24 HP1216 error CUdeviceptr used as an integer (operator +): CUDA defines it as unsigned long long (cuda.h:258, "
        "64-bit builds), HIP's hipDeviceptr_t is void * (hip/driver_types.h:47); this does not compile for HIP",
        "16:24 HP1401 error CUdeviceptr: convert --fix rewrites it (HP1222) to code that needs hipDeviceptr_t, which CUDA "
        "lacks; in a --compat tree the CUDA source keeps it as written, which no name mapping can change",
    ]
    done = subprocess.run([str(toolchain.nvcc), "-ccbin", str(toolchain.ccbin), "-arch=sm_90", "-c", str(out / "fix.cu"),
                           "-o", str(tmp_path / "fix.o")], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]


def test_fix_keeps_the_logical_warp_helpers_when_a_block_inserted_with_them_is_refused(toolchain, tmp_path):
    """fix.cu with the warp's ballot count stored by the first lane (not widened: the unit runs as
    32-lane logical warps, HP1116). The helpers and HIPPORT_SYNCWARP's definitions are inserted
    at the same line; the second (AMD builtins) is refused, the first is kept with the renamed
    calls (it is CUDA's own intrinsics under nvcc): once both were refused with that line while
    the calls were renamed, and plain nvcc failed. The 32-bit mask passed to a helper (which
    takes any mask) gets no HP1401."""
    import json

    src = tmp_path / "src"
    src.mkdir()
    (src / "fix.cu").write_text(FIX.read_text().replace("atomicAdd(&out[blockIdx.x], __popc(mask));",
                                                        "out[blockIdx.x] = __popc(mask);"))
    out = tmp_path / "out"
    compat_tree(src, out, ConvertOptions(fix=True))
    text = (out / "fix.cu").read_text()
    kernel = text[text.index("__global__ void count"):]
    assert kernel.startswith("__global__ void count(const int* in, int* out)\n{\n    int lane = threadIdx.x % 32;\n"
                             "    unsigned mask = hipport_warp32_ballot_sync(0xffffffff, in[threadIdx.x] > 0);\n"
                             "    if (lane == 0) out[blockIdx.x] = __popc(mask);\n    __syncwarp();\n}\n")
    assert "#define hipport_warp32_ballot_sync __ballot_sync\n" in text and "HIPPORT_SYNCWARP" not in text
    assert [line.split(": ")[0] for line in findings_lines(json.loads((out / "hipport-report.json").read_text()))] == [
        "5:17 HP1116 info --fix ported count as 32-lane logical warps",
        "7:5 HP1214 info 'register' storage class deleted (declaration; --fix)",
        "10:5 HP1108 warning __syncwarp",
        "10:5 HP1401 error __syncwarp()",
        "16:24 HP1216 error CUdeviceptr used as an integer (operator +)",
        "16:24 HP1401 error CUdeviceptr",
    ]
    done = subprocess.run([str(toolchain.nvcc), "-ccbin", str(toolchain.ccbin), "-arch=sm_90", "-c", str(out / "fix.cu"),
                           "-o", str(tmp_path / "fix.o")], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]

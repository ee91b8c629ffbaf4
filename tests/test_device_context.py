"""Host runtime API calls in device code (HP1211/HP1212, hipport/device_context.py) and the
``register`` storage class (HP1213/HP1214, hipport/register_keyword.py): exact findings, what
must not be flagged, and compile proofs with the project toolchain (clang-19, HIP 6.4)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from hipport.convert import ConvertOptions, convert_tree
from hipport.toolchain import CompileError

# Line 1 maps to hip/hip_runtime.h, so the port keeps the line numbers of the original.
DEVICE_CONTEXT = """\
#include <cuda_runtime.h>
#include <cstdlib>
__device__ int* grab(size_t n) { int* p = nullptr; cudaMalloc(&p, n); return p; }
__host__ __device__ void release(int* p) { cudaFree(p); }
__host__ __device__ inline void release_inline(int* p) { cudaFree(p); }
template <typename T> __host__ __device__ void release_any(T* p) { cudaFree(p); }
struct Pool { __host__ __device__ void drop(int* p) { cudaFree(p); } };
__global__ void work(int* p) {
  release_inline(p); release_any(p); Pool{}.drop(p);
  p[0] = (int)cudaGetLastError();
  auto clear = [=] __device__ () { cudaMemsetAsync(p, 0, 4, 0); };
  clear();
  auto copy = [=] () { cudaMemcpy(p, p + 1, 4, cudaMemcpyDeviceToDevice); };
  copy();
  void* scratch = malloc(16);
  free(scratch);
}
__host__ __device__ void guarded(int* p) {
#ifndef __HIP_DEVICE_COMPILE__
  cudaFree(p);
#endif
}
void host_side(int** p) { cudaMalloc(p, 64); cudaFree(*p); }
"""

DEVICE_CONTEXT_FINDINGS = [
    "3:52 HP1211 cudaMalloc in __device__ code (grab): hipMalloc is host-only, as HIP has no device-side runtime "
    "API (CUDA offers it in device code through its device runtime, -rdc=true with cudadevrt); the port does not compile",
    "4:44 HP1211 cudaFree in __host__ __device__ code (release): hipFree is host-only, as HIP has no device-side "
    "runtime API (CUDA offers it in device code through its device runtime, -rdc=true with cudadevrt); the port "
    "does not compile",
    "5:58 HP1212 cudaFree in __host__ __device__ function release_inline: HIP's hipFree is host-only; clang "
    "reports an error wherever device code calls release_inline",
    "6:68 HP1212 cudaFree in __host__ __device__ function release_any: HIP's hipFree is host-only; clang reports "
    "an error wherever device code calls release_any",
    "7:55 HP1212 cudaFree in __host__ __device__ function drop: HIP's hipFree is host-only; clang reports an "
    "error wherever device code calls drop",
    "10:15 HP1211 cudaGetLastError in __global__ code (work): hipGetLastError is host-only, as HIP has no "
    "device-side runtime API (CUDA offers it in device code through its device runtime, -rdc=true with "
    "cudadevrt); the port does not compile",
    "11:36 HP1211 cudaMemsetAsync in __device__ code (lambda in work): hipMemsetAsync is host-only, as HIP has "
    "no device-side runtime API (CUDA offers it in device code through its device runtime, -rdc=true with "
    "cudadevrt); the port does not compile",
    "13:24 HP1211 cudaMemcpy in __global__ code (lambda in work): hipMemcpy is host-only, as HIP has no "
    "device-side runtime API (it is host-only in CUDA too); the port does not compile",
]


def _convert(tmp_path: Path, name: str, body: str, fix: bool = False) -> tuple[Path, list[dict]]:
    src = tmp_path / "src"
    src.mkdir(exist_ok=True)
    (src / name).write_text(body)
    out = tmp_path / ("out-fix" if fix else "out")
    convert_tree(src, out, ConvertOptions(fix=fix, jobs=1))
    report = json.loads((out / "hipport-report.json").read_text())
    return out, report["findings"]


def _lines(findings: list[dict], *rule_ids: str) -> list[str]:
    return [f"{f['line']}:{f['column']} {f['rule_id']} {f['message']}" for f in findings if f["rule_id"] in rule_ids]


def _error_lines(error: CompileError, file_name: str) -> set[int]:
    """Lines of ``file_name`` that clang reports an ``error:`` on."""
    return {int(m.group(1)) for m in re.finditer(rf"^[^\n:]*{re.escape(file_name)}:(\d+):\d+: error:", error.stderr, re.M)}


def test_host_api_calls_in_device_code_are_reported(tmp_path):
    _, findings = _convert(tmp_path, "pool.cu", DEVICE_CONTEXT)
    assert _lines(findings, "HP1211", "HP1212", "HP1202") == DEVICE_CONTEXT_FINDINGS
    fix = next(f["fix"] for f in findings if f["rule_id"] == "HP1211")
    assert fix == ("Move the call out of device code: allocate on the host (hipMalloc before the launch) and pass "
                   "the pointer to the kernel, or use device-side malloc/free, which HIP provides on the GPU heap")


@pytest.mark.parametrize("body", [
    "void host(int** p) { cudaMalloc(p, 64); cudaMemcpy(*p, *p, 4, cudaMemcpyDeviceToDevice); }\n",
    "__device__ void* heap(size_t n) { void* p = malloc(n); free(p); return nullptr; }\n",
    "__device__ int counter;\nvoid host(int** p) { cudaMalloc(p, 64); }\n",   # a __device__ variable, not a function
    "__host__ void host(int** p) { cudaMalloc(p, 64); }\n",
    "void host(int* p) { auto l = [=] __host__ () { cudaFree(p); }; l(); }\n",
    '__device__ const char* name() { return "cudaMalloc"; }  // cudaFree in a comment\n',
    "namespace mylib { int cudaFree(int*); }\n__device__ void f(int* p) { mylib::cudaFree(p); }\n",
    "__host__ __device__ void f(int* p) {\n#if !defined(__HIP_DEVICE_COMPILE__)\n  cudaFree(p);\n#endif\n}\n",
    "__host__ __device__ void f(int* p) {\n#ifdef __HIP_DEVICE_COMPILE__\n  p[0] = 0;\n#else\n  cudaFree(p);\n#endif\n}\n",
])
def test_not_flagged(tmp_path, body):
    _, findings = _convert(tmp_path, "k.cu", body)
    assert _lines(findings, "HP1211", "HP1212") == []


def test_dynamic_parallelism_is_not_reported_twice(tmp_path):
    _, findings = _convert(tmp_path, "k.cu", "__global__ void k() { cudaDeviceSynchronize(); }\n")
    assert [f["rule_id"] for f in findings if f["rule_id"].startswith("HP12")] == ["HP1202"]


def test_device_lambda_launch_is_dynamic_parallelism(tmp_path):
    _, findings = _convert(tmp_path, "k.cu", (
        "__global__ void child() {}\n"
        "void host() { auto l = [] __device__ () { child<<<1, 1>>>(); }; (void)l; }\n"))
    assert _lines(findings, "HP1202") == ["2:48 HP1202 <<< in device code (lambda in host): HIP has no dynamic parallelism"]


def test_device_context_compile_errors_carry_the_findings(tmp_path, toolchain):
    """The port of DEVICE_CONTEXT fails for gfx90a on exactly the lines of its HP1211/HP1212 findings
    (every deferred function is called from device code there); the lines flagged as not
    findings (device malloc/free, the guarded call, the host function) compile."""
    out, findings = _convert(tmp_path, "pool.cu", DEVICE_CONTEXT)
    with pytest.raises(CompileError) as failure:
        toolchain.compile_amd(out / "pool.hip", tmp_path / "pool.o", ["gfx90a"], ["-Wno-unused-result"])
    flagged = {f["line"] for f in findings if f["rule_id"] in ("HP1211", "HP1212")}
    assert _error_lines(failure.value, "pool.hip") == flagged == {3, 4, 5, 6, 7, 10, 11, 13}


def test_deferred_host_device_function_compiles_while_only_host_code_calls_it(tmp_path, toolchain):
    out, findings = _convert(tmp_path, "lazy.cu", (
        "#include <cuda_runtime.h>\n"
        "__host__ __device__ inline void release(int* p) { cudaFree(p); }\n"
        "void host(int* p) { release(p); }\n"))
    assert [(f["line"], f["rule_id"], f["severity"]) for f in findings] == [(2, "HP1212", "warning")]
    toolchain.compile_amd(out / "lazy.hip", tmp_path / "lazy.o", ["gfx90a"], ["-Wno-unused-result"])


# Specifiers written as macros: defined in a header of the tree (one way for nvcc, empty for a
# host-only compiler), through another macro in the file. Line 1 maps to hip/hip_runtime.h.
SPECIFIER_HEADER = """\
// Execution-space words of the pool code; empty where no CUDA compiler reads them.
#ifndef POOL_SPACES_H
#define POOL_SPACES_H
#ifdef __CUDACC__
#define POOL_DEVICE __device__
#define POOL_BOTH __host__ __device__
#else
#define POOL_DEVICE
#define POOL_BOTH
#endif
#define POOL_KERNEL __global__
#define POOL_INLINE __forceinline__ POOL_BOTH
#endif
"""

SPECIFIER_MACROS = """\
#include <cuda_runtime.h>
#include "spaces.h"
#define SLOT_DEVICE POOL_DEVICE
POOL_DEVICE int* grab(size_t n) { int* p = nullptr; cudaMalloc(&p, n); return p; }
POOL_BOTH void release(int* p) { cudaFree(p); }
POOL_INLINE void release_inline(int* p) { cudaFree(p); }
SLOT_DEVICE unsigned int status() { return (unsigned int)cudaGetLastError(); }
POOL_KERNEL void work(int* p) {
  release_inline(p);
  p[0] = (int)status() + (int)cudaPeekAtLastError();
}
void host_side(int** p) { cudaMalloc(p, 64); cudaFree(*p); }
"""

SPECIFIER_MACRO_FINDINGS = [
    "4:53 HP1211 cudaMalloc in __device__ code (grab): hipMalloc is host-only, as HIP has no device-side runtime "
    "API (CUDA offers it in device code through its device runtime, -rdc=true with cudadevrt); the port does not compile",
    "5:34 HP1211 cudaFree in __host__ __device__ code (release): hipFree is host-only, as HIP has no device-side "
    "runtime API (CUDA offers it in device code through its device runtime, -rdc=true with cudadevrt); the port "
    "does not compile",
    "6:43 HP1212 cudaFree in __host__ __device__ function release_inline: HIP's hipFree is host-only; clang "
    "reports an error wherever device code calls release_inline",
    "7:58 HP1211 cudaGetLastError in __device__ code (status): hipGetLastError is host-only, as HIP has no "
    "device-side runtime API (CUDA offers it in device code through its device runtime, -rdc=true with "
    "cudadevrt); the port does not compile",
    "10:31 HP1211 cudaPeekAtLastError in __global__ code (work): hipPeekAtLastError is host-only, as HIP has no "
    "device-side runtime API (CUDA offers it in device code through its device runtime, -rdc=true with "
    "cudadevrt); the port does not compile",
]


def _convert_tree(tmp_path: Path, files: dict[str, str]) -> tuple[Path, list[dict]]:
    src = tmp_path / "src"
    src.mkdir(exist_ok=True)
    for name, body in files.items():
        (src / name).write_text(body)
    out = tmp_path / "out"
    convert_tree(src, out, ConvertOptions(jobs=1))
    return out, json.loads((out / "hipport-report.json").read_text())["findings"]


def test_specifiers_written_as_macros_are_device_code(tmp_path):
    _, findings = _convert_tree(tmp_path, {"spaces.h": SPECIFIER_HEADER, "pool.cu": SPECIFIER_MACROS})
    assert _lines(findings, "HP1211", "HP1212") == SPECIFIER_MACRO_FINDINGS


def test_specifier_macro_compile_errors_carry_the_findings(tmp_path, toolchain):
    """The port fails for gfx90a on exactly the lines of those findings, and host_side compiles."""
    out, findings = _convert_tree(tmp_path, {"spaces.h": SPECIFIER_HEADER, "pool.cu": SPECIFIER_MACROS})
    with pytest.raises(CompileError) as failure:
        toolchain.compile_amd(out / "pool.hip", tmp_path / "pool.o", ["gfx90a"], ["-Wno-unused-result"])
    flagged = {f["line"] for f in findings if f["rule_id"] in ("HP1211", "HP1212")}
    assert _error_lines(failure.value, "pool.hip") == flagged == {4, 5, 6, 7, 10}


@pytest.mark.parametrize("body, expected", [
    # nvcc's device pass reads __device__, its host pass __host__ __device__: both, so a
    # __host__ __device__ function (inline: deferred)
    ("#ifdef __CUDA_ARCH__\n#define HD __device__\n#else\n#define HD __host__ __device__\n#endif\n"
     "HD inline void f(int* p) { cudaFree(p); }\n",
     ["6:28 HP1212 cudaFree in __host__ __device__ function f: HIP's hipFree is host-only; clang reports an error "
      "wherever device code calls f"]),
    # a branch on a macro of the build (-D): either definition may be the one
    ("#ifdef POOL_HOST_ONLY\n#define SPACE\n#else\n#define SPACE __device__\n#endif\n"
     "SPACE void f(int* p) { cudaFree(p); }\n",
     ["6:24 HP1211 cudaFree in __device__ code (f): hipFree is host-only, as HIP has no device-side runtime API "
      "(CUDA offers it in device code through its device runtime, -rdc=true with cudadevrt); the port does not "
      "compile"]),
    # a lambda's specifiers
    ("#define BOTH __host__ __device__\nvoid h(int* p) { auto l = [=] BOTH () { cudaFree(p); }; l(); }\n",
     ["2:41 HP1212 cudaFree in __host__ __device__ function lambda in h: HIP's hipFree is host-only; clang "
      "reports an error wherever device code calls lambda in h"]),
    # what no CUDA compile reads: only for host compilers, or for HIP's
    ("#ifndef __CUDACC__\n#define SPACE __device__\n#endif\nSPACE void f(int* p) { cudaFree(p); }\n", []),
    ("#if defined(__HIPCC__)\n#define SPACE __device__\n#endif\nSPACE void f(int* p) { cudaFree(p); }\n", []),
    # a macro of other words, and CUDA's own word redefined for a host compiler
    ("#define API extern \"C\"\nAPI void f(int* p) { cudaFree(p); }\n", []),
    ("#if !defined(__CUDACC__)\n#define __device__\n#endif\nvoid f(int* p) { cudaFree(p); }\n", []),
])
def test_specifier_macro_cases(tmp_path, body, expected):
    _, findings = _convert(tmp_path, "k.cu", body)
    assert _lines(findings, "HP1211", "HP1212") == expected


def test_directive_states_of_a_cuda_compile():
    """Which of nvcc's passes (device, host) reads each #define: __CUDACC__ defined in both,
    __CUDA_ARCH__ in the device pass only, no __HIP* macro, any other macro unknown (None);
    comments skipped, continuation lines joined, #elif/#else after taken or unknown branches."""
    from hipport.project_macros import directives
    source = (b"#if !defined(__HIPCC__) && __CUDACC__\n#define A __device__ \\\n  __host__\n"
              b"#elif defined(BUILD_FLAG)\n#define A\n#else\n#define A static\n#endif\n"
              b"/* #define COMMENTED __device__ */\n"
              b"#if __CUDA_ARCH__ >= 700\n#define B 1\n#elif defined(__CUDA_ARCH__)\n#define B 2\n#else\n#define B 3\n#endif\n"
              b"#ifdef BUILD_FLAG\n#define C 1\n#else\n#define C 2\n#endif\n"
              b"#define SQUARE(x) ((x) * (x))\n")
    assert [(d.line, d.operand, d.body, d.function_like, d.seen) for d in directives(source)] == [
        (2, "A", "__device__ __host__", False, (True, True)),
        (5, "A", "", False, (False, False)),
        (7, "A", "static", False, (False, False)),
        (11, "B", "1", False, (None, False)),
        (13, "B", "2", False, (None, False)),
        (15, "B", "3", False, (False, True)),
        (18, "C", "1", False, (None, None)),
        (20, "C", "2", False, (None, None)),
        (22, "SQUARE", "((x) * (x))", True, (True, True)),
    ]


REGISTER = """\
#include <cuda_runtime.h>
#define HOT register
__global__ void scale(float* x, float a) {
  register float v = x[threadIdx.x];
  const register  int lane = threadIdx.x % 4;
  x[threadIdx.x] = a * v + lane;
}
__device__ float twice(HOT float y) { return 2 * y; }
int host_sum(register int n) {
  const char* why = "register";  // register in a comment
  register int total = 0;
  for (register int i = 0; i < n; ++i) total += i;
  return total + (why[0] == 'r');
}
int main() { return host_sum(3) == 3 ? 0 : 1; }
"""

REGISTER_FIXED = """\
#include <hip/hip_runtime.h>
#define HOT 
__global__ void scale(float* x, float a) {
  float v = x[threadIdx.x];
  const int lane = threadIdx.x % 4;
  x[threadIdx.x] = a * v + lane;
}
__device__ float twice(HOT float y) { return 2 * y; }
int host_sum(int n) {
  const char* why = "register";  // register in a comment
  int total = 0;
  for (int i = 0; i < n; ++i) total += i;
  return total + (why[0] == 'r');
}
int main() { return host_sum(3) == 3 ? 0 : 1; }
"""

_REGISTER_MESSAGE = "'register' storage class ({}): an error in C++17, the standard clang compiles HIP as (nvcc accepts it)"


def test_register_is_reported_without_fix(tmp_path):
    _, findings = _convert(tmp_path, "reg.cu", REGISTER)
    assert _lines(findings, "HP1213", "HP1214") == [
        "2:13 HP1213 " + _REGISTER_MESSAGE.format("macro body"),
        "4:3 HP1213 " + _REGISTER_MESSAGE.format("declaration"),
        "5:9 HP1213 " + _REGISTER_MESSAGE.format("declaration"),
        "9:14 HP1213 " + _REGISTER_MESSAGE.format("declaration"),
        "11:3 HP1213 " + _REGISTER_MESSAGE.format("declaration"),
        "12:8 HP1213 " + _REGISTER_MESSAGE.format("declaration"),
    ]


def test_register_fix_deletes_the_keyword_and_compiles(tmp_path, toolchain):
    out, findings = _convert(tmp_path, "reg.cu", REGISTER, fix=True)
    assert (out / "reg.hip").read_text() == REGISTER_FIXED
    assert [(f["line"], f["rule_id"]) for f in findings if f["rule_id"].startswith("HP121")] == [
        (2, "HP1214"), (4, "HP1214"), (5, "HP1214"), (9, "HP1214"), (11, "HP1214"), (12, "HP1214")]
    toolchain.compile_amd(out / "reg.hip", tmp_path / "reg.o", ["gfx90a", "gfx1100"])
    assert toolchain.code_object_targets(tmp_path / "reg.o") == ["hipv4-amdgcn-amd-amdhsa--gfx1100", "hipv4-amdgcn-amd-amdhsa--gfx90a"]
    toolchain.compile_nvidia(out / "reg.hip", tmp_path / "reg-nv", link=False)


def test_register_unfixed_port_fails_on_the_reported_lines(tmp_path, toolchain):
    out, findings = _convert(tmp_path, "reg.cu", REGISTER)
    with pytest.raises(CompileError) as failure:
        toolchain.compile_amd(out / "reg.hip", tmp_path / "reg.o", ["gfx90a"])
    declarations = {f["line"] for f in findings if f["rule_id"] == "HP1213" and "(declaration)" in f["message"]}
    # the macro's keyword is reported where it is defined (line 2); clang reports it where HOT is used
    assert _error_lines(failure.value, "reg.hip") == declarations | {8}


def test_register_in_a_c_file_is_left_alone(tmp_path):
    out, findings = _convert(tmp_path, "old.c", "int f(register int n) { return n; }\n", fix=True)
    assert _lines(findings, "HP1213", "HP1214") == []
    assert (out / "old.c").read_text() == "int f(register int n) { return n; }\n"


def test_explicit_register_variable_is_left_alone(tmp_path):
    _, findings = _convert(tmp_path, "k.cu", "void f() { register int sp asm(\"rsp\"); (void)sp; }\n")
    assert _lines(findings, "HP1213") == []


def _hip_function_declarations(toolchain, tmp_path: Path) -> dict[str, bool]:
    """hip* function name -> whether any declaration of it in HIP 6.4's hip/hip_runtime.h is
    ``__device__`` (clang-19's AST of the header, compiled for gfx90a)."""
    import subprocess
    source = tmp_path / "runtime.hip"
    source.write_text("#include <hip/hip_runtime.h>\n")
    command = [str(toolchain.clang), "-x", "hip", "--cuda-device-only", "--offload-arch=gfx90a", "-nogpulib",
               f"--hip-path={toolchain.hip_amd_root}", "-isystem", str(toolchain.hip_amd_include), "-fsyntax-only",
               "-Xclang", "-ast-dump=json", "-Xclang", "-ast-dump-filter=hip", str(source)]
    text = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    decoder, position, found = json.JSONDecoder(), 0, {}
    while (match := re.compile(r"\S").search(text, position)) is not None:
        if text.startswith("Dumping", match.start()):
            position = text.index("\n", match.start()) + 1
            continue
        node, position = decoder.raw_decode(text, match.start())
        stack = [node]
        while stack:
            current = stack.pop()
            if current.get("kind") == "FunctionDecl" and current.get("name", "").startswith("hip"):
                device = any(c.get("kind") == "CUDADeviceAttr" for c in current.get("inner", []))
                found[current["name"]] = found.get(current["name"], False) or device
            stack.extend(c for c in current.get("inner", []) if c.get("kind") in ("FunctionTemplateDecl", "LinkageSpecDecl",
                                                                                   "NamespaceDecl"))
    return found


def test_hip_declares_no_runtime_function_for_device_code(tmp_path, toolchain):
    """The fact HP1211/HP1212 rest on: of the HIP functions the runtime and driver families map
    to, HIP 6.4 declares none __device__ (CUDA's device runtime has no HIP counterpart)."""
    from hipport.device_context import CUDA_DEVICE_RUNTIME, HOST_API_FAMILIES
    from hipport.rules import default_rules
    declared = _hip_function_declarations(toolchain, tmp_path)
    assert len(declared) > 400
    rules = default_rules()
    targets = {m.hip for m in rules.identifiers.values()
               if m.family in HOST_API_FAMILIES and m.kind == "function" and m.hip in declared}
    assert len(targets) > 400
    assert {name for name in targets if declared[name]} == set()
    core = {"hipMalloc", "hipFree", "hipMemcpyAsync", "hipMemsetAsync", "hipGetLastError", "hipGetDevice"}
    assert core <= {rules.identifiers[n].hip for n in CUDA_DEVICE_RUNTIME if n in rules.identifiers} and core <= targets

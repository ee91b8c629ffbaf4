#!/usr/bin/env python3
"""Generate a deterministic CUDA source tree for conversion benchmarks.

The tree is made of "components" (``comp_000/``, ``comp_001/``, ...). Each component holds

* a replica of every corpus program under ``corpus/`` (``corpus/<program>/...``; not the
  multi-file projects of ``corpus/projects/``), with the program's own identifiers (kernels,
  functions, constants, namespaces, macros, include guards, ``cuda_*`` user variables)
  systematically renamed with a ``_rNNN`` suffix, so no two files are identical; headers
  shorter than 50 lines get a block of constants and comments appended;
* synthetic files built from the CUDA runtime names in ``rules/cuda_runtime.yaml`` (entries with
  ``status: supported`` and kind function, type or enumerator): ``include/check.h`` (error
  macro), ``src/*.cu`` (kernels, ``<<<...>>>`` launches, API calls), ``include/*.cuh``
  (device helpers, kernel templates, declarations) and ``host/*.cpp`` (host-only API code),
  with API names also in comments and string literals. Their sizes are log-uniform between 50
  and 3,000 lines.

Generation stops after the file that brings the tree to the target line count. The output is a
pure function of (corpus, rules, target lines, seed): every random choice comes from one
``random.Random(seed)`` and every input list is sorted first. A ``MANIFEST.json`` at the root
records what was generated (and lets callers reuse a tree).

Usage: python bench/generate_tree.py OUT [--lines 120000] [--seed 20261130]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import random
import re
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

import yaml

REPO = Path(__file__).resolve().parent.parent
DEFAULT_LINES = 120_000
DEFAULT_SEED = 20261130
MANIFEST = "MANIFEST.json"
MIN_FILE_LINES = 50
MAX_FILE_LINES = 3000
SOURCE_SUFFIXES = (".cu", ".cuh", ".cpp", ".h")

CPP_KEYWORDS = frozenset("""
alignas alignof and asm auto bool break case catch char class const constexpr const_cast continue
decltype default delete do double dynamic_cast else enum explicit extern false float for friend
goto if inline int long mutable namespace new noexcept nullptr operator private protected public
register reinterpret_cast return short signed sizeof static static_assert static_cast struct
switch template this throw true try typedef typename union unsigned using virtual void volatile
while main std size_t
""".split())


def generator_digest() -> str:
    """SHA-256 of this script: a tree made by another version of it is not reused."""
    return hashlib.sha256(Path(__file__).read_bytes()).hexdigest()


# --------------------------------------------------------------------------------------------
# Inputs


@dataclass
class RuntimeNames:
    functions: list[str]
    types: list[str]
    enumerators: list[str]
    all_identifiers: frozenset[str]
    header_stems: frozenset[str]


def load_runtime_names(rules_file: Path) -> RuntimeNames:
    data = yaml.safe_load(rules_file.read_text(encoding="utf-8"))
    by_kind: dict[str, list[str]] = {"function": [], "type": [], "enumerator": []}
    all_ids: set[str] = set()
    stems: set[str] = set()
    for entry in data["mappings"]:
        if entry["kind"] == "header":
            stems.add(entry["cuda"].rsplit(".", 1)[0].rsplit("/", 1)[-1])
            continue
        all_ids.add(entry["cuda"])
        if entry["status"] == "supported" and entry["kind"] in by_kind:
            by_kind[entry["kind"]].append(entry["cuda"])
    return RuntimeNames(sorted(by_kind["function"]), sorted(by_kind["type"]),
                        sorted(by_kind["enumerator"]), frozenset(all_ids), frozenset(stems))


@dataclass
class CorpusProgram:
    name: str
    files: dict[str, str]              # path relative to the program folder -> text
    renamed: list[str] = field(default_factory=list)  # identifiers that get the suffix


_DECLARED = [
    re.compile(r"#\s*define\s+([A-Za-z_]\w*)"),
    re.compile(r"\bnamespace\s+([A-Za-z_]\w*)\s*\{"),
    re.compile(r"\b(?:struct|class)\s+([A-Za-z_]\w*)"),
    re.compile(r"\bconstexpr\s+(?:unsigned\s+)?[A-Za-z_]\w*\s+([A-Za-z_]\w*)\s*="),
    re.compile(r"__global__\s+void\s+([A-Za-z_]\w*)"),
    re.compile(r"\bauto\s+([A-Za-z_]\w*)\s*=\s*\["),
    # Function definitions starting at column 0 (return type, optional qualifiers).
    re.compile(r"^(?:(?:static|inline|__host__|__device__|__forceinline__)\s+)*"
               r"(?:const\s+)?[A-Za-z_][\w:<>]*\s*\**\s+\**([A-Za-z_]\w*)\s*\(", re.MULTILINE),
    # User identifiers that merely contain "cuda" (launch_cuda_x, cuda_work_items_issued).
    re.compile(r"\b([A-Za-z_]*cuda_\w+|\w+_cuda\w*)\b"),
]


def load_corpus(corpus_dir: Path, names: RuntimeNames) -> list[CorpusProgram]:
    programs = []
    # corpus/projects/ holds multi-file projects with builds of their own: not replicated.
    for folder in sorted(p for p in corpus_dir.iterdir() if p.is_dir() and p.name != "projects"):
        files = {p.relative_to(folder).as_posix(): p.read_text(encoding="utf-8")
                 for p in sorted(folder.rglob("*")) if p.is_file() and p.suffix in SOURCE_SUFFIXES}
        if not files:
            continue
        declared: set[str] = set()
        for text in files.values():
            for pattern in _DECLARED:
                declared.update(pattern.findall(text))
        excluded = CPP_KEYWORDS | names.all_identifiers | names.header_stems
        renamed = sorted((n for n in declared if n not in excluded), key=lambda n: (-len(n), n))
        programs.append(CorpusProgram(folder.name, files, renamed))
    if not programs:
        raise SystemExit(f"error: no corpus programs found under {corpus_dir}")
    return programs


# --------------------------------------------------------------------------------------------
# Synthetic code


class Cycle:
    """Hands out names from a list in shuffled rounds, so every name is used about equally."""

    def __init__(self, items: list[str], rng: random.Random):
        self._items = list(items)
        self._rng = rng
        self._queue: list[str] = []

    def next(self) -> str:
        if not self._queue:
            self._queue = list(self._items)
            self._rng.shuffle(self._queue)
        return self._queue.pop()

    def take(self, n: int) -> list[str]:
        return [self.next() for _ in range(n)]


# Common signatures: each a format with {s} stream, {d} device pointer, {h} host pointer,
# {n} byte count, {e} event, {v} output variable, {g} graph, {x} an integer.
_KNOWN_CALLS = {
    "cudaMalloc": "cudaMalloc(&{d}, {n})",
    "cudaMallocManaged": "cudaMallocManaged(&{d}, {n}, cudaMemAttachGlobal)",
    "cudaMallocHost": "cudaMallocHost(&{h}, {n})",
    "cudaMallocAsync": "cudaMallocAsync(&{d}, {n}, {s})",
    "cudaMallocPitch": "cudaMallocPitch(&{d}, &pitch, width * sizeof(float), height)",
    "cudaHostAlloc": "cudaHostAlloc(&{h}, {n}, cudaHostAllocDefault)",
    "cudaFree": "cudaFree({d})",
    "cudaFreeHost": "cudaFreeHost({h})",
    "cudaFreeAsync": "cudaFreeAsync({d}, {s})",
    "cudaMemcpy": "cudaMemcpy({d}, {h}, {n}, cudaMemcpyHostToDevice)",
    "cudaMemcpyAsync": "cudaMemcpyAsync({h}, {d}, {n}, cudaMemcpyDeviceToHost, {s})",
    "cudaMemcpy2D": "cudaMemcpy2D({d}, pitch, {h}, width * sizeof(float), width * sizeof(float), height, cudaMemcpyHostToDevice)",
    "cudaMemcpy2DAsync": "cudaMemcpy2DAsync({h}, width * sizeof(float), {d}, pitch, width * sizeof(float), height, cudaMemcpyDeviceToHost, {s})",
    "cudaMemcpyPeer": "cudaMemcpyPeer({d}, 1, {h}, 0, {n})",
    "cudaMemcpyPeerAsync": "cudaMemcpyPeerAsync({d}, 1, {h}, 0, {n}, {s})",
    "cudaMemcpyToSymbol": "cudaMemcpyToSymbol(c_params, {h}, sizeof(float) * 4)",
    "cudaMemcpyFromSymbol": "cudaMemcpyFromSymbol({h}, c_params, sizeof(float) * 4)",
    "cudaMemset": "cudaMemset({d}, 0, {n})",
    "cudaMemsetAsync": "cudaMemsetAsync({d}, 0, {n}, {s})",
    "cudaMemset2D": "cudaMemset2D({d}, pitch, 0, width * sizeof(float), height)",
    "cudaMemGetInfo": "cudaMemGetInfo(&free_bytes, &total_bytes)",
    "cudaMemPrefetchAsync": "cudaMemPrefetchAsync({d}, {n}, device, {s})",
    "cudaMemAdvise": "cudaMemAdvise({d}, {n}, cudaMemAdviseSetReadMostly, device)",
    "cudaStreamCreate": "cudaStreamCreate(&{s})",
    "cudaStreamCreateWithFlags": "cudaStreamCreateWithFlags(&{s}, cudaStreamNonBlocking)",
    "cudaStreamCreateWithPriority": "cudaStreamCreateWithPriority(&{s}, cudaStreamDefault, priority)",
    "cudaStreamDestroy": "cudaStreamDestroy({s})",
    "cudaStreamSynchronize": "cudaStreamSynchronize({s})",
    "cudaStreamWaitEvent": "cudaStreamWaitEvent({s}, {e}, 0)",
    "cudaStreamQuery": "cudaStreamQuery({s})",
    "cudaStreamBeginCapture": "cudaStreamBeginCapture({s}, cudaStreamCaptureModeGlobal)",
    "cudaStreamEndCapture": "cudaStreamEndCapture({s}, &{g})",
    "cudaStreamGetPriority": "cudaStreamGetPriority({s}, &priority)",
    "cudaStreamGetFlags": "cudaStreamGetFlags({s}, &flags)",
    "cudaEventCreate": "cudaEventCreate(&{e})",
    "cudaEventCreateWithFlags": "cudaEventCreateWithFlags(&{e}, cudaEventDisableTiming)",
    "cudaEventRecord": "cudaEventRecord({e}, {s})",
    "cudaEventSynchronize": "cudaEventSynchronize({e})",
    "cudaEventElapsedTime": "cudaEventElapsedTime(&elapsed_ms, {e}, {e})",
    "cudaEventDestroy": "cudaEventDestroy({e})",
    "cudaEventQuery": "cudaEventQuery({e})",
    "cudaDeviceSynchronize": "cudaDeviceSynchronize()",
    "cudaDeviceReset": "cudaDeviceReset()",
    "cudaGetDevice": "cudaGetDevice(&device)",
    "cudaSetDevice": "cudaSetDevice(device)",
    "cudaGetDeviceCount": "cudaGetDeviceCount(&device_count)",
    "cudaGetDeviceProperties": "cudaGetDeviceProperties(&prop, device)",
    "cudaDeviceGetAttribute": "cudaDeviceGetAttribute(&value, cudaDevAttrMultiProcessorCount, device)",
    "cudaGetLastError": "cudaGetLastError()",
    "cudaPeekAtLastError": "cudaPeekAtLastError()",
    "cudaDeviceCanAccessPeer": "cudaDeviceCanAccessPeer(&can_access, device, 1)",
    "cudaDeviceEnablePeerAccess": "cudaDeviceEnablePeerAccess(1, 0)",
    "cudaFuncGetAttributes": "cudaFuncGetAttributes(&func_attr, reinterpret_cast<const void*>(&noop_kernel))",
    "cudaFuncSetAttribute": "cudaFuncSetAttribute(reinterpret_cast<const void*>(&noop_kernel), cudaFuncAttributeMaxDynamicSharedMemorySize, 49152)",
    "cudaOccupancyMaxActiveBlocksPerMultiprocessor": "cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, noop_kernel, 256, 0)",
    "cudaOccupancyMaxPotentialBlockSize": "cudaOccupancyMaxPotentialBlockSize(&min_grid, &block_size, noop_kernel, 0, 0)",
    "cudaGraphCreate": "cudaGraphCreate(&{g}, 0)",
    "cudaGraphInstantiate": "cudaGraphInstantiate(&graph_exec, {g}, nullptr, nullptr, 0)",
    "cudaGraphLaunch": "cudaGraphLaunch(graph_exec, {s})",
    "cudaGraphExecDestroy": "cudaGraphExecDestroy(graph_exec)",
    "cudaGraphDestroy": "cudaGraphDestroy({g})",
    "cudaLaunchHostFunc": "cudaLaunchHostFunc({s}, host_callback, user_data)",
    "cudaDriverGetVersion": "cudaDriverGetVersion(&driver_version)",
    "cudaRuntimeGetVersion": "cudaRuntimeGetVersion(&runtime_version)",
    "cudaPointerGetAttributes": "cudaPointerGetAttributes(&ptr_attr, {d})",
    "cudaHostRegister": "cudaHostRegister({h}, {n}, cudaHostRegisterDefault)",
    "cudaHostUnregister": "cudaHostUnregister({h})",
    "cudaHostGetDevicePointer": "cudaHostGetDevicePointer(&{d}, {h}, 0)",
    "cudaGetErrorString": "cudaGetErrorString(status)",
    "cudaGetErrorName": "cudaGetErrorName(status)",
}

# Functions that return something other than cudaError_t.
_NOT_STATUS = frozenset({"cudaGetErrorString", "cudaGetErrorName", "make_cudaExtent",
                         "make_cudaPitchedPtr", "make_cudaPos", "cudaCreateChannelDesc"})

_GENERIC_ARGS = ["&value", "stream", "device", "d_buf", "bytes", "0", "flags", "&handle",
                 "graph", "node", "event", "nullptr", "count", "&desc", "h_buf"]

_COMMENT_TEMPLATES = [
    "// {a} must be called before {b}; both return cudaSuccess on success.",
    "// Note: {a} is asynchronous with respect to the host.",
    "// {a} can fail with an earlier asynchronous error; check {b} afterwards.",
    "// Keep {a} outside the timed region (it may synchronize the device).",
    "// TODO: replace {a} with {b} once every target supports it.",
    "// {a}/{b} pair: the handle is released in the destructor.",
    "/* {a} is only valid on the current device (see {b}). */",
]

_STRING_TEMPLATES = [
    'std::fprintf(stderr, "{a} failed: %s\\n", cudaGetErrorString(status));',
    'log_message("{a}: done (after {b})");',
    'std::printf("[%s] calling {a}\\n", tag);',
    'static const char* const kWhat = "{a}";',
    'throw std::runtime_error("{a} returned an error");',
]

_KERNEL_BODIES = [
    # (needs_template, body lines) - {T} element type, {B} block constant
    ["    const int i = blockIdx.x * blockDim.x + threadIdx.x;",
     "    if (i < n) {",
     "        out[i] = alpha * in[i] + beta;",
     "    }"],
    ["    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;",
     "         i += gridDim.x * blockDim.x) {",
     "        const {T} v = in[i];",
     "        out[i] = v > {T}(0) ? v * alpha : v * beta;",
     "    }"],
    ["    __shared__ {T} tile[{B}];",
     "    const int i = blockIdx.x * {B} + threadIdx.x;",
     "    tile[threadIdx.x] = (i < n) ? in[i] : {T}(0);",
     "    __syncthreads();",
     "    for (int stride = {B} / 2; stride > 0; stride /= 2) {",
     "        if (threadIdx.x < stride) {",
     "            tile[threadIdx.x] += tile[threadIdx.x + stride];",
     "        }",
     "        __syncthreads();",
     "    }",
     "    if (threadIdx.x == 0) {",
     "        atomicAdd(&out[0], tile[0] * alpha + beta);",
     "    }"],
    ["    const int x = blockIdx.x * blockDim.x + threadIdx.x;",
     "    const int y = blockIdx.y * blockDim.y + threadIdx.y;",
     "    const int width = n / 64;",
     "    if (x < width && y < 64) {",
     "        // transpose-like access; the result is scaled and shifted",
     "        out[x * 64 + y] = alpha * in[y * width + x] + beta;",
     "    }"],
    ["    extern __shared__ unsigned char dyn_smem[];",
     "    {T}* scratch = reinterpret_cast<{T}*>(dyn_smem);",
     "    const int i = blockIdx.x * blockDim.x + threadIdx.x;",
     "    scratch[threadIdx.x] = (i < n) ? in[i] : {T}(0);",
     "    __syncthreads();",
     "    const int left = threadIdx.x > 0 ? threadIdx.x - 1 : 0;",
     "    const int right = threadIdx.x + 1 < blockDim.x ? threadIdx.x + 1 : threadIdx.x;",
     "    if (i < n) {",
     "        out[i] = alpha * (scratch[left] + scratch[threadIdx.x] + scratch[right]) + beta;",
     "    }"],
    ["    const int i = blockIdx.x * blockDim.x + threadIdx.x;",
     "    if (i >= n) {",
     "        return;",
     "    }",
     "    {T} acc = in[i];",
     "#pragma unroll",
     "    for (int k = 0; k < 4; ++k) {",
     "        acc = acc * alpha + beta;",
     "    }",
     "    out[i] = sqrtf(fabsf(static_cast<float>(acc)));"],
]


class Synth:
    """Builds synthetic CUDA code from the runtime names, one block of lines at a time."""

    def __init__(self, rng: random.Random, names: RuntimeNames):
        self.rng = rng
        self.functions = Cycle(names.functions, rng)
        self.types = Cycle(names.types, rng)
        self.enum_groups = self._group_enumerators(names.enumerators)
        self.enum_group_cycle = Cycle(sorted(self.enum_groups), rng)
        self.enum_cycles = {k: Cycle(v, rng) for k, v in sorted(self.enum_groups.items())}
        self.counter = 0

    @staticmethod
    def _group_enumerators(enumerators: list[str]) -> dict[str, list[str]]:
        groups: dict[str, list[str]] = {}
        for name in enumerators:
            match = re.match(r"cuda[A-Z][a-z0-9]*", name)
            key = match.group() if match else "misc"
            groups.setdefault(key, []).append(name)
        return groups

    def uid(self, stem: str) -> str:
        self.counter += 1
        return f"{stem}_{self.counter}"

    # ---- small pieces

    def comment(self) -> str:
        a, b = self.functions.next(), self.functions.next()
        return self.rng.choice(_COMMENT_TEMPLATES).format(a=a, b=b)

    def string_statement(self) -> str:
        a, b = self.functions.next(), self.functions.next()
        return self.rng.choice(_STRING_TEMPLATES).format(a=a, b=b)

    def call(self, fn: str, check: str) -> str:
        rng = self.rng
        fmt = _KNOWN_CALLS.get(fn) or f"{fn}({self._guess_args(fn)})"
        text = fmt.format(s="stream", d="d_buf", h="h_buf", n="bytes", e="event", v="value", g="graph", x="count")
        if fn in _NOT_STATUS:
            return f"auto {self.uid('result')} = {text};"
        style = rng.random()
        if style < 0.7:
            return f"{check}({text});"
        if style < 0.85:
            return f"status = {text};"
        return f"if ({text} != cudaSuccess) {{ return false; }}"

    def _guess_args(self, fn: str) -> str:
        """Plausible arguments for a runtime function without a known signature (from its name)."""
        rng = self.rng
        if fn.startswith("make_cuda"):
            args = ["width", "height", "1"] if fn.endswith(("Extent", "Pos")) else ["d_buf", "pitch", "width", "height"]
        elif re.search(r"GraphAdd\w*Node", fn):
            args = ["&node", "graph", "nullptr", "0"] + (["&params"] if fn != "cudaGraphAddEmptyNode" else [])
        elif fn.startswith("cudaGraphExec"):
            args = ["graph_exec", "node", "&params"]
        elif re.search(r"Memcpy|Memset", fn):
            args = ["d_buf", "h_buf" if "cpy" in fn else "0", "bytes"] + (["cudaMemcpyDefault"] if "cpy" in fn else [])
        elif re.search(r"Destroy|Free|Release|Unregister|Close|Trim|Reset|Synchronize|Query|Launch", fn):
            args = [rng.choice(["handle", "graph", "stream", "event", "d_buf"])]
        elif re.search(r"Get|Query|Find", fn):
            args = ["&value", rng.choice(["handle", "node", "device", "d_buf", "stream"])]
        elif re.search(r"Set|Retain|Add|Update|Advise|Import|Export", fn):
            args = [rng.choice(["handle", "node", "graph", "d_buf"]), rng.choice(["value", "&params", "flags"])]
        elif re.search(r"Create|Alloc|Malloc|Register|Open|Instantiate|Clone|Begin|End", fn):
            args = ["&handle", rng.choice(["&desc", "flags", "bytes", "graph"])]
        else:
            args = rng.sample(_GENERIC_ARGS, rng.randint(1, 3))
        if fn.endswith("Async") and "stream" not in args:
            args.append("stream")
        return ", ".join(args)

    # ---- blocks (each a list of lines, no trailing blank line)

    def kernel(self, name: str, templated: bool) -> tuple[list[str], str]:
        """A __global__ kernel; returns (lines, how to name it in a launch)."""
        rng = self.rng
        body = rng.choice(_KERNEL_BODIES)
        elem = "T" if templated else rng.choice(["float", "double", "int"])
        block = "BLOCK" if templated else str(rng.choice([128, 256, 512]))
        lines = [f"// {name}: one element per thread; launched from {name}_launch()."]
        if templated:
            lines.append("template <typename T, int BLOCK>")
        lines.append(f"__global__ void {name}(const {elem}* __restrict__ in, {elem}* __restrict__ out,")
        lines.append(f"{' ' * (16 + len(name))}{elem} alpha, {elem} beta, int n)")
        lines.append("{")
        lines.extend(line.replace("{T}", elem).replace("{B}", block) for line in body)
        lines.append("}")
        launch_name = f"{name}<{rng.choice(['float', 'double'])}, {rng.choice([128, 256])}>" if templated else name
        return lines, launch_name

    def launch(self, name: str, launch_name: str, check: str) -> list[str]:
        rng = self.rng
        elem = launch_name.split("<", 1)[1].split(",")[0] if "<" in launch_name else "float"
        style = rng.randrange(4)
        if style == 0:
            chevron = "<<<blocks, threads>>>"
        elif style == 1:
            chevron = "<<<blocks, threads, 0, stream>>>"
        elif style == 2:
            chevron = "<<<dim3(blocks, 1), dim3(threads, 1), threads * sizeof(float), stream>>>"
        else:
            chevron = "<<<grid, block>>>"
        lines = [
            f"void {name}_launch(const {elem}* in, {elem}* out, {elem} alpha, {elem} beta, int n,",
            f"{' ' * (len(name) + 13)}cudaStream_t stream)",
            "{",
            "    const int threads = 256;",
            "    const int blocks = (n + threads - 1) / threads;",
        ]
        if style == 3:
            lines += ["    dim3 grid(blocks);", "    dim3 block(threads);"]
        if rng.random() < 0.5:
            lines.append("    " + self.comment())
        lines.append(f"    {launch_name}{chevron}(in, out, alpha, beta, n);")
        lines.append(f"    {check}(cudaGetLastError());")
        if rng.random() < 0.3:
            lines.append(f"    {check}(cudaStreamSynchronize(stream));")
        lines.append("}")
        return lines

    def api_function(self, check: str) -> list[str]:
        rng = self.rng
        name = self.uid("run_step")
        lines = [f"// {name}: exercises a sequence of runtime calls.",
                 f"bool {name}(cudaStream_t stream, int device, size_t bytes)", "{",
                 "    cudaError_t status = cudaSuccess;",
                 "    float* d_buf = nullptr;",
                 "    float* h_buf = nullptr;",
                 "    cudaEvent_t event = nullptr;",
                 "    cudaGraph_t graph = nullptr;",
                 "    cudaGraphExec_t graph_exec = nullptr;",
                 "    cudaGraphNode_t node = nullptr;",
                 "    void* handle = nullptr;",
                 "    int value = 0;",
                 "    unsigned int flags = 0;"]
        for type_name in self.types.take(rng.randint(1, 3)):
            lines.append(f"    {type_name} {self.uid('obj')}{{}};")
        for fn in self.functions.take(rng.randint(4, 12)):
            roll = rng.random()
            if roll < 0.25:
                lines.append("    " + self.comment())
            elif roll < 0.35:
                lines.append("    " + self.string_statement())
            lines.append("    " + self.call(fn, check))
        lines += ["    (void)d_buf;", "    (void)h_buf;", "    return status == cudaSuccess;", "}"]
        return lines

    def enum_switch(self) -> list[str]:
        group = self.enum_group_cycle.next()
        cycle = self.enum_cycles[group]
        count = min(len(self.enum_groups[group]), self.rng.randint(3, 10))
        cases = []
        for name in cycle.take(count):
            if name not in cases:
                cases.append(name)
        name = self.uid("describe")
        lines = [f"// {name}: human-readable names for {group}* values (for logs).",
                 f"const char* {name}(int value)", "{", "    switch (value) {"]
        for enumerator in cases:
            lines += [f"    case {enumerator}:", f'        return "{enumerator}";']
        lines += ["    default:", '        return "unknown";', "    }", "}"]
        return lines

    def enum_table(self) -> list[str]:
        group = self.enum_group_cycle.next()
        values = sorted(set(self.enum_cycles[group].take(self.rng.randint(2, 6))))
        name = self.uid("kQueried")
        lines = [f"static const int {name}[] = {{"]
        lines += [f"    static_cast<int>({v})," for v in values]
        lines += ["};", f"constexpr int {name}_count = sizeof({name}) / sizeof({name}[0]);"]
        return lines

    def resource_struct(self, check: str) -> list[str]:
        name = self.uid("Resources")
        handle_types = self.types.take(self.rng.randint(1, 3))
        lines = [f"// {name} owns a stream and an event (RAII); other handles are borrowed.",
                 f"struct {name} {{",
                 "    cudaStream_t stream = nullptr;",
                 "    cudaEvent_t done = nullptr;"]
        for i, type_name in enumerate(handle_types):
            lines.append(f"    {type_name}* extra{i} = nullptr;")
        lines += [f"    {name}()", "    {",
                  f"        {check}(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));",
                  f"        {check}(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));",
                  "    }",
                  f"    ~{name}()", "    {",
                  "        // Errors are ignored here: destructors must not throw.",
                  "        cudaEventDestroy(done);",
                  "        cudaStreamDestroy(stream);",
                  "    }",
                  f"    {name}(const {name}&) = delete;",
                  f"    {name}& operator=(const {name}&) = delete;",
                  "};"]
        return lines

    def doc_comment(self) -> list[str]:
        names = self.functions.take(self.rng.randint(2, 5))
        lines = ["/*", " * Usage notes (kept from the original project):"]
        for fn in names:
            lines.append(f" *   - {fn}: see the CUDA runtime documentation; returns cudaError_t.")
        lines += [" * All calls go through the error macro so that failures name the call.", " */"]
        return lines

    def device_helper(self) -> list[str]:
        name = self.uid("clamp_add")
        return ["template <typename T>",
                f"__device__ __forceinline__ T {name}(T a, T b, T lo, T hi)", "{",
                "    const T s = a + b;", "    return s < lo ? lo : (s > hi ? hi : s);", "}"]

    def prototypes(self) -> list[str]:
        lines = []
        for _ in range(self.rng.randint(2, 5)):
            type_name = self.types.next()
            lines.append(f"bool {self.uid('configure')}({type_name}* target, cudaStream_t stream);")
        return lines


# --------------------------------------------------------------------------------------------
# Files


def _guard(path: str) -> str:
    return "BENCH_" + re.sub(r"[^A-Za-z0-9]", "_", path).upper()


def check_header(comp: str, macro: str, synth: Synth) -> str:
    guard = _guard(f"{comp}/include/check.h")
    lines = [f"// include/check.h - error checking for {comp}.", "//",
             f"// {macro}(call) prints the failing call with cudaGetErrorString and exits.",
             f"#ifndef {guard}", f"#define {guard}", "",
             "#include <cuda_runtime.h>", "", "#include <cstdio>", "#include <cstdlib>",
             "#include <stdexcept>", "",
             f"#define {macro}(call)                                                   \\",
             "    do {                                                                \\",
             "        cudaError_t err_ = (call);                                      \\",
             "        if (err_ != cudaSuccess) {                                      \\",
             '            std::fprintf(stderr, "%s:%d: %s: %s\\n", __FILE__, __LINE__, \\',
             "                         #call, cudaGetErrorString(err_));              \\",
             "            std::exit(EXIT_FAILURE);                                    \\",
             "        }                                                               \\",
             "    } while (0)", "",
             "inline void log_message(const char* text)", "{",
             '    std::fprintf(stderr, "[bench] %s\\n", text);', "}", ""]
    while len(lines) < MIN_FILE_LINES:
        lines += synth.enum_switch() + [""]
    lines += [f"#endif  // {guard}"]
    return "\n".join(lines) + "\n"


def synthetic_cu(comp: str, rel: str, target: int, synth: Synth, macro: str, headers: list[str]) -> str:
    rng = synth.rng
    lines = [f"// {rel} - generated benchmark source ({comp}).", "//",
             "// Kernels, launches and runtime calls; " + synth.comment()[3:], ""]
    include_style = rng.random()
    if include_style < 0.6:
        lines.append("#include <cuda_runtime.h>")
    elif include_style < 0.75:
        lines.append("#include <cuda.h>")
    elif include_style < 0.85:
        lines += ["#include <cuda_runtime_api.h>", "#include <device_launch_parameters.h>"]
    # else: no CUDA header (nvcc includes the runtime implicitly)
    lines.append('#include "../include/check.h"')
    for header in headers:
        lines.append(f'#include "../include/{header}"')
    lines += ["", "#include <cmath>", "#include <cstdio>", "#include <vector>", "",
              f"namespace {comp}_{Path(rel).stem} {{", "",
              "__constant__ float c_params[4];", "",
              "__global__ void noop_kernel() {}", "",
              "void host_callback(void* user_data)", "{", "    (void)user_data;", "}", ""]
    footer = [f"}}  // namespace {comp}_{Path(rel).stem}"]
    has_main = rng.random() < 0.25
    launches: list[str] = []
    while len(lines) + len(footer) + (12 if has_main else 0) < target:
        roll = rng.random()
        if roll < 0.40:
            name = synth.uid("k_" + Path(rel).stem)
            kernel_lines, launch_name = synth.kernel(name, templated=rng.random() < 0.35)
            block = kernel_lines + [""] + synth.launch(name, launch_name, macro)
            launches.append(name)
        elif roll < 0.65:
            block = synth.api_function(macro)
        elif roll < 0.78:
            block = synth.enum_switch()
        elif roll < 0.86:
            block = synth.resource_struct(macro)
        elif roll < 0.93:
            block = synth.enum_table()
        else:
            block = synth.doc_comment()
        lines += block + [""]
    lines += footer
    if has_main:
        ns = f"{comp}_{Path(rel).stem}"
        lines += ["", "int main()", "{", "    const int n = 1 << 16;", "    float* d_in = nullptr;",
                  "    float* d_out = nullptr;", f"    {macro}(cudaMalloc(&d_in, n * sizeof(float)));",
                  f"    {macro}(cudaMalloc(&d_out, n * sizeof(float)));"]
        for name in launches[:3]:
            lines.append(f"    // {ns}::{name}_launch(...) would run here")
        lines += [f"    {macro}(cudaFree(d_in));", f"    {macro}(cudaFree(d_out));",
                  '    std::printf("Test PASSED\\n");', "    return 0;", "}"]
    return "\n".join(lines) + "\n"


def synthetic_cuh(comp: str, rel: str, target: int, synth: Synth, macro: str) -> str:
    rng = synth.rng
    guard = _guard(f"{comp}/{rel}")
    pragma = rng.random() < 0.3
    lines = [f"// {rel} - generated benchmark header ({comp}).", ""]
    lines += ["#pragma once"] if pragma else [f"#ifndef {guard}", f"#define {guard}"]
    lines += ["", "#include <cuda_runtime.h>", '#include "check.h"', "",
              f"namespace {comp}_{Path(rel).stem} {{", ""]
    footer = [f"}}  // namespace {comp}_{Path(rel).stem}"] + ([] if pragma else ["", f"#endif  // {guard}"])
    while len(lines) + len(footer) < target:
        roll = rng.random()
        if roll < 0.30:
            name = synth.uid("tk_" + Path(rel).stem)
            block, _ = synth.kernel(name, templated=True)
        elif roll < 0.50:
            block = synth.device_helper()
        elif roll < 0.70:
            block = synth.prototypes()
        elif roll < 0.82:
            block = synth.resource_struct(macro)
        elif roll < 0.92:
            block = synth.enum_table()
        else:
            block = synth.doc_comment()
        lines += block + [""]
    lines += footer
    return "\n".join(lines) + "\n"


def synthetic_cpp(comp: str, rel: str, target: int, synth: Synth, macro: str) -> str:
    rng = synth.rng
    lines = [f"// {rel} - generated host-only benchmark source ({comp}).", "//",
             "// Host code calling the runtime API through <cuda_runtime_api.h>.", "",
             "#include <cuda_runtime_api.h>" if rng.random() < 0.7 else "#include <cuda_runtime.h>",
             '#include "../include/check.h"', "", "#include <cstdio>", "#include <string>", "",
             f"namespace {comp}_{Path(rel).stem} {{", "",
             "void noop_kernel() {}", "",
             "void host_callback(void* user_data)", "{", "    (void)user_data;", "}", ""]
    footer = [f"}}  // namespace {comp}_{Path(rel).stem}"]
    while len(lines) + len(footer) < target:
        roll = rng.random()
        if roll < 0.45:
            block = synth.api_function(macro)
        elif roll < 0.65:
            block = synth.enum_switch()
        elif roll < 0.80:
            block = synth.resource_struct(macro)
        elif roll < 0.90:
            block = synth.enum_table()
        else:
            block = synth.doc_comment()
        lines += block + [""]
    lines += footer
    return "\n".join(lines) + "\n"


def replicate(program: CorpusProgram, index: int, synth: Synth) -> dict[str, str]:
    """The program's files with its identifiers renamed (suffix ``_rNNN``), small headers padded."""
    suffix = f"_r{index:03d}"
    pattern = re.compile(r"\b(" + "|".join(map(re.escape, program.renamed)) + r")\b") if program.renamed else None
    out: dict[str, str] = {}
    single = len(program.files) == 1
    for rel, text in program.files.items():
        new = pattern.sub(lambda m: m.group(1) + suffix, text) if pattern else text
        count = new.count("\n")
        if count < MIN_FILE_LINES:
            new = _pad(new, MIN_FILE_LINES - count, synth, suffix, rel)
        # Rename the file like its identifiers (a multi-file program's quoted includes of
        # "kernels/saxpy.cuh" were renamed to "kernels/saxpy_rNNN.cuh" above).
        path = PurePosixPath(rel)
        if single or path.stem in program.renamed:
            rel = str(path.with_name(f"{path.stem}{suffix}{path.suffix}"))
        out[rel] = new
    return out


def _pad(text: str, missing: int, synth: Synth, suffix: str, rel: str) -> str:
    """Add constants and comments before a header's closing ``#endif`` (or at the end)."""
    block = ["", f"// Extra settings of this replica ({suffix[1:]}); unused by the program."]
    tag = re.sub(r"\W", "_", PurePosixPath(rel).with_suffix("").as_posix())
    i = 0
    while len(block) < missing + 1:
        block.append(synth.comment())
        block.append(f"constexpr int kSetting_{tag}{suffix}_{i} = {synth.rng.randint(1, 4096)};")
        i += 1
    lines = text.rstrip("\n").split("\n")
    at = len(lines)
    if lines and lines[-1].startswith("#endif"):
        at -= 1
        if at > 0 and lines[at - 1] == "":
            at -= 1
    lines[at:at] = block
    return "\n".join(lines) + "\n"


def _log_uniform_size(rng: random.Random) -> int:
    return int(MIN_FILE_LINES * math.exp(rng.random() * math.log((MAX_FILE_LINES - 60) / MIN_FILE_LINES)))


_MACROS = ["CUDA_CHECK", "CHECK_CUDA", "CK", "SAFE_CALL", "BENCH_CHECK", "cudaCheck_"]


def generate(out: Path, target_lines: int = DEFAULT_LINES, seed: int = DEFAULT_SEED,
             corpus_dir: Path = REPO / "corpus", rules_file: Path = REPO / "rules" / "cuda_runtime.yaml",
             quiet: bool = False) -> dict:
    """Write the tree into ``out`` (replaced if it holds a previously generated tree)."""
    if out.exists():
        if not (out / MANIFEST).is_file() and any(out.iterdir()):
            raise SystemExit(f"error: {out} exists, is not empty and holds no {MANIFEST}; refusing to delete it")
        shutil.rmtree(out)
    names = load_runtime_names(rules_file)
    programs = load_corpus(corpus_dir, names)
    rng = random.Random(seed)
    synth = Synth(rng, names)
    files: dict[str, str] = {}
    total = 0

    def add(rel: str, text: str) -> bool:
        nonlocal total
        files[rel] = text
        total += text.count("\n")
        return total >= target_lines

    comp_index = 0
    done = False
    while not done:
        comp = f"comp_{comp_index:03d}"
        macro = _MACROS[comp_index % len(_MACROS)]
        plan: list[tuple[str, str]] = [("check", "include/check.h")]
        for program in programs:
            plan.append(("corpus", program.name))
        n_cu, n_cuh, n_cpp = rng.randint(1, 3), rng.randint(0, 2), rng.randint(0, 2)
        stems = ["ops", "solver", "pipeline", "reduce", "stencil", "graph", "memory", "streams", "io", "model"]
        rng.shuffle(stems)
        cuh = [f"include/{stems.pop()}_{comp_index}.cuh" for _ in range(n_cuh)]
        cpp = [f"host/{stems.pop()}_{comp_index}.cpp" for _ in range(n_cpp)]
        cus = [f"src/{stems.pop()}_{comp_index}.cu" for _ in range(n_cu)]
        plan += [("cuh", p) for p in cuh] + [("cpp", p) for p in cpp] + [("cu", p) for p in cus]
        # Interleave so that a tree cut short at the target still has every kind of file.
        head, rest = plan[:1], plan[1:]
        rng.shuffle(rest)
        for kind, item in head + rest:
            if kind == "check":
                done = add(f"{comp}/{item}", check_header(comp, macro, synth))
            elif kind == "corpus":
                program = next(p for p in programs if p.name == item)
                for rel, text in replicate(program, comp_index, synth).items():
                    done = add(f"{comp}/corpus/{program.name}/{rel}", text) or done
            elif kind == "cu":
                headers = [Path(h).name for h in cuh]
                done = add(f"{comp}/{item}", synthetic_cu(comp, item, _log_uniform_size(rng), synth, macro, headers))
            elif kind == "cuh":
                done = add(f"{comp}/{item}", synthetic_cuh(comp, item, _log_uniform_size(rng), synth, macro))
            else:
                done = add(f"{comp}/{item}", synthetic_cpp(comp, item, _log_uniform_size(rng), synth, macro))
            if done:
                break
        comp_index += 1

    out.mkdir(parents=True, exist_ok=True)
    for rel in sorted(files):
        path = out / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(files[rel].encode("utf-8"))
    sizes = sorted(text.count("\n") for text in files.values())
    by_suffix: dict[str, int] = {}
    for rel in files:
        by_suffix[Path(rel).suffix] = by_suffix.get(Path(rel).suffix, 0) + 1
    manifest = {
        "generator": "bench/generate_tree.py",
        "generator_sha256": generator_digest(),
        "target_lines": target_lines,
        "seed": seed,
        "files": len(files),
        "lines": total,
        "components": comp_index,
        "files_by_suffix": dict(sorted(by_suffix.items())),
        "file_lines_min": sizes[0],
        "file_lines_median": sizes[len(sizes) // 2],
        "file_lines_max": sizes[-1],
        "corpus_programs": [p.name for p in programs],
        "content_sha256": hashlib.sha256(
            b"".join(rel.encode() + b"\0" + files[rel].encode() for rel in sorted(files))).hexdigest(),
    }
    (out / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    if not quiet:
        print(f"generated {out}: {len(files)} files, {total} lines in {comp_index} components "
              f"(file sizes {sizes[0]}..{sizes[-1]} lines, median {sizes[len(sizes) // 2]}); "
              f"{dict(sorted(by_suffix.items()))}")
    return manifest


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="output folder (replaced if it holds a generated tree)")
    parser.add_argument("--lines", type=int, default=DEFAULT_LINES,
                        help=f"target number of lines (default {DEFAULT_LINES})")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help=f"random seed (default {DEFAULT_SEED})")
    parser.add_argument("--corpus", type=Path, default=REPO / "corpus", help="corpus folder")
    parser.add_argument("--rules", type=Path, default=REPO / "rules" / "cuda_runtime.yaml", help="runtime rules file")
    args = parser.parse_args(argv)
    if args.lines < 1:
        parser.error("--lines must be positive")
    generate(args.out, args.lines, args.seed, args.corpus, args.rules)
    return 0


if __name__ == "__main__":
    sys.exit(main())

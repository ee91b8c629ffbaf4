"""Generated CUDA programs of common warp idioms, for the differential test of ``--fix``
(tests/test_warp_idioms.py) and its H200 run (scripts/warp_idioms_gpu_run.py).

Each kernel is one lane-number form, one or two warp stages (sum and maximum reductions, scans,
broadcasts, lane permutations, ballots, votes, segment shuffles, lane tests) and one way the
result leaves the warp (a store per thread; an add, maximum or OR atomic by the first lane of each
warp, of the result or of a value computed from it; per-warp ``__shared__`` slots folded by a sum
or a maximum; per-warp global slots; a second reduction over the slots; a count of warps;
per-lane bins). The stages and outputs are the shapes real warp code has, written for 32-lane
warps. :func:`program` draws ``count`` kernels from a fixed seed, so the text is the same on
every run and machine (``random.Random(seed)``, whose sequence Python keeps stable for a seed),
and ends with the :data:`CONTRASTS`, pairs that differ only in how the warps' results are
combined.

Every kernel runs on 2 blocks of 256 threads and prints ``kN <checksum>`` where the checksum is
``sum((i + 1) * out[i])`` over its 1,024 ``int`` outputs: integer arithmetic and integer atomics
only, so the value does not depend on the order threads or blocks run in. Each kernel is
launched from its own host function, called through a table, so ``--fix`` decides each kernel on
its own (a direct call from ``main`` would tie every kernel into one unit).
"""

from __future__ import annotations

import random

LANES = ["threadIdx.x % 32", "threadIdx.x & 31", "threadIdx.x & 0x1f"]
WARPS = ["threadIdx.x / 32", "threadIdx.x >> 5"]
FULL = "0xffffffff"

#: name -> statement(s) over ``int v`` (the thread's value), ``lane`` and ``wid``.
STAGES = {
    "reduce_down": "for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(FULL, v, o);",
    "reduce_xor": "for (int o = 16; o >= 1; o /= 2) v += __shfl_xor_sync(FULL, v, o);",
    "reduce_unrolled": ("v += __shfl_down_sync(FULL, v, 16); v += __shfl_down_sync(FULL, v, 8); "
                        "v += __shfl_down_sync(FULL, v, 4); v += __shfl_down_sync(FULL, v, 2); "
                        "v += __shfl_down_sync(FULL, v, 1);"),
    "reduce_partial": "for (int o = 8; o > 0; o >>= 1) v += __shfl_down_sync(FULL, v, o);",
    "scan_up": "for (int o = 1; o < 32; o <<= 1) { int t = __shfl_up_sync(FULL, v, o); if (lane >= o) v += t; }",
    "broadcast": "v = __shfl_sync(FULL, v, 0);",
    "reverse": "v = __shfl_sync(FULL, v, 31 - lane);",
    "rotate": "v = __shfl_sync(FULL, v, (lane + 1) % 32);",
    "ballot_rank": "unsigned b = __ballot_sync(FULL, v > 0); v = __popc(b & ((1u << lane) - 1));",
    "ballot_count": "unsigned c = __ballot_sync(FULL, v > 0); v = __popc(c);",
    "vote_any": "v = __any_sync(FULL, v > 10) ? v : -v;",
    "segment_xor": "v += __shfl_xor_sync(FULL, v, 8, 16);",
    "lane_test": "if (lane < 16) v = -v;",
    "neighbour": "v += __shfl_down_sync(FULL, v, 1);",
    "pair_max": "{ int p = __shfl_xor_sync(FULL, v, 1); v = v > p ? v : p; }",
    "reduce_max": "for (int o = 16; o > 0; o >>= 1) v = max(v, __shfl_xor_sync(FULL, v, o));",
    "vote_any_value": "v = __any_sync(FULL, v > 10);",
    "vote_all_value": "v = __all_sync(FULL, v > -5);",
    "reduce_then_bump": "for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(FULL, v, o); v++;",
}

#: name -> statement(s) that write ``out`` from ``v``.
OUTPUTS = {
    "per_thread": "out[blockIdx.x * blockDim.x + threadIdx.x] = v;",
    "first_lane_atomic": "if (lane == 0) atomicAdd(&out[blockIdx.x], v);",
    "shared_fold": ("__shared__ int slots[32]; if (lane == 0) slots[wid] = v; __syncthreads(); "
                    "if (threadIdx.x == 0) { int t = 0; for (int w = 0; w < blockDim.x / 32; ++w) t += slots[w]; "
                    "out[blockIdx.x] = t; }"),
    "per_warp_global": "if (lane == 0) out[blockIdx.x * (blockDim.x / 32) + wid] = v;",
    "two_stage": ("__shared__ int slots[32]; if (lane == 0) slots[wid] = v; __syncthreads(); "
                  "if (wid == 0) { int t = lane < blockDim.x / 32 ? slots[lane] : 0; "
                  "for (int o = 16; o > 0; o >>= 1) t += __shfl_down_sync(FULL, t, o); "
                  "if (lane == 0) out[blockIdx.x] = t; }"),
    "count_warps": "if (lane == 0) atomicAdd(&out[blockIdx.x], 1); out[512 + blockIdx.x * blockDim.x / 2 + threadIdx.x / 2] = v;",
    "lane_bins": "atomicAdd(&out[lane], v);",
    "first_lane_max": "if (lane == 0) atomicMax(&out[blockIdx.x], v);",
    "first_lane_or": "if (lane == 0) atomicOr(&out[blockIdx.x], v);",
    "first_lane_test": "if (lane == 0) atomicAdd(&out[blockIdx.x], v > 20);",
    "first_lane_square": "if (lane == 0) atomicAdd(&out[blockIdx.x], v * v);",
    "shared_fold_max": ("__shared__ int slots[32]; if (lane == 0) slots[wid] = v; __syncthreads(); "
                        "if (threadIdx.x == 0) { int t = -1000; for (int w = 0; w < blockDim.x / 32; ++w) "
                        "t = max(t, slots[w]); out[blockIdx.x] = t; }"),
}

#: (stage, output) pairs every program ends with: each whole-warp result combined across warps by
#: its own operation (widening keeps it) next to the same result combined by another operation,
#: counted, compared or squared first (widening changes it).
CONTRASTS = [
    ("reduce_down", "first_lane_atomic"), ("reduce_max", "first_lane_atomic"), ("reduce_max", "first_lane_max"),
    ("reduce_down", "first_lane_max"), ("reduce_max", "shared_fold_max"), ("reduce_max", "shared_fold"),
    ("reduce_down", "shared_fold_max"), ("vote_any_value", "first_lane_or"), ("vote_any_value", "first_lane_max"),
    ("vote_any_value", "first_lane_atomic"), ("vote_all_value", "first_lane_atomic"), ("vote_all_value", "first_lane_or"),
    ("reduce_down", "first_lane_test"), ("ballot_count", "first_lane_square"), ("ballot_count", "first_lane_atomic"),
    ("reduce_then_bump", "first_lane_atomic"), ("reduce_xor", "first_lane_or"), ("reduce_down", "shared_fold"),
]

_HEADER = """// Generated by tests/warp_idioms.py (seed {seed}, {count} kernels): warp idioms written for
// 32-lane warps, each kernel printing a checksum of its outputs.
#include <cstdio>
#include <cuda_runtime.h>

constexpr int kThreads = 256;
constexpr int kBlocks = 2;
constexpr int kOut = 1024;
"""

_MAIN = """
typedef void (*Run)(const int*, int*, int*);

int main()
{{
    static int h_in[kThreads * kBlocks], h_out[kOut];
    for (int i = 0; i < kThreads * kBlocks; ++i) h_in[i] = (i * 37 + 11) % 21 - 8;
    int *d_in, *d_out;
    cudaMalloc(&d_in, sizeof(h_in));
    cudaMalloc(&d_out, sizeof(h_out));
    cudaMemcpy(d_in, h_in, sizeof(h_in), cudaMemcpyHostToDevice);
    static const Run runs[] = {{{runs}}};
    for (int k = 0; k < {count}; ++k) {{
        cudaMemset(d_out, 0, sizeof(h_out));
        runs[k](d_in, d_out, h_out);
        long long checksum = 0;
        for (int i = 0; i < kOut; ++i) checksum += (long long)(i + 1) * h_out[i];
        printf("k%d %lld\\n", k, checksum);
    }}
    cudaFree(d_in);
    cudaFree(d_out);
    return 0;
}}
"""


def kernels(seed: int = 11, count: int = 64) -> list[dict]:
    """The drawn kernels: dicts with ``name``, ``lane``, ``warp``, ``stages`` (1 or 2 names of
    STAGES) and ``output`` (a name of OUTPUTS); ``count`` drawn ones, then one per pair of
    :data:`CONTRASTS`. Every stage and output occurs at least once when ``count`` is at least
    ``len(STAGES)``."""
    rng = random.Random(seed)
    stage_names, output_names = sorted(STAGES), sorted(OUTPUTS)
    drawn = []
    for index in range(count):
        first = stage_names[index] if index < len(stage_names) else rng.choice(stage_names)
        stages = [first] + ([rng.choice([n for n in stage_names if n != first])] if rng.random() < 0.5 else [])
        output = output_names[index % len(output_names)] if index < len(output_names) * 2 else rng.choice(output_names)
        drawn.append({"name": f"k{index}", "lane": rng.choice(LANES), "warp": rng.choice(WARPS),
                      "stages": stages, "output": output})
    for index, (stage, output) in enumerate(CONTRASTS, count):
        drawn.append({"name": f"k{index}", "lane": LANES[index % len(LANES)], "warp": WARPS[index % len(WARPS)],
                      "stages": [stage], "output": output})
    return drawn


def program(seed: int = 11, count: int = 64) -> str:
    """The CUDA source of the generated program (see the module docstring): ``count`` drawn
    kernels and the :data:`CONTRASTS`."""
    total = count + len(CONTRASTS)
    parts = [_HEADER.format(seed=seed, count=total)]
    for kernel in kernels(seed, count):
        body = [f"    int lane = {kernel['lane']};", f"    int wid = {kernel['warp']};",
                "    int v = in[blockIdx.x * blockDim.x + threadIdx.x];"]
        body += ["    " + STAGES[stage].replace("FULL", FULL) for stage in kernel["stages"]]
        body.append("    " + OUTPUTS[kernel["output"]].replace("FULL", FULL))
        parts.append(f"\n// {kernel['name']}: {' + '.join(kernel['stages'])} -> {kernel['output']}\n"
                     f"__global__ void {kernel['name']}(const int* in, int* out)\n{{\n" + "\n".join(body) + "\n}\n"
                     f"static void run_{kernel['name']}(const int* d_in, int* d_out, int* h_out)\n{{\n"
                     f"    {kernel['name']}<<<kBlocks, kThreads>>>(d_in, d_out);\n"
                     f"    cudaMemcpy(h_out, d_out, kOut * sizeof(int), cudaMemcpyDeviceToHost);\n}}\n")
    parts.append(_MAIN.format(runs=", ".join(f"run_{k['name']}" for k in kernels(seed, count)), count=total))
    return "".join(parts)

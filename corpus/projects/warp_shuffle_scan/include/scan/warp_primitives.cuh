// warp_primitives.cuh - warp-level building blocks.
//
// These assume a 32-thread warp: lane = threadIdx.x & 31, full mask
// 0xffffffff, ballots held in 32-bit unsigned ints and counted with __popc.
#pragma once

#include <cuda_runtime.h>

namespace warpscan {

constexpr int kWarpSize = 32;
constexpr unsigned int kFullMask = 0xffffffffu;

__device__ __forceinline__ int lane_id()
{
    return threadIdx.x & (kWarpSize - 1);
}

__device__ __forceinline__ int warp_id()
{
    return threadIdx.x / kWarpSize;
}

// Inclusive prefix sum across the warp (Kogge-Stone with __shfl_up_sync).
__device__ __forceinline__ int warp_inclusive_scan(int value)
{
    const int lane = lane_id();
#pragma unroll
    for (int offset = 1; offset < kWarpSize; offset <<= 1) {
        const int up = __shfl_up_sync(kFullMask, value, offset);
        if (lane >= offset) {
            value += up;
        }
    }
    return value;
}

// Sum across the warp, result in every lane (__shfl_down_sync then broadcast).
__device__ __forceinline__ int warp_sum(int value)
{
#pragma unroll
    for (int offset = kWarpSize / 2; offset > 0; offset >>= 1) {
        value += __shfl_down_sync(kFullMask, value, offset);
    }
    return __shfl_sync(kFullMask, value, 0);
}

// Maximum across the warp with butterfly exchanges.
__device__ __forceinline__ int warp_max(int value)
{
#pragma unroll
    for (int mask = kWarpSize / 2; mask > 0; mask >>= 1) {
        value = max(value, __shfl_xor_sync(kFullMask, value, mask));
    }
    return value;
}

// Lanes below this one whose predicate is true.
__device__ __forceinline__ int rank_in_warp(bool predicate, unsigned int* ballot_out)
{
    const unsigned int ballot = __ballot_sync(kFullMask, predicate);
    const unsigned int lower = (1u << lane_id()) - 1u;
    *ballot_out = ballot;
    return __popc(ballot & lower);
}

}  // namespace warpscan

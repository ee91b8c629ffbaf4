// transform_reduce.cuh - reduce(op(x[i])) over a device array.
//
// The kernel template is here so that other code can launch it with its own
// block size; the host function is defined in src/transform_reduce.cu and
// instantiated there for the types and functors the library supports.
#pragma once

#include "tlib/functors.cuh"

#include <cuda_runtime.h>

namespace tlib {

// Each block reduces BlockSize * ItemsPerThread elements per iteration of a
// grid-stride loop and writes one partial result. Summation order depends
// only on the launch shape, so results are reproducible run to run.
template <typename T, int BlockSize, int ItemsPerThread, typename Transform, typename Reduce>
__global__ void transform_reduce_kernel(const T* __restrict__ in, int n, Transform op,
                                        Reduce red, T* __restrict__ partial)
{
    __shared__ T scratch[BlockSize];
    T acc = Reduce::template identity<T>();
    const int stride = gridDim.x * BlockSize * ItemsPerThread;
    for (int base = blockIdx.x * BlockSize * ItemsPerThread + threadIdx.x; base < n;
         base += stride) {
#pragma unroll
        for (int k = 0; k < ItemsPerThread; ++k) {
            const int i = base + k * BlockSize;
            if (i < n) {
                acc = red(acc, op(in[i]));
            }
        }
    }
    scratch[threadIdx.x] = acc;
    __syncthreads();
#pragma unroll
    for (int s = BlockSize / 2; s > 0; s /= 2) {
        if (threadIdx.x < s) {
            scratch[threadIdx.x] = red(scratch[threadIdx.x], scratch[threadIdx.x + s]);
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        partial[blockIdx.x] = scratch[0];
    }
}

// Launch configuration the host entry point uses.
struct ReduceConfig {
    static constexpr int kBlockSize = 256;
    static constexpr int kItemsPerThread = 4;
    static constexpr int kMaxBlocks = 120;
};

// Two passes (partials, then one block over the partials). Synchronizes
// `stream` before returning the value.
template <typename T, typename Transform, typename Reduce>
T transform_reduce(const T* d_in, int n, Transform op, Reduce red, cudaStream_t stream = 0);

}  // namespace tlib

// kernels/saxpy.cuh - header-only saxpy kernel template.
//
// out = alpha * x + y. Out of place, so launching it again produces the same
// output. Each thread handles ITEMS elements spaced one block apart.
#ifndef HIPPORT_CORPUS_MULTI_FILE_KERNELS_SAXPY_CUH
#define HIPPORT_CORPUS_MULTI_FILE_KERNELS_SAXPY_CUH

#include "config.h"  // kernels/config.h, found next to this header

template <typename T>
__device__ __forceinline__ T axpy_element(T alpha, T x, T y)
{
    return alpha * x + y;
}

template <typename T, int BLOCK, int ITEMS>
__global__ void saxpy(T alpha, const T* __restrict__ x,
                      const T* __restrict__ y, T* __restrict__ out, int n)
{
    const int base = blockIdx.x * (BLOCK * ITEMS) + threadIdx.x;
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) {
        const int i = base + k * BLOCK;
        if (i < n) {
            out[i] = axpy_element(alpha, x[i], y[i]);
        }
    }
}

// Grid size for n elements with the settings from kernels/config.h.
inline int saxpy_grid_size(int n)
{
    constexpr int per_block =
        kernel_config::kBlockSize * kernel_config::kItemsPerThread;
    return (n + per_block - 1) / per_block;
}

#endif  // HIPPORT_CORPUS_MULTI_FILE_KERNELS_SAXPY_CUH

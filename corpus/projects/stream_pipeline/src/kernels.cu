// kernels.cu - per-chunk kernels of the pipeline.
#include "pipeline/error.h"
#include "pipeline/kernels.cuh"

namespace pipeline {
namespace {

constexpr int kBlock = 256;

// Horner's rule with explicit fmaf: each step is one correctly rounded fused
// multiply-add, so the host can reproduce the result bit for bit.
__global__ void polynomial_kernel(const float* __restrict__ x, float* __restrict__ y, int n,
                                  const float* __restrict__ coeffs)
{
    float c[kPolyDegree + 1];
#pragma unroll
    for (int k = 0; k <= kPolyDegree; ++k) {
        c[k] = coeffs[k];
    }
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        const float v = x[i];
        float acc = c[kPolyDegree];
#pragma unroll
        for (int k = kPolyDegree - 1; k >= 0; --k) {
            acc = fmaf(acc, v, c[k]);
        }
        y[i] = acc;
    }
}

__global__ void clamp_count_kernel(float* __restrict__ y, int n, float lo, float hi,
                                   unsigned int* __restrict__ count)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    bool clamped = false;
    if (i < n) {
        const float v = y[i];
        clamped = v < lo || v > hi;
        y[i] = fminf(fmaxf(v, lo), hi);
    }
    // Every thread of the block reaches this barrier.
    const int block_clamped = __syncthreads_count(clamped);
    if (threadIdx.x == 0 && block_clamped > 0) {
        atomicAdd(count, static_cast<unsigned int>(block_clamped));
    }
}

}  // namespace

void launch_polynomial(const float* x, float* y, int n, const float* coeffs, cudaStream_t stream)
{
    const int blocks = (n + kBlock - 1) / kBlock;
    polynomial_kernel<<<blocks, kBlock, 0, stream>>>(x, y, n, coeffs);
    PIPE_CHECK(cudaGetLastError());
}

void launch_clamp_count(float* y, int n, float lo, float hi, unsigned int* count,
                        cudaStream_t stream)
{
    clamp_count_kernel<<<(n + kBlock - 1) / kBlock, kBlock, 0, stream>>>(y, n, lo, hi, count);
    PIPE_CHECK(cudaGetLastError());
}

KernelInfo polynomial_info(int block_size)
{
    cudaFuncAttributes attr;
    PIPE_CHECK(cudaFuncGetAttributes(&attr, polynomial_kernel));
    int blocks_per_sm = 0;
    PIPE_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, polynomial_kernel,
                                                             block_size, 0));
    return KernelInfo{attr.maxThreadsPerBlock, blocks_per_sm};
}

}  // namespace pipeline

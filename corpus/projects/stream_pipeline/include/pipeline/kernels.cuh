// kernels.cuh - the per-chunk kernels (src/kernels.cu).
#pragma once

#include <cuda_runtime.h>

namespace pipeline {

constexpr int kPolyDegree = 6;

// y[i] = p(x[i]) with p given by kPolyDegree + 1 coefficients (Horner, FMA).
void launch_polynomial(const float* x, float* y, int n, const float* coeffs, cudaStream_t stream);
// Clamps y to [lo, hi] in place and writes how many were clamped to *count
// (one atomicAdd per block).
void launch_clamp_count(float* y, int n, float lo, float hi, unsigned int* count,
                        cudaStream_t stream);
// The polynomial kernel's attributes and occupancy, for the log.
struct KernelInfo {
    int max_threads_per_block;
    int blocks_per_sm;
};
KernelInfo polynomial_info(int block_size);

}  // namespace pipeline

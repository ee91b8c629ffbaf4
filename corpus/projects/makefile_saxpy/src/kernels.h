// kernels.h - host wrappers of the kernels in saxpy.cu and dot.cu.
#pragma once

#include <cuda_runtime.h>

// y = a * x + y (grid-stride loop).
void saxpy(int n, float a, const float* x, float* y, int sm_count);
// Partial dot products of x and y, one per block, in double; returns the
// number of partials written to `partials` (at most max_partials).
int dot_partials(int n, const float* x, const float* y, double* partials, int max_partials,
                 int sm_count);

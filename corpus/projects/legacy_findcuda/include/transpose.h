/* transpose.h - kernels of the legacy_findcuda library (src/transpose.cu,
 * src/histogram.cu), callable from plain C++. */
#ifndef LEGACY_TRANSPOSE_H
#define LEGACY_TRANSPOSE_H

#include <cuda_runtime.h>

/* out (cols x rows) = in (rows x cols) transposed, row-major. */
void transpose_naive(const float* in, float* out, int rows, int cols, cudaStream_t stream);
void transpose_tiled(const float* in, float* out, int rows, int cols, cudaStream_t stream);

/* bins[256] += byte counts of data[0..n). */
void histogram256(const unsigned char* data, int n, unsigned int* bins, cudaStream_t stream);

/* What the runtime says about the tiled kernel. */
struct KernelReport {
    int max_threads_per_block;
    int static_shared_bytes;
    int min_grid_for_full_occupancy;
    int suggested_block_size;
    int resident_blocks_per_sm;
};
KernelReport describe_transpose_tiled();

#endif

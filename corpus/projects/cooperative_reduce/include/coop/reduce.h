// reduce.h - host entry points (src/block_reduce.cu, src/grid_reduce.cu).
#pragma once

#include <cuda_runtime.h>

namespace coop {

constexpr int kBlockSize = 256;

// Two kernel launches: block partials, then one block over the partials.
float sum_two_pass(const float* d_in, int n, float* d_partial, float* d_out, cudaStream_t stream);
// One cooperative launch: partials, grid.sync(), block 0 finishes.
// Returns false (and does nothing) when the device cannot launch
// cooperative kernels.
bool sum_grid_sync(const float* d_in, int n, float* d_partial, float* d_out, cudaStream_t stream);
// Grid size used by sum_grid_sync: every block resident at once.
int grid_sync_blocks();
// Largest partial count any of the two needs.
int max_partials(int n);

// Counts of values > threshold per 32-thread tile, written with
// tiled_partition and ballot-free tile reductions; out has one entry per tile.
void count_above(const float* d_in, int n, float threshold, unsigned int* d_tile_counts,
                 cudaStream_t stream);

}  // namespace coop

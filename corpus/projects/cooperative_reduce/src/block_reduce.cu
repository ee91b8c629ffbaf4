// block_reduce.cu - two-pass sum and per-tile counts with cooperative groups.
#include "coop/reduce.h"
#include "coop/tile_reduce.cuh"

#include <cstdio>
#include <cstdlib>

namespace coop {
namespace {

void check(cudaError_t e, const char* what)
{
    if (e != cudaSuccess) {
        std::fprintf(stderr, "cooperative_reduce: %s: %s\n", what, cudaGetErrorString(e));
        std::exit(EXIT_FAILURE);
    }
}

__global__ void block_partials(const float* __restrict__ in, int n, float* __restrict__ partial)
{
    const cg::thread_block block = cg::this_thread_block();
    float v = 0.0f;
    for (int i = blockIdx.x * kBlockSize + block.thread_rank(); i < n; i += gridDim.x * kBlockSize) {
        v += in[i];
    }
    v = block_sum<kBlockSize>(block, v);
    if (block.thread_rank() == 0) {
        partial[blockIdx.x] = v;
    }
}

__global__ void tile_counts(const float* __restrict__ in, int n, float threshold,
                            unsigned int* __restrict__ counts)
{
    const cg::thread_block block = cg::this_thread_block();
    const cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    const int i = blockIdx.x * kBlockSize + block.thread_rank();
    const unsigned int above = (i < n && in[i] > threshold) ? 1u : 0u;
    const unsigned int total = tile_sum(tile, above);
    if (tile.thread_rank() == 0) {
        counts[(blockIdx.x * kBlockSize + block.thread_rank()) / 32] = total;
    }
}

}  // namespace

int max_partials(int n)
{
    const int blocks = (n + kBlockSize - 1) / kBlockSize;
    const int two_pass = blocks < 1024 ? blocks : 1024;
    const int grid = grid_sync_blocks();
    return two_pass > grid ? two_pass : grid;
}

float sum_two_pass(const float* d_in, int n, float* d_partial, float* d_out, cudaStream_t stream)
{
    int blocks = (n + kBlockSize - 1) / kBlockSize;
    blocks = blocks < 1024 ? blocks : 1024;
    block_partials<<<blocks, kBlockSize, 0, stream>>>(d_in, n, d_partial);
    check(cudaGetLastError(), "block_partials");
    block_partials<<<1, kBlockSize, 0, stream>>>(d_partial, blocks, d_out);
    check(cudaGetLastError(), "block_partials (final)");
    float result = 0.0f;
    check(cudaMemcpyAsync(&result, d_out, sizeof(float), cudaMemcpyDeviceToHost, stream), "copy");
    check(cudaStreamSynchronize(stream), "sync");
    return result;
}

void count_above(const float* d_in, int n, float threshold, unsigned int* d_tile_counts,
                 cudaStream_t stream)
{
    tile_counts<<<(n + kBlockSize - 1) / kBlockSize, kBlockSize, 0, stream>>>(d_in, n, threshold,
                                                                          d_tile_counts);
    check(cudaGetLastError(), "tile_counts");
}

}  // namespace coop

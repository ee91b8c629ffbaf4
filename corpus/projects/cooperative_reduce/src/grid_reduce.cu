// grid_reduce.cu - a single-kernel sum with a grid-wide barrier.
//
// A grid_group::sync() is only legal when every block is resident at once,
// which cudaLaunchCooperativeKernel guarantees (or refuses to launch); the
// grid size comes from the occupancy calculator.
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

__global__ void grid_sum_kernel(const float* __restrict__ in, int n, float* __restrict__ partial,
                                float* __restrict__ out)
{
    const cg::grid_group grid = cg::this_grid();
    const cg::thread_block block = cg::this_thread_block();
    float v = 0.0f;
    for (unsigned long long i = grid.thread_rank(); i < static_cast<unsigned long long>(n);
         i += grid.size()) {
        v += in[i];
    }
    v = block_sum<kBlockSize>(block, v);
    if (block.thread_rank() == 0) {
        partial[blockIdx.x] = v;
    }
    grid.sync();  // every partial is written and visible
    if (blockIdx.x == 0) {
        float w = 0.0f;
        for (unsigned int i = block.thread_rank(); i < gridDim.x; i += kBlockSize) {
            w += partial[i];
        }
        w = block_sum<kBlockSize>(block, w);
        if (block.thread_rank() == 0) {
            *out = w;
        }
    }
}

}  // namespace

int grid_sync_blocks()
{
    int device = 0, sms = 0, per_sm = 0;
    check(cudaGetDevice(&device), "cudaGetDevice");
    check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "SM count");
    check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, grid_sum_kernel, kBlockSize, 0),
          "occupancy");
    // Two blocks per SM at most: plenty for a memory-bound sum.
    return sms * (per_sm < 2 ? per_sm : 2);
}

bool sum_grid_sync(const float* d_in, int n, float* d_partial, float* d_out, cudaStream_t stream)
{
    int device = 0, cooperative = 0;
    check(cudaGetDevice(&device), "cudaGetDevice");
    check(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, device),
          "cooperative attribute");
    if (!cooperative) {
        return false;
    }
    cudaFuncAttributes attr;
    check(cudaFuncGetAttributes(&attr, grid_sum_kernel), "cudaFuncGetAttributes");
    if (attr.maxThreadsPerBlock < kBlockSize) {
        return false;
    }
    const dim3 grid(grid_sync_blocks());
    const dim3 block(kBlockSize);
    void* args[] = {const_cast<float**>(&d_in), &n, &d_partial, &d_out};
    check(cudaLaunchCooperativeKernel(reinterpret_cast<void*>(grid_sum_kernel), grid, block, args,
                                      0, stream),
          "cudaLaunchCooperativeKernel");
    return true;
}

}  // namespace coop

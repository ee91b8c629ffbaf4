// scan.cu - tile scans with warp shuffles, recursive over tile totals.
#include "scan/scan.h"
#include "scan/warp_primitives.cuh"

#include <cstdio>
#include <cstdlib>

namespace warpscan {

namespace detail {
void check_launch(const char* kernel)
{
    const cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess) {
        std::fprintf(stderr, "warp_shuffle_scan: %s: %s\n", kernel, cudaGetErrorString(err));
        std::exit(EXIT_FAILURE);
    }
}
}  // namespace detail

namespace {

constexpr int kWarps = kScanBlock / kWarpSize;

// Scans one tile of kTileItems ints. Loads are coalesced into shared memory,
// then each thread scans its kItemsPerThread consecutive items, then the
// thread totals are scanned across the warp and across the block's warps.
__global__ void scan_tiles(const int* __restrict__ in, int* __restrict__ out, int n,
                           int* __restrict__ tile_totals)
{
    __shared__ int items[kTileItems];
    __shared__ int warp_totals[kWarps];
    const int base = blockIdx.x * kTileItems;
    for (int k = threadIdx.x; k < kTileItems; k += kScanBlock) {
        items[k] = (base + k < n) ? in[base + k] : 0;
    }
    __syncthreads();

    int local[kItemsPerThread];
    int running = 0;
#pragma unroll
    for (int k = 0; k < kItemsPerThread; ++k) {
        running += items[threadIdx.x * kItemsPerThread + k];
        local[k] = running;
    }
    const int thread_inclusive = warp_inclusive_scan(running);
    if (lane_id() == kWarpSize - 1) {
        warp_totals[warp_id()] = thread_inclusive;
    }
    __syncthreads();
    if (warp_id() == 0) {
        const int t = (lane_id() < kWarps) ? warp_totals[lane_id()] : 0;
        const int scanned = warp_inclusive_scan(t);
        if (lane_id() < kWarps) {
            warp_totals[lane_id()] = scanned;
        }
    }
    __syncthreads();
    const int warp_prefix = (warp_id() > 0) ? warp_totals[warp_id() - 1] : 0;
    const int thread_prefix = warp_prefix + thread_inclusive - running;
#pragma unroll
    for (int k = 0; k < kItemsPerThread; ++k) {
        items[threadIdx.x * kItemsPerThread + k] = thread_prefix + local[k];
    }
    __syncthreads();
    for (int k = threadIdx.x; k < kTileItems; k += kScanBlock) {
        if (base + k < n) {
            out[base + k] = items[k];
        }
    }
    if (threadIdx.x == 0) {
        tile_totals[blockIdx.x] = warp_totals[kWarps - 1];
    }
}

__global__ void add_tile_offsets(int* __restrict__ out, int n, const int* __restrict__ scanned_totals)
{
    if (blockIdx.x == 0) {
        return;
    }
    const int offset = scanned_totals[blockIdx.x - 1];
    const int base = blockIdx.x * kTileItems;
    for (int k = threadIdx.x; k < kTileItems && base + k < n; k += kScanBlock) {
        out[base + k] += offset;
    }
}

int tiles_for(int n)
{
    return (n + kTileItems - 1) / kTileItems;
}

}  // namespace

int scan_temp_elements(int n)
{
    const int tiles = tiles_for(n);
    return tiles == 1 ? 1 : 2 * tiles + scan_temp_elements(tiles);
}

void inclusive_scan(const int* d_in, int* d_out, int n, int* d_temp, cudaStream_t stream)
{
    const int tiles = tiles_for(n);
    int* totals = d_temp;
    scan_tiles<<<tiles, kScanBlock, 0, stream>>>(d_in, d_out, n, totals);
    detail::check_launch("scan_tiles");
    if (tiles == 1) {
        return;
    }
    int* scanned = d_temp + tiles;
    inclusive_scan(totals, scanned, tiles, d_temp + 2 * tiles, stream);
    add_tile_offsets<<<tiles, kScanBlock, 0, stream>>>(d_out, n, scanned);
    detail::check_launch("add_tile_offsets");
}

}  // namespace warpscan

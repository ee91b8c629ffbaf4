// compact.cu - order-preserving stream compaction with __ballot_sync.
#include "scan/scan.h"
#include "scan/warp_primitives.cuh"

namespace warpscan {

namespace detail {
void check_launch(const char* kernel);
}

namespace {

constexpr int kWarps = kScanBlock / kWarpSize;

// Positives per tile: one ballot per warp and step, counted with __popc.
__global__ void count_positive(const int* __restrict__ in, int n, int* __restrict__ tile_counts)
{
    __shared__ int warp_counts[kWarps];
    const int base = blockIdx.x * kTileItems;
    int count = 0;
    for (int k = threadIdx.x; k < kTileItems; k += kScanBlock) {
        const bool keep = base + k < n && in[base + k] > 0;
        const unsigned int ballot = __ballot_sync(kFullMask, keep);
        count += __popc(ballot);  // the same in every lane
    }
    if (lane_id() == 0) {
        warp_counts[warp_id()] = count;
    }
    __syncthreads();
    if (warp_id() == 0) {
        const int c = warp_sum(lane_id() < kWarps ? warp_counts[lane_id()] : 0);
        if (lane_id() == 0) {
            tile_counts[blockIdx.x] = c;
        }
    }
}

// Writes the positives of each tile from its offset on, in input order.
__global__ void scatter_positive(const int* __restrict__ in, int n,
                                 const int* __restrict__ scanned_counts, int* __restrict__ out,
                                 int* __restrict__ total)
{
    __shared__ int warp_offsets[kWarps];
    const int base = blockIdx.x * kTileItems;
    int write_at = (blockIdx.x > 0) ? scanned_counts[blockIdx.x - 1] : 0;
    for (int step = 0; step < kTileItems; step += kScanBlock) {
        const int i = base + step + threadIdx.x;
        const int value = (i < n) ? in[i] : 0;
        const bool keep = value > 0;
        unsigned int ballot;
        const int rank = rank_in_warp(keep, &ballot);
        if (lane_id() == 0) {
            warp_offsets[warp_id()] = __popc(ballot);
        }
        __syncthreads();
        if (warp_id() == 0) {
            const int c = (lane_id() < kWarps) ? warp_offsets[lane_id()] : 0;
            const int inclusive = warp_inclusive_scan(c);
            if (lane_id() < kWarps) {
                warp_offsets[lane_id()] = inclusive - c;  // exclusive
            }
        }
        __syncthreads();
        if (keep) {
            out[write_at + warp_offsets[warp_id()] + rank] = value;
        }
        // A barrier too: warp_offsets is read by all before the next step.
        write_at += __syncthreads_count(keep);
    }
    if (blockIdx.x == gridDim.x - 1 && threadIdx.x == 0) {
        *total = write_at;
    }
}

int tiles_for(int n)
{
    return (n + kTileItems - 1) / kTileItems;
}

}  // namespace

int compact_temp_elements(int n)
{
    const int tiles = tiles_for(n);
    return 2 * tiles + scan_temp_elements(tiles);
}

void compact_positive(const int* d_in, int* d_out, int* d_count, int n, int* d_temp,
                      cudaStream_t stream)
{
    const int tiles = tiles_for(n);
    int* counts = d_temp;
    int* scanned = d_temp + tiles;
    count_positive<<<tiles, kScanBlock, 0, stream>>>(d_in, n, counts);
    detail::check_launch("count_positive");
    inclusive_scan(counts, scanned, tiles, d_temp + 2 * tiles, stream);
    scatter_positive<<<tiles, kScanBlock, 0, stream>>>(d_in, n, scanned, d_out, d_count);
    detail::check_launch("scatter_positive");
}

}  // namespace warpscan

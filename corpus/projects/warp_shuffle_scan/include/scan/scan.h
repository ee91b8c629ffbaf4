// scan.h - device-wide algorithms built on warp primitives.
#pragma once

#include <cuda_runtime.h>

namespace warpscan {

constexpr int kScanBlock = 256;   // 8 warps
constexpr int kItemsPerThread = 4;
constexpr int kTileItems = kScanBlock * kItemsPerThread;

// Inclusive prefix sum of n ints (three kernels: tile scans, scan of tile
// totals, add tile offsets). `temp` needs scan_temp_elements(n) ints.
void inclusive_scan(const int* d_in, int* d_out, int n, int* d_temp, cudaStream_t stream);
int scan_temp_elements(int n);

// Copies the positive values of d_in to d_out, keeping their order; writes
// the number kept to *d_count. `temp` needs compact_temp_elements(n) ints.
void compact_positive(const int* d_in, int* d_out, int* d_count, int n, int* d_temp,
                      cudaStream_t stream);
int compact_temp_elements(int n);

// 32-bin histogram of (value & 31) using warp-aggregated atomics: the lanes
// of a warp that share a bin elect one leader with __ballot_sync/__match-free
// code and add their count at once. Also the largest value (warp_max).
void histogram32(const int* d_in, int n, unsigned int* d_bins, int* d_max, cudaStream_t stream);

}  // namespace warpscan

// histogram.cu - a 32-bin histogram where lane b of every warp owns bin b.
//
// For each bin the warp takes one ballot of "my value falls in this bin";
// the owning lane adds the population count. That is only a complete
// histogram because a warp has exactly as many lanes as there are bins.
#include "scan/scan.h"
#include "scan/warp_primitives.cuh"

namespace warpscan {

namespace detail {
void check_launch(const char* kernel);
}

namespace {

constexpr int kBins = kWarpSize;
constexpr int kHistBlock = 256;

__global__ void histogram32_kernel(const int* __restrict__ in, int n,
                                   unsigned int* __restrict__ bins, int* __restrict__ max_out)
{
    __shared__ unsigned int block_bins[kBins];
    if (threadIdx.x < kBins) {
        block_bins[threadIdx.x] = 0;
    }
    __syncthreads();

    unsigned int mine = 0;     // count of bin lane_id() seen by this warp
    int largest = -2147483647 - 1;
    // All lanes of a warp run the same number of iterations, so the full
    // mask is always right.
    const int stride = gridDim.x * blockDim.x;
    for (int start = blockIdx.x * blockDim.x; start < n; start += stride) {
        const int i = start + threadIdx.x;
        const bool valid = i < n;
        const int value = valid ? in[i] : 0;
        const int bin = value & (kBins - 1);
        if (valid) {
            largest = max(largest, value);
        }
#pragma unroll 4
        for (int b = 0; b < kBins; ++b) {
            const unsigned int hits = __ballot_sync(kFullMask, valid && bin == b);
            if (lane_id() == b) {
                mine += __popc(hits);
            }
        }
    }
    atomicAdd(&block_bins[lane_id()], mine);
    largest = warp_max(largest);
    if (lane_id() == 0) {
        atomicMax(max_out, largest);
    }
    __syncthreads();
    if (threadIdx.x < kBins) {
        atomicAdd(&bins[threadIdx.x], block_bins[threadIdx.x]);
    }
}

}  // namespace

void histogram32(const int* d_in, int n, unsigned int* d_bins, int* d_max, cudaStream_t stream)
{
    int device = 0, sms = 0;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    const int blocks = sms * 4;
    const int lowest = -2147483647 - 1;
    cudaMemsetAsync(d_bins, 0, kBins * sizeof(unsigned int), stream);
    cudaMemcpyAsync(d_max, &lowest, sizeof(int), cudaMemcpyHostToDevice, stream);
    histogram32_kernel<<<blocks, kHistBlock, 0, stream>>>(d_in, n, d_bins, d_max);
    detail::check_launch("histogram32_kernel");
}

}  // namespace warpscan

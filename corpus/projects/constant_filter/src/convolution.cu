// convolution.cu - separable convolution with the taps in constant memory.
//
// All threads of a warp read the same tap at the same time, which is the
// broadcast pattern constant memory is made for.
#include "convolution.cuh"

#include <cstdio>
#include <cstdlib>

#define CF_CHECK(call)                                                            \
    do {                                                                          \
        cudaError_t status = (call);                                              \
        if (status != cudaSuccess) {                                              \
            std::fprintf(stderr, "constant_filter: %s failed at %s:%d: %s\n", #call, \
                         __FILE__, __LINE__, cudaGetErrorString(status));         \
            std::exit(1);                                                         \
        }                                                                         \
    } while (0)

namespace cfilter {
namespace {

constexpr int kTaps = 2 * FILTER_MAX_RADIUS + 1;
constexpr int kRowBlockX = 32;
constexpr int kRowBlockY = 8;
constexpr int kColBlockX = 32;
constexpr int kColBlockY = 8;

__constant__ float c_weights[kTaps];
__constant__ FilterParams c_params;

__device__ __forceinline__ int clamp_index(int v, int hi)
{
    return v < 0 ? 0 : (v > hi ? hi : v);
}

// Each block filters a 32 x 8 patch; the row segment and its halo are staged
// in shared memory first.
__global__ void convolve_rows(const float* __restrict__ src, float* __restrict__ dst)
{
    __shared__ float tile[kRowBlockY][kRowBlockX + 2 * FILTER_MAX_RADIUS];
    const int radius = c_params.radius;
    const int x = blockIdx.x * kRowBlockX + threadIdx.x;
    const int y = min(blockIdx.y * kRowBlockY + threadIdx.y, c_params.height - 1);
    const float* row = src + static_cast<size_t>(y) * c_params.pitch;
    const int last = c_params.width - 1;

    tile[threadIdx.y][threadIdx.x + FILTER_MAX_RADIUS] = row[clamp_index(x, last)];
    if (threadIdx.x < FILTER_MAX_RADIUS) {
        tile[threadIdx.y][threadIdx.x] = row[clamp_index(x - FILTER_MAX_RADIUS, last)];
        tile[threadIdx.y][threadIdx.x + kRowBlockX + FILTER_MAX_RADIUS] =
            row[clamp_index(x + kRowBlockX, last)];
    }
    __syncthreads();

    if (x < c_params.width && blockIdx.y * kRowBlockY + threadIdx.y < c_params.height) {
        float sum = 0.0f;
        for (int k = -radius; k <= radius; ++k) {
            sum += c_weights[k + radius] * tile[threadIdx.y][threadIdx.x + FILTER_MAX_RADIUS + k];
        }
        dst[static_cast<size_t>(y) * c_params.pitch + x] = sum;
    }
}

// Straight from global memory: neighbouring threads read neighbouring
// columns, so every tap is a coalesced row read.
__global__ void convolve_columns(const float* __restrict__ src, float* __restrict__ dst)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= c_params.width || y >= c_params.height) {
        return;
    }
    const int radius = c_params.radius;
    float sum = 0.0f;
    for (int k = -radius; k <= radius; ++k) {
        const int yy = clamp_index(y + k, c_params.height - 1);
        sum += c_weights[k + radius] * src[static_cast<size_t>(yy) * c_params.pitch + x];
    }
    dst[static_cast<size_t>(y) * c_params.pitch + x] = c_params.gain * sum;
}

FilterParams g_host_params;  // the last parameters uploaded (for grid sizes)

}  // namespace

void upload_filter(const std::vector<float>& weights, const FilterParams& params,
                   cudaStream_t stream)
{
    if (params.radius < 0 || params.radius > FILTER_MAX_RADIUS ||
        weights.size() != static_cast<size_t>(2 * params.radius + 1)) {
        std::fprintf(stderr, "constant_filter: bad filter radius %d\n", params.radius);
        std::exit(1);
    }
    const size_t used = weights.size() * sizeof(float);
    static const float zeros[kTaps] = {};
    CF_CHECK(cudaMemcpyToSymbolAsync(c_weights, weights.data(), used, 0,
                                     cudaMemcpyHostToDevice, stream));
    // The unused taps after the used ones, at a byte offset into the symbol.
    CF_CHECK(cudaMemcpyToSymbolAsync(c_weights, zeros, sizeof(zeros) - used, used,
                                     cudaMemcpyHostToDevice, stream));
    CF_CHECK(cudaMemcpyToSymbol(c_params, &params, sizeof(FilterParams)));
    CF_CHECK(cudaStreamSynchronize(stream));
    g_host_params = params;
}

void download_filter(std::vector<float>& weights, FilterParams& params)
{
    size_t symbol_bytes = 0;
    CF_CHECK(cudaGetSymbolSize(&symbol_bytes, c_weights));
    weights.assign(symbol_bytes / sizeof(float), -1.0f);
    CF_CHECK(cudaMemcpyFromSymbol(weights.data(), c_weights, symbol_bytes));
    // The parameters through the symbol's device address instead.
    void* params_address = nullptr;
    CF_CHECK(cudaGetSymbolAddress(&params_address, c_params));
    CF_CHECK(cudaMemcpy(&params, params_address, sizeof(FilterParams), cudaMemcpyDeviceToHost));
}

dim3 row_block() { return dim3(kRowBlockX, kRowBlockY); }
dim3 column_block() { return dim3(kColBlockX, kColBlockY); }

void launch_row_pass(const float* src, float* dst, cudaStream_t stream)
{
    const dim3 block = row_block();
    const dim3 grid((g_host_params.width + block.x - 1) / block.x,
                    (g_host_params.height + block.y - 1) / block.y);
    convolve_rows<<<grid, block, 0, stream>>>(src, dst);
    CF_CHECK(cudaGetLastError());
}

void launch_column_pass(const float* src, float* dst, cudaStream_t stream)
{
    const dim3 block = column_block();
    const dim3 grid((g_host_params.width + block.x - 1) / block.x,
                    (g_host_params.height + block.y - 1) / block.y);
    convolve_columns<<<grid, block, 0, stream>>>(src, dst);
    CF_CHECK(cudaGetLastError());
}

}  // namespace cfilter

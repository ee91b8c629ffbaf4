// shared_reduce.cu - block reductions and histograms with shared memory.
//
// Part of the hipport test corpus. Two kernels:
//   * block_reduce_sum: grid-stride load, tree reduction in __shared__ memory
//     with __syncthreads (no warp-level tricks, nothing tied to a warp width),
//     then one atomicAdd per block into a 64-bit global accumulator.
//   * histogram64: per-block histogram in __shared__ bins with atomicAdd,
//     merged into global bins with atomicAdd.
// Inputs are small random integers, so both checks are exact.

#include <cuda_runtime.h>
#include <device_launch_parameters.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#define CHECK(call)                                                          \
    do {                                                                     \
        cudaError_t check_err_ = (call);                                     \
        if (check_err_ != cudaSuccess) {                                     \
            std::fprintf(stderr, "CUDA error at %s:%d: %s (%s)\n", __FILE__, \
                         __LINE__, cudaGetErrorString(check_err_), #call);   \
            std::exit(EXIT_FAILURE);                                         \
        }                                                                    \
    } while (0)

constexpr int kBlock = 256;
constexpr int kBins = 64;

template <int BLOCK>
__global__ void block_reduce_sum(const int* in, int n,
                                 unsigned long long* total)
{
    static_assert((BLOCK & (BLOCK - 1)) == 0, "BLOCK must be a power of two");
    __shared__ unsigned long long partial[BLOCK];

    unsigned long long acc = 0;
    for (int i = blockIdx.x * BLOCK + threadIdx.x; i < n;
         i += gridDim.x * BLOCK) {
        acc += static_cast<unsigned long long>(in[i]);
    }
    partial[threadIdx.x] = acc;
    __syncthreads();

    // Plain tree reduction: every step is separated by a barrier.
    for (unsigned int stride = BLOCK / 2; stride > 0u; stride /= 2u) {
        if (threadIdx.x < stride) {
            partial[threadIdx.x] += partial[threadIdx.x + stride];
        }
        __syncthreads();
    }

    if (threadIdx.x == 0) {
        atomicAdd(total, partial[0]);
    }
}

template <int BLOCK, int BINS>
__global__ void histogram64(const int* in, int n, unsigned int* bins)
{
    __shared__ unsigned int local[BINS];
    for (int b = threadIdx.x; b < BINS; b += BLOCK) {
        local[b] = 0u;
    }
    __syncthreads();

    for (int i = blockIdx.x * BLOCK + threadIdx.x; i < n;
         i += gridDim.x * BLOCK) {
        atomicAdd(&local[in[i] % BINS], 1u);
    }
    __syncthreads();

    for (int b = threadIdx.x; b < BINS; b += BLOCK) {
        if (local[b] != 0u) {
            atomicAdd(&bins[b], local[b]);
        }
    }
}

int main()
{
    const int n = 1 << 22;  // 4M ints
    const size_t bytes = static_cast<size_t>(n) * sizeof(int);
    std::printf("[shared_reduce] %d ints, block %d, %d bins\n", n, kBlock,
                kBins);

    std::mt19937 rng(777u);
    std::uniform_int_distribution<int> dist(0, 1000);
    std::vector<int> h_in(n);
    for (int i = 0; i < n; ++i) {
        h_in[i] = dist(rng);
    }

    // Host references.
    unsigned long long ref_sum = 0;
    std::vector<unsigned int> ref_bins(kBins, 0u);
    for (int i = 0; i < n; ++i) {
        ref_sum += static_cast<unsigned long long>(h_in[i]);
        ref_bins[h_in[i] % kBins] += 1u;
    }

    // Grid size: enough resident blocks to fill the device, from occupancy.
    cudaDeviceProp prop;
    CHECK(cudaSetDevice(0));
    CHECK(cudaGetDeviceProperties(&prop, 0));
    int blocks_per_sm = 0;
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &blocks_per_sm, block_reduce_sum<kBlock>, kBlock, 0));
    const int cuda_sm_count_seen = prop.multiProcessorCount;
    int grid = std::max(1, blocks_per_sm) * std::max(1, cuda_sm_count_seen);
    grid = std::min(grid, (n + kBlock - 1) / kBlock);
    std::printf("[shared_reduce] device \"%s\": %d SMs, %d blocks/SM -> grid "
                "%d\n", prop.name, cuda_sm_count_seen, blocks_per_sm, grid);

    int* d_in = nullptr;
    unsigned long long* d_total = nullptr;
    unsigned int* d_bins = nullptr;
    CHECK(cudaMalloc(&d_in, bytes));
    CHECK(cudaMalloc(&d_total, sizeof(unsigned long long)));
    CHECK(cudaMalloc(&d_bins, kBins * sizeof(unsigned int)));
    CHECK(cudaMemcpy(d_in, h_in.data(), bytes, cudaMemcpyHostToDevice));
    // cudaMemset zeroes the accumulators before the atomics add into them.
    CHECK(cudaMemset(d_total, 0, sizeof(unsigned long long)));
    CHECK(cudaMemset(d_bins, 0, kBins * sizeof(unsigned int)));

    block_reduce_sum<kBlock><<<grid, kBlock>>>(d_in, n, d_total);
    CHECK(cudaGetLastError());
    histogram64<kBlock, kBins><<<grid, kBlock>>>(d_in, n, d_bins);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());

    unsigned long long gpu_sum = 0;
    std::vector<unsigned int> gpu_bins(kBins, 0u);
    CHECK(cudaMemcpy(&gpu_sum, d_total, sizeof(unsigned long long),
                     cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(gpu_bins.data(), d_bins, kBins * sizeof(unsigned int),
                     cudaMemcpyDeviceToHost));

    // Integer data: tolerance is zero, the results must match exactly.
    bool ok = true;
    if (gpu_sum != ref_sum) {
        std::fprintf(stderr, "sum mismatch: got %llu expected %llu\n",
                     gpu_sum, ref_sum);
        ok = false;
    }
    int bad_bins = 0;
    for (int b = 0; b < kBins; ++b) {
        if (gpu_bins[b] != ref_bins[b]) {
            if (bad_bins < 10) {
                std::fprintf(stderr, "bin %d: got %u expected %u\n", b,
                             gpu_bins[b], ref_bins[b]);
            }
            ++bad_bins;
        }
    }
    if (bad_bins != 0) {
        ok = false;
    }
    std::printf("[shared_reduce] sum %llu (expected %llu), %d bad bins "
                "(exact check)\n", gpu_sum, ref_sum, bad_bins);

    if (ok) {
        // Time block_reduce_sum. The accumulator is reset before every launch
        // (outside the timed interval); the checked values are already on the
        // host, so reusing d_total here cannot affect them.
        cudaEvent_t start, stop;
        CHECK(cudaEventCreate(&start));
        CHECK(cudaEventCreate(&stop));
        for (int i = 0; i < 10; ++i) {
            CHECK(cudaMemsetAsync(d_total, 0, sizeof(unsigned long long)));
            block_reduce_sum<kBlock><<<grid, kBlock>>>(d_in, n, d_total);
            CHECK(cudaGetLastError());
        }
        CHECK(cudaDeviceSynchronize());
        const int timed = 100;
        std::vector<float> times(timed);
        for (int i = 0; i < timed; ++i) {
            CHECK(cudaMemsetAsync(d_total, 0, sizeof(unsigned long long)));
            CHECK(cudaEventRecord(start));
            block_reduce_sum<kBlock><<<grid, kBlock>>>(d_in, n, d_total);
            CHECK(cudaGetLastError());
            CHECK(cudaEventRecord(stop));
            CHECK(cudaEventSynchronize(stop));
            CHECK(cudaEventElapsedTime(&times[i], start, stop));
        }
        unsigned long long timed_sum = 0;
        CHECK(cudaMemcpy(&timed_sum, d_total, sizeof(unsigned long long),
                         cudaMemcpyDeviceToHost));
        if (timed_sum != ref_sum) {
            std::fprintf(stderr, "cudaMemcpy of timed sum: got %llu expected "
                         "%llu\n", timed_sum, ref_sum);
            ok = false;
        }
        std::sort(times.begin(), times.end());
        double median = 0.5 * (static_cast<double>(times[timed / 2 - 1]) +
                               static_cast<double>(times[timed / 2]));
        std::printf("kernel_median_ms block_reduce_sum %.6f\n", median);
        CHECK(cudaEventDestroy(start));
        CHECK(cudaEventDestroy(stop));
    }

    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_total));
    CHECK(cudaFree(d_bins));

    if (!ok) {
        std::printf("Test FAILED\n");
        return 1;
    }
    std::printf("Test PASSED\n");
    return 0;
}

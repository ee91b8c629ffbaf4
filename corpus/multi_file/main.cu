// main.cu - entry point of the multi_file corpus program.
//
// Part of the hipport test corpus. The program is split over several files,
// and two of them share a name (kernels/config.h and util/config.h): a porting
// tool must keep them apart and keep every quoted include pointing at the
// right file.

#include "kernels/saxpy.cuh"
#include "kernels/config.h"
#include "util/check.h"
#include "util/config.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

namespace {

constexpr int kBlock = kernel_config::kBlockSize;
constexpr int kItems = kernel_config::kItemsPerThread;

void launch_cuda_saxpy(float alpha, const float* x, const float* y, float* out,
                       int n, cudaStream_t stream)
{
    saxpy<float, kBlock, kItems><<<saxpy_grid_size(n), kBlock, 0, stream>>>(
        alpha, x, y, out, n);
    CHECK(cudaGetLastError());
}

}  // namespace

int main()
{
    const int n = util_config::kNumElements;
    const float alpha = kernel_config::kAlpha;
    const size_t bytes = static_cast<size_t>(n) * sizeof(float);
    std::printf("[multi_file] %d elements, block %d, %d items/thread, "
                "alpha %.2f\n", n, kBlock, kItems, alpha);

    std::mt19937 rng(util_config::kSeed);
    std::uniform_real_distribution<float> dist(-4.0f, 4.0f);
    std::vector<float> h_x(n), h_y(n), h_out(n, 0.0f);
    for (int i = 0; i < n; ++i) {
        h_x[i] = dist(rng);
        h_y[i] = dist(rng);
    }

    float* d_x = nullptr;
    float* d_y = nullptr;
    float* d_out = nullptr;
    CHECK(cudaMalloc(&d_x, bytes));
    CHECK(cudaMalloc(&d_y, bytes));
    CHECK(cudaMalloc(&d_out, bytes));

    cudaStream_t stream;
    CHECK(cudaStreamCreate(&stream));
    // cudaMemcpyAsync from pageable memory is still correct, only not
    // overlapped; the stream is synchronized before the results are read.
    CHECK(cudaMemcpyAsync(d_x, h_x.data(), bytes, cudaMemcpyHostToDevice,
                          stream));
    CHECK(cudaMemcpyAsync(d_y, h_y.data(), bytes, cudaMemcpyHostToDevice,
                          stream));
    CHECK(cudaMemsetAsync(d_out, 0, bytes, stream));

    launch_cuda_saxpy(alpha, d_x, d_y, d_out, n, stream);
    CHECK(cudaMemcpyAsync(h_out.data(), d_out, bytes, cudaMemcpyDeviceToHost,
                          stream));
    CHECK(cudaStreamSynchronize(stream));

    const float tol = util_config::kTolerance;
    int mismatches = 0;
    for (int i = 0; i < n; ++i) {
        const float expected = alpha * h_x[i] + h_y[i];
        if (std::fabs(h_out[i] - expected) > tol * (1.0f + std::fabs(expected))) {
            if (mismatches < 10) {
                std::fprintf(stderr, "mismatch at %d: got %f expected %f\n",
                             i, h_out[i], expected);
            }
            ++mismatches;
        }
    }
    std::printf("[multi_file] check: %d mismatches (tolerance %g relative)\n",
                mismatches, tol);
    const bool ok = (mismatches == 0);

    if (ok) {
        cudaEvent_t start, stop;
        if (cudaEventCreate(&start) != cudaSuccess) {
            std::fprintf(stderr, "cudaEventCreate failed\n");
            return 1;
        }
        CHECK(cudaEventCreate(&stop));
        for (int i = 0; i < util_config::kWarmupLaunches; ++i) {
            launch_cuda_saxpy(alpha, d_x, d_y, d_out, n, stream);
        }
        CHECK(cudaStreamSynchronize(stream));
        const int timed = util_config::kTimedLaunches;
        std::vector<float> times(timed);
        for (int i = 0; i < timed; ++i) {
            CHECK(cudaEventRecord(start, stream));
            launch_cuda_saxpy(alpha, d_x, d_y, d_out, n, stream);
            CHECK(cudaEventRecord(stop, stream));
            CHECK(cudaEventSynchronize(stop));
            CHECK(cudaEventElapsedTime(&times[i], start, stop));
        }
        std::sort(times.begin(), times.end());
        const double median =
            (timed % 2 == 1)
                ? static_cast<double>(times[timed / 2])
                : 0.5 * (static_cast<double>(times[timed / 2 - 1]) +
                         static_cast<double>(times[timed / 2]));
        std::printf("kernel_median_ms saxpy %.6f\n", median);
        CHECK(cudaEventDestroy(start));
        CHECK(cudaEventDestroy(stop));
    }

    CHECK(cudaStreamDestroy(stream));
    CHECK(cudaFree(d_x));
    CHECK(cudaFree(d_y));
    CHECK(cudaFree(d_out));

    if (!ok) {
        std::printf("Test FAILED\n");
        return 1;
    }
    std::printf("Test PASSED\n");
    return 0;
}

// stream_events.cu - overlap copies and compute on several streams.
//
// Part of the hipport test corpus. This file deliberately includes no CUDA
// header at all: nvcc pre-includes the runtime header for .cu files, so a
// porting tool has to add the HIP header itself.
//
// The input array lives in pinned host memory (cudaMallocHost) and is split
// into kNumStreams chunks. Each chunk is copied to the device, transformed and
// copied back on its own stream; events bracket the work of every stream and
// of the whole pipeline.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
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

constexpr int kNumStreams = 4;
constexpr int kBlock = 256;

// y = a * sqrt(|x|) + b * sin(x)
__global__ void affine_sin(const float* x, float* y, float a, float b, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        y[i] = a * sqrtf(fabsf(v)) + b * sinf(v);
    }
}

static float host_affine_sin(float v, float a, float b)
{
    return a * std::sqrt(std::fabs(v)) + b * std::sin(v);
}

int main()
{
    const int n = 4 * 1024 * 1024;  // 4M floats, 16 MiB
    const int chunk = n / kNumStreams;
    const size_t bytes = static_cast<size_t>(n) * sizeof(float);
    const size_t chunk_bytes = static_cast<size_t>(chunk) * sizeof(float);
    const float a = 1.75f;
    const float b = -0.5f;
    std::printf("[stream_events] %d elements in %d chunks of %d\n", n,
                kNumStreams, chunk);

    // Pinned host buffers; cudaMemcpyAsync only overlaps with pinned memory.
    float* h_x = nullptr;
    float* h_y = nullptr;
    CHECK(cudaMallocHost(&h_x, bytes));
    CHECK(cudaMallocHost(&h_y, bytes));

    // Simple 32-bit LCG with a fixed seed.
    unsigned int lcg = 2024u;
    for (int i = 0; i < n; ++i) {
        lcg = lcg * 1664525u + 1013904223u;
        h_x[i] = (static_cast<float>(lcg >> 8) / 16777216.0f) * 20.0f - 10.0f;
        h_y[i] = 0.0f;
    }

    float* d_x = nullptr;
    float* d_y = nullptr;
    CHECK(cudaMalloc(&d_x, bytes));
    CHECK(cudaMalloc(&d_y, bytes));
    CHECK(cudaMemset(d_y, 0, bytes));

    cudaStream_t streams[kNumStreams];
    cudaEvent_t ev_start[kNumStreams];
    cudaEvent_t ev_stop[kNumStreams];
    for (int s = 0; s < kNumStreams; ++s) {
        CHECK(cudaStreamCreate(&streams[s]));
        CHECK(cudaEventCreate(&ev_start[s]));
        CHECK(cudaEventCreate(&ev_stop[s]));
    }
    cudaEvent_t all_start, all_stop;
    CHECK(cudaEventCreate(&all_start));
    CHECK(cudaEventCreate(&all_stop));

    // Every stream waits for all_start so the overall interval covers all work;
    // stream 0 waits for every other stream before recording all_stop.
    CHECK(cudaEventRecord(all_start, streams[0]));
    for (int s = 1; s < kNumStreams; ++s) {
        CHECK(cudaStreamWaitEvent(streams[s], all_start, 0));
    }

    const int chunk_blocks = (chunk + kBlock - 1) / kBlock;
    int cuda_work_items_issued = 0;  // user counter, not a runtime symbol
    for (int s = 0; s < kNumStreams; ++s) {
        const size_t offset = static_cast<size_t>(s) * chunk;
        CHECK(cudaEventRecord(ev_start[s], streams[s]));
        CHECK(cudaMemcpyAsync(d_x + offset, h_x + offset, chunk_bytes,
                              cudaMemcpyHostToDevice, streams[s]));
        affine_sin<<<chunk_blocks, kBlock, 0, streams[s]>>>(
            d_x + offset, d_y + offset, a, b, chunk);
        CHECK(cudaGetLastError());
        CHECK(cudaMemcpyAsync(h_y + offset, d_y + offset, chunk_bytes,
                              cudaMemcpyDeviceToHost, streams[s]));
        CHECK(cudaEventRecord(ev_stop[s], streams[s]));
        cuda_work_items_issued += chunk;
    }
    if (cuda_work_items_issued != n) {
        std::fprintf(stderr, "chunking does not cover the array\n");
        return 1;
    }
    for (int s = 1; s < kNumStreams; ++s) {
        CHECK(cudaStreamWaitEvent(streams[0], ev_stop[s], 0));
    }
    CHECK(cudaEventRecord(all_stop, streams[0]));

    for (int s = 0; s < kNumStreams; ++s) {
        CHECK(cudaStreamSynchronize(streams[s]));
    }
    CHECK(cudaEventSynchronize(all_stop));

    for (int s = 0; s < kNumStreams; ++s) {
        float ms = 0.0f;
        CHECK(cudaEventElapsedTime(&ms, ev_start[s], ev_stop[s]));
        std::printf("[stream_events] stream %d: %.3f ms (copy in, kernel, "
                    "copy out)\n", s, ms);
    }
    float total_ms = 0.0f;
    CHECK(cudaEventElapsedTime(&total_ms, all_start, all_stop));
    std::printf("[stream_events] overall elapsed: %.3f ms\n", total_ms);

    // Check: relative/absolute tolerance covers sinf/sqrtf ulp differences.
    const float tolerance = 1e-5f;
    int mismatches = 0;
    double max_err = 0.0;
    for (int i = 0; i < n; ++i) {
        float expected = host_affine_sin(h_x[i], a, b);
        float err = std::fabs(h_y[i] - expected);
        max_err = std::max(max_err, static_cast<double>(err));
        if (err > tolerance * (1.0f + std::fabs(expected))) {
            if (mismatches < 10) {
                std::fprintf(stderr, "mismatch at %d: got %f expected %f\n",
                             i, h_y[i], expected);
            }
            ++mismatches;
        }
    }
    std::printf("[stream_events] check: %d mismatches, max abs error %.3e "
                "(tolerance %g relative)\n", mismatches, max_err, tolerance);
    const bool ok = (mismatches == 0);

    if (ok) {
        // Time the kernel over the whole array on stream 0: 10 warm-up
        // launches, then 100 launches timed one by one. It rewrites d_y with
        // the same values and h_y has already been checked.
        const int all_blocks = (n + kBlock - 1) / kBlock;
        for (int i = 0; i < 10; ++i) {
            affine_sin<<<all_blocks, kBlock, 0, streams[0]>>>(d_x, d_y, a, b,
                                                              n);
            CHECK(cudaGetLastError());
        }
        CHECK(cudaStreamSynchronize(streams[0]));
        const int timed = 100;
        std::vector<float> times(timed);
        for (int i = 0; i < timed; ++i) {
            CHECK(cudaEventRecord(all_start, streams[0]));
            affine_sin<<<all_blocks, kBlock, 0, streams[0]>>>(d_x, d_y, a, b,
                                                              n);
            CHECK(cudaGetLastError());
            CHECK(cudaEventRecord(all_stop, streams[0]));
            CHECK(cudaEventSynchronize(all_stop));
            CHECK(cudaEventElapsedTime(&times[i], all_start, all_stop));
        }
        std::sort(times.begin(), times.end());
        double median = 0.5 * (static_cast<double>(times[timed / 2 - 1]) +
                               static_cast<double>(times[timed / 2]));
        std::printf("kernel_median_ms affine_sin %.6f\n", median);
    }

    for (int s = 0; s < kNumStreams; ++s) {
        CHECK(cudaEventDestroy(ev_start[s]));
        CHECK(cudaEventDestroy(ev_stop[s]));
        CHECK(cudaStreamDestroy(streams[s]));
    }
    CHECK(cudaEventDestroy(all_start));
    CHECK(cudaEventDestroy(all_stop));
    CHECK(cudaFree(d_x));
    CHECK(cudaFree(d_y));
    const bool freed_x = (cudaFreeHost(h_x) == cudaSuccess);
    const bool freed_y = (cudaFreeHost(h_y) == cudaSuccess);
    if (!freed_x || !freed_y) {
        std::fprintf(stderr, "cudaFreeHost failed\n");
        return 1;
    }

    if (!ok) {
        std::printf("Test FAILED\n");
        return 1;
    }
    std::printf("Test PASSED\n");
    return 0;
}

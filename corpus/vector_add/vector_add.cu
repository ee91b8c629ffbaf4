// vector_add.cu - element-wise addition of two float vectors.
//
// Part of the hipport test corpus. Random inputs are generated on the host
// with a fixed seed, added on the device, checked against a host reference
// and then the kernel is timed.

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
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

constexpr int kThreadsPerBlock = 256;

__global__ void vector_add(const float* a, const float* b, float* c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        c[i] = a[i] + b[i];
    }
}

// Thin wrapper; the name only happens to contain "cuda".
static void launch_cuda_vector_add(const float* a, const float* b, float* c,
                                   int n)
{
    int blocks = (n + kThreadsPerBlock - 1) / kThreadsPerBlock;
    vector_add<<<blocks, kThreadsPerBlock>>>(a, b, c, n);
    CHECK(cudaGetLastError());
}

int main()
{
    const int n = 50000;
    const size_t bytes = static_cast<size_t>(n) * sizeof(float);
    std::printf("[vector_add] %d elements\n", n);

    std::mt19937 rng(12345u);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    std::vector<float> h_a(n), h_b(n), h_c(n, 0.0f);
    for (int i = 0; i < n; ++i) {
        h_a[i] = dist(rng);
        h_b[i] = dist(rng);
    }

    // cudaMalloc returns device memory; it is not visible to host pointers.
    float* d_a = nullptr;
    float* d_b = nullptr;
    float* d_c = nullptr;
    CHECK(cudaMalloc(&d_a, bytes));
    CHECK(cudaMalloc(&d_b, bytes));
    CHECK(cudaMalloc(&d_c, bytes));

    CHECK(cudaMemcpy(d_a, h_a.data(), bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_b, h_b.data(), bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(d_c, 0, bytes));

    launch_cuda_vector_add(d_a, d_b, d_c, n);
    CHECK(cudaDeviceSynchronize());

    if (cudaMemcpy(h_c.data(), d_c, bytes, cudaMemcpyDeviceToHost) !=
        cudaSuccess) {
        std::fprintf(stderr, "cudaMemcpy failed while reading results\n");
        return 1;
    }

    const float tolerance = 1e-5f;
    int mismatches = 0;
    for (int i = 0; i < n; ++i) {
        float expected = h_a[i] + h_b[i];
        if (std::fabs(h_c[i] - expected) > tolerance) {
            if (mismatches < 10) {
                std::fprintf(stderr, "mismatch at %d: got %f expected %f\n",
                             i, h_c[i], expected);
            }
            ++mismatches;
        }
    }
    std::printf("[vector_add] check: %d mismatches (tolerance %g)\n",
                mismatches, tolerance);

    bool ok = (mismatches == 0);
    if (ok) {
        // Timing: 10 warm-up launches, then 100 individually timed launches.
        // The kernel writes the same values again, so the checked data is
        // unaffected.
        cudaEvent_t start, stop;
        CHECK(cudaEventCreate(&start));
        CHECK(cudaEventCreate(&stop));
        for (int i = 0; i < 10; ++i) {
            launch_cuda_vector_add(d_a, d_b, d_c, n);
        }
        CHECK(cudaDeviceSynchronize());
        const int timed = 100;
        std::vector<float> times(timed);
        for (int i = 0; i < timed; ++i) {
            CHECK(cudaEventRecord(start));
            launch_cuda_vector_add(d_a, d_b, d_c, n);
            CHECK(cudaEventRecord(stop));
            CHECK(cudaEventSynchronize(stop));
            CHECK(cudaEventElapsedTime(&times[i], start, stop));
        }
        std::sort(times.begin(), times.end());
        double median = 0.5 * (static_cast<double>(times[timed / 2 - 1]) +
                               static_cast<double>(times[timed / 2]));
        std::printf("kernel_median_ms vector_add %.6f\n", median);
        CHECK(cudaEventDestroy(start));
        CHECK(cudaEventDestroy(stop));
    }

    CHECK(cudaFree(d_a));
    CHECK(cudaFree(d_b));
    CHECK(cudaFree(d_c));

    if (!ok) {
        std::printf("Test FAILED\n");
        return 1;
    }
    std::printf("Test PASSED\n");
    return 0;
}

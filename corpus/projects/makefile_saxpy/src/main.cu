// main.cu - makefile_saxpy: y = a*x + y, then dot(x, y), checked on the host.
#include "check.cuh"
#include "kernels.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

int main()
{
    const int n = 1 << 22;
    const float a = 1.5f;
    int device = 0;
    cudaDeviceProp prop;
    checkCudaErrors(cudaGetDevice(&device));
    checkCudaErrors(cudaGetDeviceProperties(&prop, device));
    std::printf("[makefile_saxpy] %d elements, a = %.2f\n", n, a);

    // Values k/64 for small integers k: every a*x + y below is exact in float.
    std::vector<float> x(n), y(n);
    for (int i = 0; i < n; ++i) {
        x[i] = static_cast<float>((i * 37) % 129 - 64) / 64.0f;
        y[i] = static_cast<float>((i * 11) % 257 - 128) / 64.0f;
    }

    float *d_x, *d_y;
    double* d_partials;
    const int max_partials = 4096;
    checkCudaErrors(cudaMalloc(&d_x, n * sizeof(float)));
    checkCudaErrors(cudaMalloc(&d_y, n * sizeof(float)));
    checkCudaErrors(cudaMalloc(&d_partials, max_partials * sizeof(double)));
    checkCudaErrors(cudaMemcpy(d_x, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    checkCudaErrors(cudaMemcpy(d_y, y.data(), n * sizeof(float), cudaMemcpyHostToDevice));

    saxpy(n, a, d_x, d_y, prop.multiProcessorCount);
    const int partial_count = dot_partials(n, d_x, d_y, d_partials, max_partials,
                                           prop.multiProcessorCount);
    std::vector<float> result(n);
    std::vector<double> partials(partial_count);
    checkCudaErrors(cudaMemcpy(result.data(), d_y, n * sizeof(float), cudaMemcpyDeviceToHost));
    checkCudaErrors(cudaMemcpy(partials.data(), d_partials, partial_count * sizeof(double),
                               cudaMemcpyDeviceToHost));

    int mismatches = 0;
    double host_dot = 0.0;
    for (int i = 0; i < n; ++i) {
        const float want = a * x[i] + y[i];
        if (result[i] != want) {
            ++mismatches;
        }
        host_dot += static_cast<double>(x[i]) * want;
    }
    double dot = 0.0;
    for (double p : partials) {
        dot += p;
    }
    // Every product is a multiple of 2^-13 below 2^3, so all double sums are exact.
    const bool ok = mismatches == 0 && dot == host_dot;
    std::printf("[makefile_saxpy] saxpy mismatches %d, dot %s\n", mismatches,
                dot == host_dot ? "ok" : "WRONG");
    std::printf("checksum dot %.6f\n", dot);

    if (ok) {
        cudaEvent_t start, stop;
        checkCudaErrors(cudaEventCreate(&start));
        checkCudaErrors(cudaEventCreate(&stop));
        // Re-running saxpy keeps changing y; only the time matters here.
        for (int i = 0; i < 10; ++i) {
            saxpy(n, a, d_x, d_y, prop.multiProcessorCount);
        }
        checkCudaErrors(cudaDeviceSynchronize());
        std::vector<float> times(100);
        for (float& t : times) {
            checkCudaErrors(cudaEventRecord(start));
            saxpy(n, a, d_x, d_y, prop.multiProcessorCount);
            checkCudaErrors(cudaEventRecord(stop));
            checkCudaErrors(cudaEventSynchronize(stop));
            checkCudaErrors(cudaEventElapsedTime(&t, start, stop));
        }
        std::sort(times.begin(), times.end());
        std::printf("kernel_median_ms saxpy_kernel %.6f\n",
                    0.5 * (static_cast<double>(times[49]) + times[50]));
        checkCudaErrors(cudaEventDestroy(start));
        checkCudaErrors(cudaEventDestroy(stop));
    }
    checkCudaErrors(cudaFree(d_x));
    checkCudaErrors(cudaFree(d_y));
    checkCudaErrors(cudaFree(d_partials));
    std::printf(ok ? "Test PASSED\n" : "Test FAILED\n");
    return ok ? 0 : 1;
}

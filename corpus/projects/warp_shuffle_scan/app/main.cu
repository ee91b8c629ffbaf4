// main.cu - warp_shuffle_scan: scan, compaction and histogram of 1.5M ints,
// all exact, compared with the host.
#include "host_reference.h"
#include "scan/scan.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#define CUDA_TRY(expr)                                                              \
    do {                                                                            \
        cudaError_t status_ = (expr);                                               \
        if (status_ != cudaSuccess) {                                               \
            std::fprintf(stderr, "%s failed: %s\n", #expr, cudaGetErrorString(status_)); \
            std::exit(EXIT_FAILURE);                                                \
        }                                                                           \
    } while (false)

template <typename F>
double median_of_100(cudaStream_t stream, F&& launch)
{
    cudaEvent_t a, b;
    CUDA_TRY(cudaEventCreate(&a));
    CUDA_TRY(cudaEventCreate(&b));
    for (int i = 0; i < 10; ++i) {
        launch();
    }
    CUDA_TRY(cudaStreamSynchronize(stream));
    std::vector<float> ms(100);
    for (float& m : ms) {
        CUDA_TRY(cudaEventRecord(a, stream));
        launch();
        CUDA_TRY(cudaEventRecord(b, stream));
        CUDA_TRY(cudaEventSynchronize(b));
        CUDA_TRY(cudaEventElapsedTime(&m, a, b));
    }
    CUDA_TRY(cudaEventDestroy(a));
    CUDA_TRY(cudaEventDestroy(b));
    std::sort(ms.begin(), ms.end());
    return 0.5 * (static_cast<double>(ms[49]) + ms[50]);
}

int main()
{
    // More than kTileItems^2 values, so the scan recurses twice.
    const int n = 1500007;
    std::printf("[warp_shuffle_scan] %d values\n", n);
    std::mt19937 rng(5u);
    std::uniform_int_distribution<int> dist(-60, 100);
    std::vector<int> h(n);
    for (int& v : h) {
        v = dist(rng);
    }

    cudaStream_t stream;
    CUDA_TRY(cudaStreamCreate(&stream));
    int *d_in, *d_scan, *d_compact, *d_count, *d_temp, *d_max;
    unsigned int* d_bins;
    const int temp = std::max(warpscan::scan_temp_elements(n), warpscan::compact_temp_elements(n));
    CUDA_TRY(cudaMalloc(&d_in, n * sizeof(int)));
    CUDA_TRY(cudaMalloc(&d_scan, n * sizeof(int)));
    CUDA_TRY(cudaMalloc(&d_compact, n * sizeof(int)));
    CUDA_TRY(cudaMalloc(&d_count, sizeof(int)));
    CUDA_TRY(cudaMalloc(&d_temp, temp * sizeof(int)));
    CUDA_TRY(cudaMalloc(&d_max, sizeof(int)));
    CUDA_TRY(cudaMalloc(&d_bins, 32 * sizeof(unsigned int)));
    CUDA_TRY(cudaMemcpy(d_in, h.data(), n * sizeof(int), cudaMemcpyHostToDevice));

    warpscan::inclusive_scan(d_in, d_scan, n, d_temp, stream);
    std::vector<int> scan(n);
    CUDA_TRY(cudaMemcpyAsync(scan.data(), d_scan, n * sizeof(int), cudaMemcpyDeviceToHost, stream));
    warpscan::compact_positive(d_in, d_compact, d_count, n, d_temp, stream);
    int kept = 0;
    CUDA_TRY(cudaMemcpyAsync(&kept, d_count, sizeof(int), cudaMemcpyDeviceToHost, stream));
    CUDA_TRY(cudaStreamSynchronize(stream));
    std::vector<int> compact(std::min(std::max(kept, 0), n));
    CUDA_TRY(cudaMemcpy(compact.data(), d_compact, compact.size() * sizeof(int),
                        cudaMemcpyDeviceToHost));
    warpscan::histogram32(d_in, n, d_bins, d_max, stream);
    std::vector<unsigned int> bins(32);
    int largest = 0;
    CUDA_TRY(cudaMemcpyAsync(bins.data(), d_bins, 32 * sizeof(unsigned int), cudaMemcpyDeviceToHost, stream));
    CUDA_TRY(cudaMemcpyAsync(&largest, d_max, sizeof(int), cudaMemcpyDeviceToHost, stream));
    CUDA_TRY(cudaStreamSynchronize(stream));

    int host_largest = 0;
    const bool scan_ok = scan == host_inclusive_scan(h);
    const bool compact_ok = compact == host_compact_positive(h);
    const bool hist_ok = bins == host_histogram32(h, &host_largest) && largest == host_largest;
    std::printf("[warp_shuffle_scan] scan %s, compaction %s, histogram %s\n",
                scan_ok ? "ok" : "WRONG", compact_ok ? "ok" : "WRONG", hist_ok ? "ok" : "WRONG");

    long long scan_sum = 0, compact_sum = 0, weighted_bins = 0;
    for (int v : scan) {
        scan_sum += v;
    }
    for (int v : compact) {
        compact_sum += v;
    }
    for (int b = 0; b < 32; ++b) {
        weighted_bins += static_cast<long long>(b + 1) * bins[b];
    }
    std::printf("checksum scan_last %d\n", scan.back());
    std::printf("checksum scan_sum %lld\n", scan_sum);
    std::printf("checksum compact_count %d\n", kept);
    std::printf("checksum compact_sum %lld\n", compact_sum);
    std::printf("checksum histogram_weighted %lld\n", weighted_bins);
    std::printf("checksum max %d\n", largest);

    const bool ok = scan_ok && compact_ok && hist_ok;
    if (ok) {
        std::printf("kernel_median_ms inclusive_scan %.6f\n", median_of_100(stream, [&] {
                        warpscan::inclusive_scan(d_in, d_scan, n, d_temp, stream);
                    }));
        std::printf("kernel_median_ms histogram32_kernel %.6f\n", median_of_100(stream, [&] {
                        warpscan::histogram32(d_in, n, d_bins, d_max, stream);
                    }));
    }
    CUDA_TRY(cudaFree(d_in));
    CUDA_TRY(cudaFree(d_scan));
    CUDA_TRY(cudaFree(d_compact));
    CUDA_TRY(cudaFree(d_count));
    CUDA_TRY(cudaFree(d_temp));
    CUDA_TRY(cudaFree(d_max));
    CUDA_TRY(cudaFree(d_bins));
    CUDA_TRY(cudaStreamDestroy(stream));
    std::printf(ok ? "Test PASSED\n" : "Test FAILED\n");
    return ok ? 0 : 1;
}

// main.cu - cooperative_reduce: the same sum three ways (two launches, one
// cooperative launch with grid.sync(), the host) plus per-tile counts.
//
// The inputs are whole numbers in [-4, 4] and there are fewer than 2^21 + 2^7
// of them, so every partial sum is an integer below 2^24 in magnitude: float
// addition is exact in any order and all three sums must agree exactly.
#include "coop/reduce.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#define CHECK(x)                                                                          \
    do {                                                                                  \
        cudaError_t err = (x);                                                            \
        if (err != cudaSuccess) {                                                         \
            std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err)); \
            std::exit(EXIT_FAILURE);                                                      \
        }                                                                                 \
    } while (0)

template <typename Launch>
static double median_ms(cudaStream_t stream, Launch launch)
{
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    for (int i = 0; i < 10; ++i) {
        launch();
    }
    CHECK(cudaStreamSynchronize(stream));
    std::vector<float> t(100);
    for (float& ms : t) {
        CHECK(cudaEventRecord(start, stream));
        launch();
        CHECK(cudaEventRecord(stop, stream));
        CHECK(cudaEventSynchronize(stop));
        CHECK(cudaEventElapsedTime(&ms, start, stop));
    }
    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(stop));
    std::sort(t.begin(), t.end());
    return 0.5 * (static_cast<double>(t[49]) + t[50]);
}

int main()
{
    const int n = (1 << 21) + 77;
    const float threshold = 2.5f;
    std::printf("[cooperative_reduce] %d values\n", n);
    std::mt19937 rng(8u);
    std::uniform_int_distribution<int> dist(-4, 4);
    std::vector<float> h(n);
    long long host_sum = 0;
    for (float& v : h) {
        const int x = dist(rng);
        v = static_cast<float>(x);
        host_sum += x;
    }
    const int tiles = (n + 31) / 32;
    std::vector<unsigned int> host_counts(tiles, 0);
    for (int i = 0; i < n; ++i) {
        host_counts[i / 32] += h[i] > threshold;
    }

    cudaStream_t stream;
    CHECK(cudaStreamCreate(&stream));
    float *d_in, *d_partial, *d_out;
    unsigned int* d_counts;
    CHECK(cudaMalloc(&d_in, n * sizeof(float)));
    CHECK(cudaMalloc(&d_partial, coop::max_partials(n) * sizeof(float)));
    CHECK(cudaMalloc(&d_out, sizeof(float)));
    // Whole blocks of tiles, so the last block may write past `tiles`.
    const int padded_tiles = (n + coop::kBlockSize - 1) / coop::kBlockSize * (coop::kBlockSize / 32);
    CHECK(cudaMalloc(&d_counts, padded_tiles * sizeof(unsigned int)));
    CHECK(cudaMemcpy(d_in, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));

    const float two_pass = coop::sum_two_pass(d_in, n, d_partial, d_out, stream);
    CHECK(cudaMemsetAsync(d_out, 0xff, sizeof(float), stream));  // NaN until written
    const bool cooperative = coop::sum_grid_sync(d_in, n, d_partial, d_out, stream);
    float grid_sync = 0.0f;
    CHECK(cudaMemcpyAsync(&grid_sync, d_out, sizeof(float), cudaMemcpyDeviceToHost, stream));
    coop::count_above(d_in, n, threshold, d_counts, stream);
    std::vector<unsigned int> counts(tiles);
    CHECK(cudaMemcpyAsync(counts.data(), d_counts, tiles * sizeof(unsigned int),
                          cudaMemcpyDeviceToHost, stream));
    CHECK(cudaStreamSynchronize(stream));

    const bool counts_ok = counts == host_counts;
    long long total_above = 0;
    for (unsigned int c : counts) {
        total_above += c;
    }
    std::printf("[cooperative_reduce] cooperative launch supported: %s\n", cooperative ? "yes" : "no");
    std::printf("checksum sum_host %lld\n", host_sum);
    std::printf("checksum sum_two_pass %.1f\n", two_pass);
    std::printf("checksum sum_grid_sync %.1f\n", grid_sync);
    std::printf("checksum tiles_above_total %lld\n", total_above);
    const bool ok = cooperative && counts_ok && two_pass == static_cast<float>(host_sum) &&
                    grid_sync == static_cast<float>(host_sum);

    if (ok) {
        std::printf("kernel_median_ms grid_sum_kernel %.6f\n", median_ms(stream, [&] {
                        coop::sum_grid_sync(d_in, n, d_partial, d_out, stream);
                    }));
        std::printf("kernel_median_ms tile_counts %.6f\n", median_ms(stream, [&] {
                        coop::count_above(d_in, n, threshold, d_counts, stream);
                    }));
    }
    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_partial));
    CHECK(cudaFree(d_out));
    CHECK(cudaFree(d_counts));
    CHECK(cudaStreamDestroy(stream));
    std::printf(ok ? "Test PASSED\n" : "Test FAILED\n");
    return ok ? 0 : 1;
}

// main.cu - constant_filter: blur a synthetic image, compare with the host.
#include "convolution.cuh"
#include "filter_params.h"
#include "gaussian_weights.h"
#include "image_io.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CHECK(call)                                                                  \
    do {                                                                             \
        cudaError_t e = (call);                                                      \
        if (e != cudaSuccess) {                                                      \
            std::fprintf(stderr, "CUDA error: %s at %s:%d\n", cudaGetErrorString(e), \
                         __FILE__, __LINE__);                                        \
            return EXIT_FAILURE;                                                     \
        }                                                                            \
    } while (0)

namespace {

// Both passes in double, with the same clamp-to-edge rule.
std::vector<double> host_blur(const std::vector<float>& img, const std::vector<float>& w,
                              const FilterParams& p)
{
    const int r = p.radius;
    std::vector<double> tmp(img.size()), out(img.size());
    for (int y = 0; y < p.height; ++y) {
        for (int x = 0; x < p.width; ++x) {
            double s = 0.0;
            for (int k = -r; k <= r; ++k) {
                const int xx = std::min(std::max(x + k, 0), p.width - 1);
                s += static_cast<double>(w[k + r]) * img[static_cast<size_t>(y) * p.pitch + xx];
            }
            tmp[static_cast<size_t>(y) * p.pitch + x] = s;
        }
    }
    for (int y = 0; y < p.height; ++y) {
        for (int x = 0; x < p.width; ++x) {
            double s = 0.0;
            for (int k = -r; k <= r; ++k) {
                const int yy = std::min(std::max(y + k, 0), p.height - 1);
                s += static_cast<double>(w[k + r]) * tmp[static_cast<size_t>(yy) * p.pitch + x];
            }
            out[static_cast<size_t>(y) * p.pitch + x] = p.gain * s;
        }
    }
    return out;
}

}  // namespace

int main(int argc, char** argv)
{
    FilterParams params{};
    params.width = 1000;
    params.height = 750;
    params.pitch = params.width;
    params.radius = 6;
    params.gain = 0.98f;
    const std::vector<float> weights = gaussian_weights(params.radius, 2.5f);
    const std::vector<float> image = make_test_image(params.width, params.height, 2024u);
    const size_t bytes = image.size() * sizeof(float);
    std::printf("[constant_filter] %dx%d image, %d taps\n", params.width, params.height,
                2 * params.radius + 1);

    cudaStream_t stream;
    CHECK(cudaStreamCreate(&stream));
    cfilter::upload_filter(weights, params, stream);

    // Round trip through constant memory.
    std::vector<float> read_weights;
    FilterParams read_params{};
    cfilter::download_filter(read_weights, read_params);
    bool ok = read_weights.size() == 2 * FILTER_MAX_RADIUS + 1 &&
              std::memcmp(&read_params, &params, sizeof(params)) == 0;
    for (size_t i = 0; ok && i < read_weights.size(); ++i) {
        const float want = i < weights.size() ? weights[i] : 0.0f;
        ok = read_weights[i] == want;
    }
    std::printf("[constant_filter] constant memory round trip: %s\n", ok ? "ok" : "WRONG");

    float *d_src, *d_tmp, *d_dst;
    CHECK(cudaMalloc(&d_src, bytes));
    CHECK(cudaMalloc(&d_tmp, bytes));
    CHECK(cudaMalloc(&d_dst, bytes));
    CHECK(cudaMemcpyAsync(d_src, image.data(), bytes, cudaMemcpyHostToDevice, stream));
    cfilter::launch_row_pass(d_src, d_tmp, stream);
    cfilter::launch_column_pass(d_tmp, d_dst, stream);
    std::vector<float> result(image.size());
    CHECK(cudaMemcpyAsync(result.data(), d_dst, bytes, cudaMemcpyDeviceToHost, stream));
    CHECK(cudaStreamSynchronize(stream));

    const std::vector<double> expected = host_blur(image, weights, params);
    int bad = 0;
    double sum = 0.0;
    for (size_t i = 0; i < result.size(); ++i) {
        sum += result[i];
        if (std::fabs(result[i] - expected[i]) > 1e-5) {
            if (bad < 5) {
                std::fprintf(stderr, "pixel %zu: got %.7f expected %.7f\n", i, result[i], expected[i]);
            }
            ++bad;
        }
    }
    std::printf("[constant_filter] %d pixels differ by more than 1e-5\n", bad);
    // Rounded to 7 significant digits: FMA contraction may move the last bits.
    std::printf("checksum blurred_sum %.6e\n", sum);
    ok = ok && bad == 0;
    if (argc > 1) {
        write_pgm(argv[1], result, params.width, params.height);
    }

    if (ok) {
        cudaEvent_t start, stop;
        CHECK(cudaEventCreate(&start));
        CHECK(cudaEventCreate(&stop));
        const char* names[2] = {"convolve_rows", "convolve_columns"};
        for (int pass = 0; pass < 2; ++pass) {
            auto launch = [&] {
                if (pass == 0) {
                    cfilter::launch_row_pass(d_src, d_tmp, stream);
                } else {
                    cfilter::launch_column_pass(d_tmp, d_dst, stream);
                }
            };
            for (int i = 0; i < 10; ++i) {
                launch();
            }
            CHECK(cudaStreamSynchronize(stream));
            std::vector<float> times(100);
            for (float& t : times) {
                CHECK(cudaEventRecord(start, stream));
                launch();
                CHECK(cudaEventRecord(stop, stream));
                CHECK(cudaEventSynchronize(stop));
                CHECK(cudaEventElapsedTime(&t, start, stop));
            }
            std::sort(times.begin(), times.end());
            std::printf("kernel_median_ms %s %.6f\n", names[pass],
                        0.5 * (static_cast<double>(times[49]) + times[50]));
        }
        CHECK(cudaEventDestroy(start));
        CHECK(cudaEventDestroy(stop));
    }

    CHECK(cudaFree(d_src));
    CHECK(cudaFree(d_tmp));
    CHECK(cudaFree(d_dst));
    CHECK(cudaStreamDestroy(stream));
    std::printf(ok ? "Test PASSED\n" : "Test FAILED\n");
    return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}

// main.cu - stream_pipeline: evaluate a clamped polynomial over 4M values in
// 16 chunks on PIPELINE_STREAMS streams; compare bit for bit with the host.
#include "pipeline/error.h"
#include "pipeline/kernels.cuh"
#include "pipeline/pipeline.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <random>
#include <vector>

namespace {

// The same fused Horner steps as polynomial_kernel (std::fma on floats is
// correctly rounded, as fmaf on the GPU is), then the same clamp.
float host_eval(const std::vector<float>& c, float x, float lo, float hi, bool* clamped)
{
    float acc = c[pipeline::kPolyDegree];
    for (int k = pipeline::kPolyDegree - 1; k >= 0; --k) {
        acc = std::fma(acc, x, c[k]);
    }
    *clamped = acc < lo || acc > hi;
    return std::fmin(std::fmax(acc, lo), hi);
}

int run()
{
    const int n = 1 << 22;
    const int chunk = 1 << 18;
    const float lo = -2.0f, hi = 2.0f;
    const std::vector<float> coeffs = {0.25f, -1.5f, 0.75f, 2.0f, -0.5f, -0.875f, 0.3125f};
    std::printf("[stream_pipeline] %d values, %d chunks, %d streams\n", n, n / chunk,
                PIPELINE_STREAMS);

    int device = 0;
    PIPE_CHECK(cudaGetDevice(&device));
    int async_engines = 0;
    PIPE_CHECK(cudaDeviceGetAttribute(&async_engines, cudaDevAttrAsyncEngineCount, device));
    const pipeline::KernelInfo info = pipeline::polynomial_info(256);
    // Printed as yes/no only: the numbers depend on the GPU and the compiler.
    std::printf("[stream_pipeline] copy engines: %s, polynomial_kernel occupancy: %s\n",
                async_engines > 0 ? "yes" : "no",
                info.blocks_per_sm > 0 && info.max_threads_per_block >= 256 ? "ok" : "NONE");

    pipeline::Pipeline pipe(n, chunk);
    std::mt19937 rng(31337u);
    std::uniform_real_distribution<float> dist(-1.6f, 1.6f);
    float* in = pipe.host_input();
    for (int i = 0; i < n; ++i) {
        in[i] = dist(rng);
    }

    const pipeline::Result result = pipe.run(coeffs, lo, hi);
    const float* out = pipe.host_output();

    unsigned int clamped = 0;
    int mismatches = 0;
    double sum = 0.0;
    for (int i = 0; i < n; ++i) {
        bool c = false;
        const float want = host_eval(coeffs, in[i], lo, hi, &c);
        clamped += c;
        if (std::memcmp(&want, &out[i], sizeof(float)) != 0) {
            if (mismatches < 5) {
                std::fprintf(stderr, "value %d: got %.9g expected %.9g\n", i, out[i], want);
            }
            ++mismatches;
        }
        sum += out[i];
    }
    const int chunks = n / chunk;
    std::printf("[stream_pipeline] %d mismatches, clamped %u (host %u), callbacks %d of %d, "
                "streams idle: %s\n", mismatches, result.clamped, clamped, result.chunks_done,
                chunks, result.streams_idle ? "yes" : "no");
    // Exact: every value is reproduced bit for bit on the host.
    std::printf("checksum pipeline_output %.9e\n", sum);
    std::printf("checksum clamped_count %u\n", result.clamped);
    const bool ok = mismatches == 0 && result.clamped == clamped && result.chunks_done == chunks &&
                    result.streams_idle && info.blocks_per_sm > 0;
    if (ok) {
        std::printf("kernel_median_ms polynomial_kernel %.6f\n", pipe.time_polynomial_ms());
    }
    std::printf(ok ? "Test PASSED\n" : "Test FAILED\n");
    return ok ? 0 : 1;
}

}  // namespace

int main()
{
    try {
        return run();
    } catch (const std::exception& e) {
        std::fprintf(stderr, "stream_pipeline: %s\n", e.what());
        std::printf("Test FAILED\n");
        return 1;
    }
}

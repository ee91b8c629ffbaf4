// main.cu - blas_rand: C = alpha * A * B^T + beta * C with cuBLAS.
//
// cuRAND fills A, B (normal) and C (uniform) on the device. cublasSgemm and
// the tiled reference kernel each compute the product; both are compared
// with a host loop in double precision. Then both are timed.
#include "cublas_check.h"
#include "blas_rand/checks.h"
#include "blas_rand/gemm_reference.cuh"
#include "blas_rand/random_fill.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <vector>

namespace {

constexpr int kM = 256;
constexpr int kN = 192;
constexpr int kK = 320;
constexpr unsigned long long kSeed = 20261130ULL;
constexpr int kWarmup = 10;
constexpr int kTimed = 100;

// Median of kTimed launches, each timed alone with a pair of events.
double median_ms(cudaStream_t stream, const std::function<void()>& launch)
{
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    for (int i = 0; i < kWarmup; ++i) {
        launch();
    }
    CUDA_CHECK(cudaStreamSynchronize(stream));
    std::vector<float> times(kTimed);
    for (int i = 0; i < kTimed; ++i) {
        CUDA_CHECK(cudaEventRecord(start, stream));
        launch();
        CUDA_CHECK(cudaEventRecord(stop, stream));
        CUDA_CHECK(cudaEventSynchronize(stop));
        CUDA_CHECK(cudaEventElapsedTime(&times[i], start, stop));
    }
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    std::sort(times.begin(), times.end());
    return 0.5 * (static_cast<double>(times[kTimed / 2 - 1]) +
                  static_cast<double>(times[kTimed / 2]));
}

double sum_of(const std::vector<float>& v)
{
    double s = 0.0;
    for (float x : v) {
        s += x;
    }
    return s;
}

// Counts elements outside |got - ref| <= 2e-5 * (sum of |terms|) + 1e-6.
// FP32 rounding of a 320-term dot product stays several times below this.
int count_mismatches(const char* what, const std::vector<float>& got,
                     const std::vector<double>& ref,
                     const std::vector<double>& magnitude)
{
    int bad = 0;
    for (size_t i = 0; i < got.size(); ++i) {
        const double err = std::fabs(static_cast<double>(got[i]) - ref[i]);
        if (err > 2e-5 * magnitude[i] + 1e-6) {
            if (bad < 5) {
                std::fprintf(stderr, "%s mismatch at %zu: got %.7f expected %.7f\n",
                             what, i, got[i], ref[i]);
            }
            ++bad;
        }
    }
    std::printf("[blas_rand] %s: %d mismatches\n", what, bad);
    return bad;
}

}  // namespace

int main()
{
    const float alpha = 0.75f;
    const float beta = -0.5f;
    const size_t a_count = static_cast<size_t>(kM) * kK;
    const size_t b_count = static_cast<size_t>(kN) * kK;
    const size_t c_count = static_cast<size_t>(kM) * kN;
    std::printf("[blas_rand] C(%dx%d) = %.2f * A(%dx%d) * B(%dx%d)^T + %.2f * C\n",
                kM, kN, alpha, kM, kK, kN, kK, beta);

    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

    float *d_a, *d_b, *d_c0, *d_c_blas, *d_c_ref, *d_scratch;
    CUDA_CHECK(cudaMalloc(&d_a, a_count * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_b, b_count * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_c0, c_count * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_c_blas, c_count * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_c_ref, c_count * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_scratch, c_count * sizeof(float)));

    {
        blas_rand::RandomSource rng(kSeed);
        rng.set_stream(stream);
        rng.normal(d_a, a_count, 0.0f, 1.0f);
        rng.normal(d_b, b_count, 0.0f, 1.0f);
        rng.uniform(d_c0, c_count);
        CUDA_CHECK(cudaStreamSynchronize(stream));
    }

    std::vector<float> h_a(a_count), h_b(b_count), h_c0(c_count);
    CUDA_CHECK(cudaMemcpy(h_a.data(), d_a, a_count * sizeof(float), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(h_b.data(), d_b, b_count * sizeof(float), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(h_c0.data(), d_c0, c_count * sizeof(float), cudaMemcpyDeviceToHost));
    // The generated numbers depend only on the generator and the seed.
    std::printf("checksum curand_normal_A %.6e\n", sum_of(h_a));
    std::printf("checksum curand_normal_B %.6e\n", sum_of(h_b));
    std::printf("checksum curand_uniform_C %.6e\n", sum_of(h_c0));
    bool inputs_ok = true;
    for (float u : h_c0) {
        inputs_ok = inputs_ok && u > 0.0f && u <= 1.0f;
    }

    cublasHandle_t handle;
    CUBLAS_CHECK(cublasCreate(&handle));
    CUBLAS_CHECK(cublasSetStream(handle, stream));
    CUBLAS_CHECK(cublasSetPointerMode(handle, CUBLAS_POINTER_MODE_HOST));
    CUBLAS_CHECK(cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH));

    CUDA_CHECK(cudaMemcpyAsync(d_c_blas, d_c0, c_count * sizeof(float), cudaMemcpyDeviceToDevice, stream));
    CUDA_CHECK(cudaMemcpyAsync(d_c_ref, d_c0, c_count * sizeof(float), cudaMemcpyDeviceToDevice, stream));
    CUBLAS_CHECK(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_T, kM, kN, kK, &alpha,
                             d_a, kM, d_b, kN, &beta, d_c_blas, kM));
    blas_rand::reference_sgemm_nt(kM, kN, kK, alpha, d_a, kM, d_b, kN, beta,
                                  d_c_ref, kM, stream);
    CUDA_CHECK(cudaStreamSynchronize(stream));

    std::vector<float> h_blas(c_count), h_ref(c_count);
    CUDA_CHECK(cudaMemcpy(h_blas.data(), d_c_blas, c_count * sizeof(float), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(h_ref.data(), d_c_ref, c_count * sizeof(float), cudaMemcpyDeviceToHost));

    // Host reference in double, plus the magnitude of the summed terms.
    std::vector<double> expected(c_count), magnitude(c_count);
    for (int j = 0; j < kN; ++j) {
        for (int i = 0; i < kM; ++i) {
            double dot = 0.0, mag = 0.0;
            for (int p = 0; p < kK; ++p) {
                const double t = static_cast<double>(h_a[i + static_cast<size_t>(p) * kM]) *
                                 h_b[j + static_cast<size_t>(p) * kN];
                dot += t;
                mag += std::fabs(t);
            }
            const size_t idx = i + static_cast<size_t>(j) * kM;
            expected[idx] = alpha * dot + beta * static_cast<double>(h_c0[idx]);
            magnitude[idx] = std::fabs(alpha) * mag + std::fabs(beta * h_c0[idx]);
        }
    }
    const int bad_blas = count_mismatches("cublasSgemm", h_blas, expected, magnitude);
    const int bad_ref = count_mismatches("reference_sgemm", h_ref, expected, magnitude);
    // Rounded: another summation order (another cuBLAS build) may move the last bits.
    std::printf("checksum sgemm_cublas %.5e\n", sum_of(h_blas));
    std::printf("checksum sgemm_reference %.5e\n", sum_of(h_ref));

    const bool ok = inputs_ok && bad_blas == 0 && bad_ref == 0;
    if (ok) {
        // Timed on a scratch C so that the checked results stay untouched.
        const double ref_ms = median_ms(stream, [&] {
            blas_rand::reference_sgemm_nt(kM, kN, kK, alpha, d_a, kM, d_b, kN,
                                          0.0f, d_scratch, kM, stream);
        });
        std::printf("kernel_median_ms reference_sgemm %.6f\n", ref_ms);
        const float zero = 0.0f;
        const double blas_ms = median_ms(stream, [&] {
            CUBLAS_CHECK(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_T, kM, kN, kK,
                                     &alpha, d_a, kM, d_b, kN, &zero, d_scratch, kM));
        });
        std::printf("kernel_median_ms cublasSgemm %.6f\n", blas_ms);
    }

    CUBLAS_CHECK(cublasDestroy(handle));
    CUDA_CHECK(cudaFree(d_a));
    CUDA_CHECK(cudaFree(d_b));
    CUDA_CHECK(cudaFree(d_c0));
    CUDA_CHECK(cudaFree(d_c_blas));
    CUDA_CHECK(cudaFree(d_c_ref));
    CUDA_CHECK(cudaFree(d_scratch));
    CUDA_CHECK(cudaStreamDestroy(stream));

    std::printf(ok ? "Test PASSED\n" : "Test FAILED\n");
    return ok ? 0 : 1;
}

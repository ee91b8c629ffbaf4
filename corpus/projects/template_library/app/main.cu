// main.cu - template_library: every shipped instantiation of tlib checked
// against the host, then the float sum-of-squares kernel timed.
#include "tlib/device_vector.h"
#include "tlib/functors.cuh"
#include "tlib/stencil.cuh"
#include "tlib/transform_reduce.cuh"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

namespace {

int g_failures = 0;

void expect_close(const char* what, double got, double want, double tolerance)
{
    const bool good = std::fabs(got - want) <= tolerance;
    if (!good) {
        std::fprintf(stderr, "%s: got %.17g expected %.17g (tolerance %g)\n", what, got, want,
                     tolerance);
        ++g_failures;
    }
    std::printf("[template_library] %s: %s\n", what, good ? "ok" : "MISMATCH");
}

template <typename T>
void expect_equal(const char* what, T got, T want)
{
    expect_close(what, static_cast<double>(got), static_cast<double>(want), 0.0);
}

// Host version of apply_stencil, in double.
template <typename T, int Radius>
int check_stencil(const char* what, const std::vector<T>& in, const std::vector<T>& out,
                  const tlib::StencilWeights<T, Radius>& w, double rel)
{
    const int n = static_cast<int>(in.size());
    int bad = 0;
    for (int i = 0; i < n; ++i) {
        double want = static_cast<double>(w.w[0]) * in[i];
        double mag = std::fabs(want);
        for (int r = 1; r <= Radius; ++r) {
            const double t = static_cast<double>(w.w[r]) *
                             (static_cast<double>(in[std::max(i - r, 0)]) + in[std::min(i + r, n - 1)]);
            want += t;
            mag += std::fabs(t);
        }
        if (std::fabs(out[i] - want) > rel * mag + 1e-30) {
            ++bad;
        }
    }
    expect_equal(what, bad, 0);
    return bad;
}

template <typename T>
double sum_of(const std::vector<T>& v)
{
    double s = 0.0;
    for (T x : v) {
        s += static_cast<double>(x);
    }
    return s;
}

}  // namespace

int main()
{
    const int n = 1000003;  // not a multiple of any block size
    std::printf("[template_library] %d elements\n", n);
    std::mt19937_64 rng(777u);
    std::uniform_real_distribution<double> real(-2.0, 2.0);
    std::uniform_int_distribution<int> integer(-1000, 1000);
    std::vector<float> hf(n);
    std::vector<double> hd(n);
    std::vector<int> hi(n);
    for (int i = 0; i < n; ++i) {
        hd[i] = real(rng);
        hf[i] = static_cast<float>(real(rng));
        hi[i] = integer(rng);
    }
    tlib::device_vector<float> df(hf);
    tlib::device_vector<double> dd(hd);
    tlib::device_vector<int> di(hi);

    // Host references.
    double f_sq = 0.0, f_abs = 0.0, d_sq = 0.0, d_sum = 0.0, d_abs = 0.0;
    float f_max = 0.0f;
    long long i_sum = 0;
    int i_max = 0;
    for (int i = 0; i < n; ++i) {
        f_sq += static_cast<double>(hf[i]) * hf[i];
        f_abs += std::fabs(hf[i]);
        f_max = std::max(f_max, std::fabs(hf[i]));
        d_sq += hd[i] * hd[i];
        d_sum += hd[i];
        d_abs += std::fabs(hd[i]);
        i_sum += hi[i];
        i_max = std::max(i_max, std::abs(hi[i]));
    }

    const float g_fsq = tlib::transform_reduce(df.data(), n, tlib::Square{}, tlib::Plus{});
    const float g_fmax = tlib::transform_reduce(df.data(), n, tlib::Absolute{}, tlib::Maximum{});
    const double g_dsq = tlib::transform_reduce(dd.data(), n, tlib::Square{}, tlib::Plus{});
    const double g_dsum = tlib::transform_reduce(dd.data(), n, tlib::Identity{}, tlib::Plus{});
    const int g_isum = tlib::transform_reduce(di.data(), n, tlib::Identity{}, tlib::Plus{});
    const int g_imax = tlib::transform_reduce(di.data(), n, tlib::Absolute{}, tlib::Maximum{});

    // Sums: rounding grows with the sum of magnitudes (float: 1e-5 relative).
    expect_close("float sum of squares", g_fsq, f_sq, 1e-5 * f_sq);
    expect_equal("float max abs", g_fmax, f_max);
    expect_close("double sum of squares", g_dsq, d_sq, 1e-12 * d_sq);
    expect_close("double sum", g_dsum, d_sum, 1e-12 * d_abs);
    expect_equal("int sum", static_cast<long long>(g_isum), i_sum);
    expect_equal("int max abs", g_imax, i_max);

    // Stencils.
    tlib::StencilWeights<float, 2> w2{{0.4f, 0.2f, 0.1f}};
    tlib::StencilWeights<float, 4> w4{{0.2f, 0.15f, 0.12f, 0.08f, 0.05f}};
    tlib::StencilWeights<double, 3> w3{{0.5, -0.125, 0.0625, -0.03125}};
    tlib::device_vector<float> out_f(n);
    tlib::device_vector<double> out_d(n);
    tlib::apply_stencil(df.data(), out_f.data(), n, w2);
    const std::vector<float> s2 = out_f.to_host();
    check_stencil("stencil<float, 2>", hf, s2, w2, 1e-6);
    tlib::apply_stencil(df.data(), out_f.data(), n, w4);
    const std::vector<float> s4 = out_f.to_host();
    check_stencil("stencil<float, 4>", hf, s4, w4, 1e-6);
    tlib::apply_stencil(dd.data(), out_d.data(), n, w3);
    const std::vector<double> s3 = out_d.to_host();
    check_stencil("stencil<double, 3>", hd, s3, w3, 1e-14);

    // Integers exactly; floating-point values rounded to 7 significant
    // digits (another summation order or FMA contraction moves the last bits).
    std::printf("checksum int_sum %d\n", g_isum);
    std::printf("checksum int_max_abs %d\n", g_imax);
    std::printf("checksum float_max_abs %.7e\n", g_fmax);
    std::printf("checksum float_sum_squares %.6e\n", g_fsq);
    std::printf("checksum double_sum_squares %.6e\n", g_dsq);
    std::printf("checksum stencil_float_2 %.6e\n", sum_of(s2));
    std::printf("checksum stencil_float_4 %.6e\n", sum_of(s4));
    std::printf("checksum stencil_double_3 %.6e\n", sum_of(s3));

    const bool ok = (g_failures == 0);
    if (ok) {
        // The kernel template launched directly with this program's own shape.
        constexpr int kBlock = 256, kItems = 4, kBlocks = 120;
        tlib::device_vector<float> partial(kBlocks);
        auto launch = [&] {
            tlib::transform_reduce_kernel<float, kBlock, kItems>
                <<<kBlocks, kBlock>>>(df.data(), n, tlib::Square{}, tlib::Plus{}, partial.data());
        };
        cudaEvent_t start, stop;
        TLIB_CHECK(cudaEventCreate(&start));
        TLIB_CHECK(cudaEventCreate(&stop));
        for (int i = 0; i < 10; ++i) {
            launch();
        }
        TLIB_CHECK(cudaGetLastError());
        TLIB_CHECK(cudaDeviceSynchronize());
        std::vector<float> times(100);
        for (float& t : times) {
            TLIB_CHECK(cudaEventRecord(start));
            launch();
            TLIB_CHECK(cudaEventRecord(stop));
            TLIB_CHECK(cudaEventSynchronize(stop));
            TLIB_CHECK(cudaEventElapsedTime(&t, start, stop));
        }
        TLIB_CHECK(cudaGetLastError());
        std::sort(times.begin(), times.end());
        std::printf("kernel_median_ms transform_reduce_kernel %.6f\n",
                    0.5 * (static_cast<double>(times[49]) + times[50]));
        TLIB_CHECK(cudaEventDestroy(start));
        TLIB_CHECK(cudaEventDestroy(stop));
    }
    std::printf(ok ? "Test PASSED\n" : "Test FAILED\n");
    return ok ? 0 : 1;
}

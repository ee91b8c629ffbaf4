// main.cu - texture_sampling: three texture objects, three kernels, host
// models of each read.
#include "reference.h"
#include "texsamp/resample.cuh"
#include "texsamp/texture_image.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

namespace {

constexpr int kW = 512, kH = 384;           // float source image
constexpr int kOutW = 640, kOutH = 480;     // resampled size
constexpr int kRgbaW = 256, kRgbaH = 256;   // RGBA8 image
constexpr float kScale = 1.25f, kOffsetU = 0.3f, kOffsetV = -0.2f;
constexpr int kDx = -7, kDy = 5;

double sum_of(const std::vector<float>& v)
{
    double s = 0.0;
    for (float x : v) {
        s += x;
    }
    return s;
}

}  // namespace

int main()
{
    using texsamp::check;
    std::printf("[texture_sampling] %dx%d float image, %dx%d RGBA8 image\n", kW, kH, kRgbaW, kRgbaH);
    std::mt19937 rng(99u);
    std::uniform_real_distribution<float> noise(-0.02f, 0.02f);
    std::uniform_int_distribution<int> byte(0, 255);
    std::vector<float> img(static_cast<size_t>(kW) * kH);
    for (int y = 0; y < kH; ++y) {
        for (int x = 0; x < kW; ++x) {
            img[static_cast<size_t>(y) * kW + x] =
                0.5f + 0.4f * std::sin(0.05f * x) * std::cos(0.03f * y) + noise(rng);
        }
    }
    std::vector<uchar4> rgba(static_cast<size_t>(kRgbaW) * kRgbaH);
    for (uchar4& p : rgba) {
        p = make_uchar4(byte(rng), byte(rng), byte(rng), 255);
    }

    texsamp::SamplerSettings point;  // defaults: point, clamp, element type
    texsamp::SamplerSettings linear;
    linear.filter = cudaFilterModeLinear;
    linear.address = cudaAddressModeWrap;
    linear.normalized_coords = true;
    texsamp::SamplerSettings unorm;
    unorm.read = cudaReadModeNormalizedFloat;

    texsamp::TextureImage<float> point_tex(img, kW, kH, point);
    texsamp::TextureImage<float> linear_tex(img, kW, kH, linear);
    texsamp::TextureImage<uchar4> rgba_tex(rgba, kRgbaW, kRgbaH, unorm);
    bool ok = point_tex.reports_its_array() && linear_tex.reports_its_array() &&
              rgba_tex.reports_its_array();

    cudaStream_t stream;
    check(cudaStreamCreate(&stream), "cudaStreamCreate");
    float *d_shift, *d_resampled, *d_luma;
    check(cudaMalloc(&d_shift, img.size() * sizeof(float)), "cudaMalloc");
    check(cudaMalloc(&d_resampled, static_cast<size_t>(kOutW) * kOutH * sizeof(float)), "cudaMalloc");
    check(cudaMalloc(&d_luma, rgba.size() * sizeof(float)), "cudaMalloc");

    texsamp::shift_point(point_tex.texture(), d_shift, kW, kH, kDx, kDy, stream);
    texsamp::resample_linear(linear_tex.texture(), d_resampled, kOutW, kOutH, kScale, kOffsetU,
                             kOffsetV, stream);
    texsamp::rgba_to_luma(rgba_tex.texture(), d_luma, kRgbaW, kRgbaH, stream);
    std::vector<float> shifted(img.size()), resampled(static_cast<size_t>(kOutW) * kOutH),
        luma(rgba.size());
    check(cudaMemcpyAsync(shifted.data(), d_shift, shifted.size() * sizeof(float),
                          cudaMemcpyDeviceToHost, stream), "copy back");
    check(cudaMemcpyAsync(resampled.data(), d_resampled, resampled.size() * sizeof(float),
                          cudaMemcpyDeviceToHost, stream), "copy back");
    check(cudaMemcpyAsync(luma.data(), d_luma, luma.size() * sizeof(float),
                          cudaMemcpyDeviceToHost, stream), "copy back");
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");

    // Point sampling: exact.
    int bad_point = 0;
    for (int y = 0; y < kH; ++y) {
        for (int x = 0; x < kW; ++x) {
            const float want = host_point_clamp(img, kW, kH, x + kDx + 0.5f, y + kDy + 0.5f);
            bad_point += shifted[static_cast<size_t>(y) * kW + x] != want;
        }
    }
    // Bilinear: the hardware keeps 8 fractional bits of the weights, so allow
    // 1/128 of the spread of the four texels (plus float rounding).
    int bad_linear = 0;
    for (int y = 0; y < kOutH; ++y) {
        for (int x = 0; x < kOutW; ++x) {
            const float u = (x + 0.5f) / kOutW * kScale + kOffsetU;
            const float v = (y + 0.5f) / kOutH * kScale + kOffsetV;
            double range = 0.0;
            const double want = host_linear_wrap(img, kW, kH, u, v, &range);
            const double got = resampled[static_cast<size_t>(y) * kOutW + x];
            if (std::fabs(got - want) > range / 128.0 + 1e-5) {
                if (bad_linear < 5) {
                    std::fprintf(stderr, "linear (%d,%d): got %.6f expected %.6f\n", x, y, got, want);
                }
                ++bad_linear;
            }
        }
    }
    // RGBA8 read as normalized float: channel / 255.
    int bad_luma = 0;
    for (size_t i = 0; i < rgba.size(); ++i) {
        const double want = 0.299 * rgba[i].x / 255.0 + 0.587 * rgba[i].y / 255.0 +
                            0.114 * rgba[i].z / 255.0;
        bad_luma += std::fabs(luma[i] - want) > 2e-6;
    }
    std::printf("[texture_sampling] mismatches: point %d, linear %d, rgba %d\n", bad_point,
                bad_linear, bad_luma);
    // Point samples are copies (exact); the bilinear and RGBA sums are rounded
    // (filter weight precision is the texture unit's).
    std::printf("checksum shift_point %.9e\n", sum_of(shifted));
    std::printf("checksum resample_linear %.5e\n", sum_of(resampled));
    std::printf("checksum rgba_luma %.6e\n", sum_of(luma));
    ok = ok && bad_point == 0 && bad_linear == 0 && bad_luma == 0;

    if (ok) {
        cudaEvent_t start, stop;
        check(cudaEventCreate(&start), "cudaEventCreate");
        check(cudaEventCreate(&stop), "cudaEventCreate");
        for (int i = 0; i < 10; ++i) {
            texsamp::resample_linear(linear_tex.texture(), d_resampled, kOutW, kOutH, kScale,
                                     kOffsetU, kOffsetV, stream);
        }
        check(cudaStreamSynchronize(stream), "warm-up");
        std::vector<float> times(100);
        for (float& t : times) {
            check(cudaEventRecord(start, stream), "cudaEventRecord");
            texsamp::resample_linear(linear_tex.texture(), d_resampled, kOutW, kOutH, kScale,
                                     kOffsetU, kOffsetV, stream);
            check(cudaEventRecord(stop, stream), "cudaEventRecord");
            check(cudaEventSynchronize(stop), "cudaEventSynchronize");
            check(cudaEventElapsedTime(&t, start, stop), "cudaEventElapsedTime");
        }
        std::sort(times.begin(), times.end());
        std::printf("kernel_median_ms resample_linear_kernel %.6f\n",
                    0.5 * (static_cast<double>(times[49]) + times[50]));
        check(cudaEventDestroy(start), "cudaEventDestroy");
        check(cudaEventDestroy(stop), "cudaEventDestroy");
    }

    check(cudaFree(d_shift), "cudaFree");
    check(cudaFree(d_resampled), "cudaFree");
    check(cudaFree(d_luma), "cudaFree");
    check(cudaStreamDestroy(stream), "cudaStreamDestroy");
    std::printf(ok ? "Test PASSED\n" : "Test FAILED\n");
    return ok ? 0 : 1;
}

// reference.cpp - host models of the texture reads.
#include "reference.h"

#include <algorithm>
#include <cmath>

float host_point_clamp(const std::vector<float>& img, int w, int h, float x, float y)
{
    const int ix = std::min(std::max(static_cast<int>(std::floor(x)), 0), w - 1);
    const int iy = std::min(std::max(static_cast<int>(std::floor(y)), 0), h - 1);
    return img[static_cast<size_t>(iy) * w + ix];
}

double host_linear_wrap(const std::vector<float>& img, int w, int h, float u, float v,
                        double* range)
{
    // Texel centres sit at (i + 0.5) / size; wrap repeats the image.
    const double xf = static_cast<double>(u) * w - 0.5;
    const double yf = static_cast<double>(v) * h - 0.5;
    const double x0 = std::floor(xf), y0 = std::floor(yf);
    const double a = xf - x0, b = yf - y0;
    auto wrap = [](long long i, int n) { return static_cast<int>(((i % n) + n) % n); };
    const int xa = wrap(static_cast<long long>(x0), w), xb = wrap(static_cast<long long>(x0) + 1, w);
    const int ya = wrap(static_cast<long long>(y0), h), yb = wrap(static_cast<long long>(y0) + 1, h);
    const double t00 = img[static_cast<size_t>(ya) * w + xa];
    const double t10 = img[static_cast<size_t>(ya) * w + xb];
    const double t01 = img[static_cast<size_t>(yb) * w + xa];
    const double t11 = img[static_cast<size_t>(yb) * w + xb];
    *range = std::max({t00, t10, t01, t11}) - std::min({t00, t10, t01, t11});
    return (1 - a) * (1 - b) * t00 + a * (1 - b) * t10 + (1 - a) * b * t01 + a * b * t11;
}

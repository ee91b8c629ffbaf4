// gaussian_weights.cpp
#include "gaussian_weights.h"

#include <cmath>

std::vector<float> gaussian_weights(int radius, float sigma)
{
    std::vector<double> w(2 * radius + 1);
    double total = 0.0;
    for (int i = -radius; i <= radius; ++i) {
        w[i + radius] = std::exp(-(i * i) / (2.0 * sigma * sigma));
        total += w[i + radius];
    }
    std::vector<float> out(w.size());
    for (size_t i = 0; i < w.size(); ++i) {
        out[i] = static_cast<float>(w[i] / total);
    }
    return out;
}

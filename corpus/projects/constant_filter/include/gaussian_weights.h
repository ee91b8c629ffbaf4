// gaussian_weights.h - normalized Gaussian taps (host code, src/gaussian_weights.cpp).
#ifndef CONSTANT_FILTER_GAUSSIAN_WEIGHTS_H
#define CONSTANT_FILTER_GAUSSIAN_WEIGHTS_H

#include <vector>

// 2 * radius + 1 weights of exp(-x^2 / (2 sigma^2)), summing to 1.
std::vector<float> gaussian_weights(int radius, float sigma);

#endif

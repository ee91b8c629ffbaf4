// reference.h - what the texture unit computes, on the host (app/reference.cpp).
#pragma once

#include <vector>

// Point sample with clamp addressing at unnormalized (x, y).
float host_point_clamp(const std::vector<float>& img, int w, int h, float x, float y);
// Bilinear sample with wrap addressing at normalized (u, v). *range receives
// the spread (max - min) of the four texels used.
double host_linear_wrap(const std::vector<float>& img, int w, int h, float u, float v,
                        double* range);

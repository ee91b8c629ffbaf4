// image_io.cpp
#include "image_io.h"

#include <cmath>
#include <cstdio>
#include <random>

std::vector<float> make_test_image(int width, int height, unsigned seed)
{
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> noise(-0.15f, 0.15f);
    std::vector<float> img(static_cast<size_t>(width) * height);
    for (int y = 0; y < height; ++y) {
        for (int x = 0; x < width; ++x) {
            const float base = 0.5f + 0.25f * std::sin(x * 0.031f) * std::cos(y * 0.017f);
            float v = base + noise(rng);
            v = v < 0.0f ? 0.0f : (v > 1.0f ? 1.0f : v);
            img[static_cast<size_t>(y) * width + x] = v;
        }
    }
    return img;
}

bool write_pgm(const std::string& path, const std::vector<float>& pixels, int width, int height)
{
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (f == nullptr) {
        return false;
    }
    std::fprintf(f, "P5\n%d %d\n255\n", width, height);
    for (float p : pixels) {
        const int v = static_cast<int>(std::lround(p * 255.0f));
        std::fputc(v < 0 ? 0 : (v > 255 ? 255 : v), f);
    }
    return std::fclose(f) == 0;
}

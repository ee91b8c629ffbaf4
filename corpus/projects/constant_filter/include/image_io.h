// image_io.h - a synthetic test image and a PGM writer for debugging.
#ifndef CONSTANT_FILTER_IMAGE_IO_H
#define CONSTANT_FILTER_IMAGE_IO_H

#include <string>
#include <vector>

// width x height floats in [0, 1]: smooth gradients plus seeded noise.
std::vector<float> make_test_image(int width, int height, unsigned seed);
// Writes an 8-bit binary PGM; returns false on I/O errors.
bool write_pgm(const std::string& path, const std::vector<float>& pixels, int width, int height);

#endif

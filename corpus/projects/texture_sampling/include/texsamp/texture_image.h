// texture_image.h - a CUDA array plus a texture object reading it.
#pragma once

#include <cuda_runtime.h>

#include <vector>

namespace texsamp {

struct SamplerSettings {
    cudaTextureFilterMode filter = cudaFilterModePoint;
    cudaTextureAddressMode address = cudaAddressModeClamp;
    cudaTextureReadMode read = cudaReadModeElementType;
    bool normalized_coords = false;
};

// Owns a width x height cudaArray of T and one texture object over it.
// T: float or uchar4.
template <typename T>
class TextureImage {
public:
    TextureImage(const std::vector<T>& pixels, int width, int height,
                 const SamplerSettings& settings);
    ~TextureImage();
    TextureImage(const TextureImage&) = delete;
    TextureImage& operator=(const TextureImage&) = delete;

    cudaTextureObject_t texture() const { return texture_; }
    int width() const { return width_; }
    int height() const { return height_; }
    // The resource the texture object reports back (cudaGetTextureObjectResourceDesc).
    bool reports_its_array() const;

private:
    cudaArray_t array_ = nullptr;
    cudaTextureObject_t texture_ = 0;
    int width_;
    int height_;
};

void check(cudaError_t err, const char* what);

}  // namespace texsamp

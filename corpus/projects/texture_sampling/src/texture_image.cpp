// texture_image.cpp - TextureImage: cudaMallocArray, cudaMemcpy2DToArray,
// cudaCreateTextureObject. Host code only.
#include "texsamp/texture_image.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace texsamp {

void check(cudaError_t err, const char* what)
{
    if (err != cudaSuccess) {
        std::fprintf(stderr, "texture_sampling: %s: %s\n", what, cudaGetErrorString(err));
        std::exit(EXIT_FAILURE);
    }
}

template <typename T>
TextureImage<T>::TextureImage(const std::vector<T>& pixels, int width, int height,
                              const SamplerSettings& settings)
    : width_(width), height_(height)
{
    const cudaChannelFormatDesc channel = cudaCreateChannelDesc<T>();
    check(cudaMallocArray(&array_, &channel, width, height), "cudaMallocArray");
    const size_t row_bytes = width * sizeof(T);
    check(cudaMemcpy2DToArray(array_, 0, 0, pixels.data(), row_bytes, row_bytes, height,
                              cudaMemcpyHostToDevice),
          "cudaMemcpy2DToArray");

    cudaResourceDesc resource;
    std::memset(&resource, 0, sizeof(resource));
    resource.resType = cudaResourceTypeArray;
    resource.res.array.array = array_;

    cudaTextureDesc desc;
    std::memset(&desc, 0, sizeof(desc));
    desc.addressMode[0] = settings.address;
    desc.addressMode[1] = settings.address;
    desc.filterMode = settings.filter;
    desc.readMode = settings.read;
    desc.normalizedCoords = settings.normalized_coords ? 1 : 0;

    check(cudaCreateTextureObject(&texture_, &resource, &desc, nullptr),
          "cudaCreateTextureObject");
}

template <typename T>
TextureImage<T>::~TextureImage()
{
    cudaDestroyTextureObject(texture_);
    cudaFreeArray(array_);
}

template <typename T>
bool TextureImage<T>::reports_its_array() const
{
    cudaResourceDesc back;
    check(cudaGetTextureObjectResourceDesc(&back, texture_), "cudaGetTextureObjectResourceDesc");
    return back.resType == cudaResourceTypeArray && back.res.array.array == array_;
}

template class TextureImage<float>;
template class TextureImage<uchar4>;

}  // namespace texsamp

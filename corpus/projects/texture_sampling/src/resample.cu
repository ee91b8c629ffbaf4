// resample.cu - the texture-reading kernels.
#include "texsamp/resample.cuh"
#include "texsamp/texture_image.h"

namespace texsamp {
namespace {

__global__ void shift_point_kernel(cudaTextureObject_t tex, float* out, int width, int height,
                                   int dx, int dy)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < width && y < height) {
        out[y * width + x] = tex2D<float>(tex, x + dx + 0.5f, y + dy + 0.5f);
    }
}

__global__ void resample_linear_kernel(cudaTextureObject_t tex, float* out, int out_w, int out_h,
                                       float scale, float offset_u, float offset_v)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < out_w && y < out_h) {
        const float u = (x + 0.5f) / out_w * scale + offset_u;
        const float v = (y + 0.5f) / out_h * scale + offset_v;
        out[y * out_w + x] = tex2D<float>(tex, u, v);
    }
}

__global__ void rgba_to_luma_kernel(cudaTextureObject_t tex, float* out, int width, int height)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < width && y < height) {
        const float4 c = tex2D<float4>(tex, x + 0.5f, y + 0.5f);
        out[y * width + x] = 0.299f * c.x + 0.587f * c.y + 0.114f * c.z;
    }
}

dim3 grid_for(int w, int h, dim3 block)
{
    return dim3((w + block.x - 1) / block.x, (h + block.y - 1) / block.y);
}

}  // namespace

void shift_point(cudaTextureObject_t tex, float* out, int width, int height, int dx, int dy,
                 cudaStream_t stream)
{
    const dim3 block(16, 16);
    shift_point_kernel<<<grid_for(width, height, block), block, 0, stream>>>(tex, out, width,
                                                                             height, dx, dy);
    check(cudaGetLastError(), "shift_point_kernel launch");
}

void resample_linear(cudaTextureObject_t tex, float* out, int out_w, int out_h, float scale,
                     float offset_u, float offset_v, cudaStream_t stream)
{
    const dim3 block(32, 8);
    resample_linear_kernel<<<grid_for(out_w, out_h, block), block, 0, stream>>>(
        tex, out, out_w, out_h, scale, offset_u, offset_v);
    check(cudaGetLastError(), "resample_linear_kernel launch");
}

void rgba_to_luma(cudaTextureObject_t tex, float* out, int width, int height, cudaStream_t stream)
{
    const dim3 block(16, 16);
    rgba_to_luma_kernel<<<grid_for(width, height, block), block, 0, stream>>>(tex, out, width,
                                                                              height);
    check(cudaGetLastError(), "rgba_to_luma_kernel launch");
}

}  // namespace texsamp

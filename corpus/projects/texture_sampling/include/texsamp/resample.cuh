// resample.cuh - kernels that read texture objects (src/resample.cu).
#pragma once

#include <cuda_runtime.h>

namespace texsamp {

// out(x, y) = tex(x + dx + 0.5, y + dy + 0.5): a shifted copy; with point
// filtering and clamp addressing, pixels outside repeat the border.
void shift_point(cudaTextureObject_t tex, float* out, int width, int height, int dx, int dy,
                 cudaStream_t stream);
// out(x, y) = tex(u, v) with normalized u = (x + 0.5) / out_w * scale + offset_u (same for v);
// bilinear filtering and wrap addressing.
void resample_linear(cudaTextureObject_t tex, float* out, int out_w, int out_h, float scale,
                     float offset_u, float offset_v, cudaStream_t stream);
// out(x, y) = luma of an RGBA8 texture read as normalized floats.
void rgba_to_luma(cudaTextureObject_t tex, float* out, int width, int height, cudaStream_t stream);

}  // namespace texsamp

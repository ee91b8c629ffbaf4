// stencil.cuh - a 1-D symmetric stencil with a compile-time radius.
#pragma once

#include <cuda_runtime.h>

namespace tlib {

// out[i] = sum_{r=-Radius..Radius} weights[|r|] * in[clamp(i + r)]
// weights: Radius + 1 host values, copied by value into the kernel argument.
template <typename T, int Radius>
struct StencilWeights {
    T w[Radius + 1];
};

template <typename T, int Radius>
void apply_stencil(const T* d_in, T* d_out, int n, const StencilWeights<T, Radius>& weights,
                   cudaStream_t stream = 0);

}  // namespace tlib

// stencil.cu - apply_stencil with a shared-memory halo, instantiated for
// (float, 2), (float, 4) and (double, 3).
#include "tlib/device_vector.h"
#include "tlib/stencil.cuh"

namespace tlib {
namespace {

template <typename T, int Radius, int BlockSize>
__global__ void stencil_kernel(const T* __restrict__ in, T* __restrict__ out, int n,
                               StencilWeights<T, Radius> weights)
{
    __shared__ T tile[BlockSize + 2 * Radius];
    const int i = blockIdx.x * BlockSize + threadIdx.x;
    auto load = [&](int j) { return in[j < 0 ? 0 : (j >= n ? n - 1 : j)]; };
    tile[threadIdx.x + Radius] = load(i);
    if (threadIdx.x < Radius) {
        tile[threadIdx.x] = load(i - Radius);
        tile[threadIdx.x + BlockSize + Radius] = load(i + BlockSize);
    }
    __syncthreads();
    if (i < n) {
        T sum = weights.w[0] * tile[threadIdx.x + Radius];
#pragma unroll
        for (int r = 1; r <= Radius; ++r) {
            sum += weights.w[r] * (tile[threadIdx.x + Radius - r] + tile[threadIdx.x + Radius + r]);
        }
        out[i] = sum;
    }
}

}  // namespace

template <typename T, int Radius>
void apply_stencil(const T* d_in, T* d_out, int n, const StencilWeights<T, Radius>& weights,
                   cudaStream_t stream)
{
    constexpr int kBlock = 128;
    static_assert(Radius <= kBlock, "halo must fit in one block");
    stencil_kernel<T, Radius, kBlock><<<(n + kBlock - 1) / kBlock, kBlock, 0, stream>>>(
        d_in, d_out, n, weights);
    TLIB_CHECK(cudaGetLastError());
}

template void apply_stencil<float, 2>(const float*, float*, int, const StencilWeights<float, 2>&, cudaStream_t);
template void apply_stencil<float, 4>(const float*, float*, int, const StencilWeights<float, 4>&, cudaStream_t);
template void apply_stencil<double, 3>(const double*, double*, int, const StencilWeights<double, 3>&, cudaStream_t);

}  // namespace tlib

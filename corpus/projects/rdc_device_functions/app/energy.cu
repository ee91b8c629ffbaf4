// energy.cu - a kernel of the executable that calls nbody::dot3 from the
// static library: the call crosses a library boundary and is resolved when
// the executable is device-linked.
#include "energy.cuh"

#include "nbody/check.cuh"
#include "nbody/vec_math.cuh"

#include <vector>

namespace {

constexpr int kEnergyBlock = 256;

__global__ void kinetic_energy_partial(const float4* __restrict__ pos,
                                       const float3* __restrict__ vel, int n,
                                       float* __restrict__ partial)
{
    __shared__ float sums[kEnergyBlock];
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    float e = 0.0f;
    if (i < n) {
        e = 0.5f * pos[i].w * nbody::dot3(vel[i], vel[i]);
    }
    sums[threadIdx.x] = e;
    __syncthreads();
    for (int stride = kEnergyBlock / 2; stride > 0; stride >>= 1) {
        if (threadIdx.x < stride) {
            sums[threadIdx.x] += sums[threadIdx.x + stride];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        partial[blockIdx.x] = sums[0];
    }
}

}  // namespace

double kinetic_energy(const float4* pos, const float3* vel, int n, cudaStream_t stream)
{
    const int blocks = (n + kEnergyBlock - 1) / kEnergyBlock;
    float* d_partial = nullptr;
    NBODY_CHECK(cudaMalloc(&d_partial, blocks * sizeof(float)));
    kinetic_energy_partial<<<blocks, kEnergyBlock, 0, stream>>>(pos, vel, n, d_partial);
    NBODY_CHECK(cudaGetLastError());
    std::vector<float> partial(blocks);
    NBODY_CHECK(cudaMemcpyAsync(partial.data(), d_partial, blocks * sizeof(float),
                                cudaMemcpyDeviceToHost, stream));
    NBODY_CHECK(cudaStreamSynchronize(stream));
    NBODY_CHECK(cudaFree(d_partial));
    double total = 0.0;
    for (float p : partial) {
        total += p;
    }
    return total;
}

// forces.cu - all-pairs accelerations with shared-memory tiles, and the
// integrator. Both kernels call device functions from vec_math.cu.
#include "nbody/check.cuh"
#include "nbody/forces.cuh"
#include "nbody/vec_math.cuh"

namespace nbody {
namespace {

__global__ void pairwise_forces(const float4* __restrict__ pos,
                                float3* __restrict__ acc, int n)
{
    __shared__ float4 tile[kForceBlock];
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const float4 me = (i < n) ? pos[i] : make_float4(0.f, 0.f, 0.f, 0.f);
    float3 a = make_float3(0.f, 0.f, 0.f);

    for (int base = 0; base < n; base += kForceBlock) {
        const int j = base + threadIdx.x;
        tile[threadIdx.x] = (j < n) ? pos[j] : make_float4(0.f, 0.f, 0.f, 0.f);
        __syncthreads();
        const int count = min(kForceBlock, n - base);
        for (int t = 0; t < count; ++t) {
            float inv_r3;
            const float3 d = displacement(me, tile[t], &inv_r3);
            a = add3(a, scale3(d, tile[t].w * inv_r3));
        }
        __syncthreads();
    }
    if (i < n) {
        acc[i] = a;
    }
}

__global__ void integrate_kernel(float4* __restrict__ pos, float3* __restrict__ vel,
                                 const float3* __restrict__ acc, int n, float dt)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) {
        return;
    }
    const float3 v = add3(vel[i], scale3(acc[i], dt));
    vel[i] = v;
    const float4 p = pos[i];
    const float3 moved = add3(make_float3(p.x, p.y, p.z), scale3(v, dt));
    pos[i] = make_float4(moved.x, moved.y, moved.z, p.w);
}

}  // namespace

void compute_accelerations(const float4* pos, float3* acc, int n, cudaStream_t stream)
{
    const int blocks = (n + kForceBlock - 1) / kForceBlock;
    pairwise_forces<<<blocks, kForceBlock, 0, stream>>>(pos, acc, n);
    NBODY_CHECK(cudaGetLastError());
}

void integrate(float4* pos, float3* vel, const float3* acc, int n, float dt,
               cudaStream_t stream)
{
    const int block = 256;
    integrate_kernel<<<(n + block - 1) / block, block, 0, stream>>>(pos, vel, acc, n, dt);
    NBODY_CHECK(cudaGetLastError());
}

}  // namespace nbody

// forces.cuh - host entry points of the force kernels in src/forces.cu.
#pragma once

#include <cuda_runtime.h>

namespace nbody {

constexpr int kForceBlock = 128;

// acc[i] = sum over j of m_j * (p_j - p_i) / (|p_j - p_i|^2 + eps^2)^(3/2);
// pos[i].w holds the mass.
void compute_accelerations(const float4* pos, float3* acc, int n, cudaStream_t stream);
// vel += acc * dt, then pos += vel * dt (semi-implicit Euler).
void integrate(float4* pos, float3* vel, const float3* acc, int n, float dt,
               cudaStream_t stream);

}  // namespace nbody

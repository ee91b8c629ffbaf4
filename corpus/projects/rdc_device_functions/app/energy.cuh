// energy.cuh - kinetic energy on the device (app/energy.cu).
#pragma once

#include <cuda_runtime.h>

// Sum over bodies of 0.5 * m * |v|^2: per-block partial sums on the device,
// added up on the host in a fixed order.
double kinetic_energy(const float4* pos, const float3* vel, int n, cudaStream_t stream);

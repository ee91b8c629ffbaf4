// vec_math.cuh - float3 helpers, defined out of line in src/vec_math.cu.
//
// Only declarations here: every kernel that calls them lives in another
// translation unit, so the calls are resolved by the device linker.
#pragma once

#include <cuda_runtime.h>

namespace nbody {

__device__ float3 add3(float3 a, float3 b);
__device__ float3 sub3(float3 a, float3 b);
__device__ float3 scale3(float3 a, float s);
__device__ float dot3(float3 a, float3 b);
// b - a, and the inverse cube of the softened distance between them.
__device__ float3 displacement(float4 a, float4 b, float* inv_r3);

}  // namespace nbody

// vec_math.cu - out-of-line device functions, compiled with -rdc=true.
#include "nbody/softening.cuh"
#include "nbody/vec_math.cuh"

namespace nbody {

__device__ float3 add3(float3 a, float3 b)
{
    return make_float3(a.x + b.x, a.y + b.y, a.z + b.z);
}

__device__ float3 sub3(float3 a, float3 b)
{
    return make_float3(a.x - b.x, a.y - b.y, a.z - b.z);
}

__device__ float3 scale3(float3 a, float s)
{
    return make_float3(a.x * s, a.y * s, a.z * s);
}

__device__ float dot3(float3 a, float3 b)
{
    return a.x * b.x + a.y * b.y + a.z * b.z;
}

__device__ float3 displacement(float4 a, float4 b, float* inv_r3)
{
    const float3 d = sub3(make_float3(b.x, b.y, b.z), make_float3(a.x, a.y, a.z));
    const float r2 = dot3(d, d) + g_softening_sq;  // defined in softening.cu
    const float inv_r = rsqrtf(r2);
    *inv_r3 = inv_r * inv_r * inv_r;
    return d;
}

}  // namespace nbody

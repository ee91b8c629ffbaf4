// softening.cu - the one definition of g_softening_sq.
#include "nbody/check.cuh"
#include "nbody/softening.cuh"

namespace nbody {

__device__ float g_softening_sq = 0.0f;

float set_softening(float epsilon)
{
    const float value = epsilon * epsilon;
    NBODY_CHECK(cudaMemcpyToSymbol(g_softening_sq, &value, sizeof(value)));
    float readback = -1.0f;
    NBODY_CHECK(cudaMemcpyFromSymbol(&readback, g_softening_sq, sizeof(readback)));
    return readback;
}

}  // namespace nbody

// softening.cuh - the softening length squared, a __device__ variable that
// is defined in src/softening.cu and read from src/vec_math.cu.
#pragma once

#include <cuda_runtime.h>

namespace nbody {

extern __device__ float g_softening_sq;

// Sets g_softening_sq (cudaMemcpyToSymbol) and reads it back
// (cudaMemcpyFromSymbol); returns the value read back.
float set_softening(float epsilon);

}  // namespace nbody

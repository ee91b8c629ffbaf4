// check.cuh - CUDA runtime error checking for the nbody library and app.
#pragma once

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

namespace nbody {

inline void check_cuda(cudaError_t err, const char* what, const char* file, int line)
{
    if (err != cudaSuccess) {
        std::fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", file, line, what,
                     cudaGetErrorName(err), cudaGetErrorString(err));
        std::exit(EXIT_FAILURE);
    }
}

}  // namespace nbody

#define NBODY_CHECK(call) ::nbody::check_cuda((call), #call, __FILE__, __LINE__)

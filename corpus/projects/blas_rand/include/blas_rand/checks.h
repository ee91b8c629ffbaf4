// checks.h - error checking for the CUDA runtime and cuRAND.
//
// Every call returns a status; each library has its own macro because the
// status types differ (cudaError_t, curandStatus_t; cuBLAS: app/cublas_check.h).
#ifndef BLAS_RAND_CHECKS_H
#define BLAS_RAND_CHECKS_H

#include <cuda_runtime.h>
#include <curand.h>

#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call)                                                      \
    do {                                                                      \
        cudaError_t err_ = (call);                                            \
        if (err_ != cudaSuccess) {                                            \
            std::fprintf(stderr, "CUDA error %s at %s:%d (%s)\n",             \
                         cudaGetErrorString(err_), __FILE__, __LINE__,        \
                         #call);                                              \
            std::exit(EXIT_FAILURE);                                          \
        }                                                                     \
    } while (0)

#define CURAND_CHECK(call)                                                    \
    do {                                                                      \
        curandStatus_t status_ = (call);                                      \
        if (status_ != CURAND_STATUS_SUCCESS) {                               \
            std::fprintf(stderr, "cuRAND status %d at %s:%d (%s)\n",          \
                         static_cast<int>(status_), __FILE__, __LINE__,       \
                         #call);                                              \
            std::exit(EXIT_FAILURE);                                          \
        }                                                                     \
    } while (0)

#endif  // BLAS_RAND_CHECKS_H

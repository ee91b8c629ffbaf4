// util/check.h - error checking for the multi_file corpus program.
//
// Every runtime call goes through CHECK; a kernel launch is followed by
// CHECK(cudaGetLastError()).
#ifndef HIPPORT_CORPUS_MULTI_FILE_UTIL_CHECK_H
#define HIPPORT_CORPUS_MULTI_FILE_UTIL_CHECK_H

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#define CHECK(call)                                                          \
    do {                                                                     \
        cudaError_t check_err_ = (call);                                     \
        if (check_err_ != cudaSuccess) {                                     \
            std::fprintf(stderr, "CUDA error at %s:%d: %s (%s)\n", __FILE__, \
                         __LINE__, cudaGetErrorString(check_err_), #call);   \
            std::exit(EXIT_FAILURE);                                         \
        }                                                                    \
    } while (0)

#endif  // HIPPORT_CORPUS_MULTI_FILE_UTIL_CHECK_H

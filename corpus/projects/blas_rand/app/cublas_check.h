// cublas_check.h - error checking for cuBLAS calls (only the app uses cuBLAS).
#ifndef BLAS_RAND_APP_CUBLAS_CHECK_H
#define BLAS_RAND_APP_CUBLAS_CHECK_H

#include <cublas_v2.h>

#include <cstdio>
#include <cstdlib>

#define CUBLAS_CHECK(call)                                                    \
    do {                                                                      \
        cublasStatus_t status_ = (call);                                      \
        if (status_ != CUBLAS_STATUS_SUCCESS) {                               \
            std::fprintf(stderr, "cuBLAS status %d at %s:%d (%s)\n",          \
                         static_cast<int>(status_), __FILE__, __LINE__,       \
                         #call);                                              \
            std::exit(EXIT_FAILURE);                                          \
        }                                                                     \
    } while (0)

#endif  // BLAS_RAND_APP_CUBLAS_CHECK_H

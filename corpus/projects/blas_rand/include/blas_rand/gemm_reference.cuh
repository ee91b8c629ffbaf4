// gemm_reference.cuh - a plain tiled SGEMM used to cross-check cuBLAS.
#ifndef BLAS_RAND_GEMM_REFERENCE_CUH
#define BLAS_RAND_GEMM_REFERENCE_CUH

#include <cuda_runtime.h>

namespace blas_rand {

constexpr int kGemmTile = 16;

// C = alpha * A * B^T + beta * C, all column-major as in BLAS:
// A is m x k (lda >= m), B is n x k (ldb >= n), C is m x n (ldc >= m).
// With beta == 0, C is not read (it may hold garbage).
void reference_sgemm_nt(int m, int n, int k, float alpha, const float* A,
                        int lda, const float* B, int ldb, float beta, float* C,
                        int ldc, cudaStream_t stream);

}  // namespace blas_rand

#endif  // BLAS_RAND_GEMM_REFERENCE_CUH

// gemm_reference.cu - the tiled reference kernel behind reference_sgemm_nt.
#include "blas_rand/gemm_reference.cuh"
#include "blas_rand/checks.h"

namespace blas_rand {
namespace {

// One thread per element of C. threadIdx.x walks rows, so loads of A and
// stores of C are contiguous in column-major storage. The shared tiles are
// padded by one column against bank conflicts.
template <int Tile>
__global__ void sgemm_nt_tiled(int m, int n, int k, float alpha,
                               const float* __restrict__ A, int lda,
                               const float* __restrict__ B, int ldb,
                               float beta, float* __restrict__ C, int ldc)
{
    __shared__ float a_tile[Tile][Tile + 1];  // [kk][row]
    __shared__ float b_tile[Tile][Tile + 1];  // [kk][col]

    const int row = blockIdx.x * Tile + threadIdx.x;
    const int col = blockIdx.y * Tile + threadIdx.y;
    const int b_row = blockIdx.y * Tile + threadIdx.x;  // row of B (= col of C)

    float acc = 0.0f;
    for (int k0 = 0; k0 < k; k0 += Tile) {
        const int kk = k0 + threadIdx.y;
        a_tile[threadIdx.y][threadIdx.x] =
            (row < m && kk < k) ? A[row + static_cast<size_t>(kk) * lda] : 0.0f;
        b_tile[threadIdx.y][threadIdx.x] =
            (b_row < n && kk < k) ? B[b_row + static_cast<size_t>(kk) * ldb] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int t = 0; t < Tile; ++t) {
            acc += a_tile[t][threadIdx.x] * b_tile[t][threadIdx.y];
        }
        __syncthreads();
    }

    if (row < m && col < n) {
        float* c = C + row + static_cast<size_t>(col) * ldc;
        *c = (beta == 0.0f) ? alpha * acc : alpha * acc + beta * *c;
    }
}

}  // namespace

void reference_sgemm_nt(int m, int n, int k, float alpha, const float* A,
                        int lda, const float* B, int ldb, float beta, float* C,
                        int ldc, cudaStream_t stream)
{
    const dim3 block(kGemmTile, kGemmTile);
    const dim3 grid((m + kGemmTile - 1) / kGemmTile,
                    (n + kGemmTile - 1) / kGemmTile);
    sgemm_nt_tiled<kGemmTile><<<grid, block, 0, stream>>>(
        m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
    CUDA_CHECK(cudaGetLastError());
}

}  // namespace blas_rand

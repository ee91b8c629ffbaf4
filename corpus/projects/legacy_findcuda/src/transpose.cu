// transpose.cu - naive and shared-memory tiled matrix transpose.
#include "gpu_timer.h"
#include "transpose.h"

#define TILE_DIM 32
#define BLOCK_ROWS 8

__global__ void transpose_naive_kernel(const float* in, float* out, int rows, int cols)
{
    int c = blockIdx.x * TILE_DIM + threadIdx.x;
    int r = blockIdx.y * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
        if (c < cols && r + j < rows) {
            out[c * rows + (r + j)] = in[(r + j) * cols + c];
        }
    }
}

// The tile is padded by one column so that the column reads of the write
// phase hit 32 different shared-memory banks.
__global__ void transpose_tiled_kernel(const float* in, float* out, int rows, int cols)
{
    __shared__ float tile[TILE_DIM][TILE_DIM + 1];
    int c = blockIdx.x * TILE_DIM + threadIdx.x;
    int r = blockIdx.y * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
        if (c < cols && r + j < rows) {
            tile[threadIdx.y + j][threadIdx.x] = in[(r + j) * cols + c];
        }
    }
    __syncthreads();
    // Swap the block indices: this block writes the transposed tile.
    c = blockIdx.y * TILE_DIM + threadIdx.x;  // column of out = row of in
    r = blockIdx.x * TILE_DIM + threadIdx.y;  // row of out = column of in
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
        if (c < rows && r + j < cols) {
            out[(r + j) * rows + c] = tile[threadIdx.x][threadIdx.y + j];
        }
    }
}

static dim3 transpose_grid(int rows, int cols)
{
    return dim3((cols + TILE_DIM - 1) / TILE_DIM, (rows + TILE_DIM - 1) / TILE_DIM, 1);
}

void transpose_naive(const float* in, float* out, int rows, int cols, cudaStream_t stream)
{
    dim3 block(TILE_DIM, BLOCK_ROWS, 1);
    transpose_naive_kernel<<<transpose_grid(rows, cols), block, 0, stream>>>(in, out, rows, cols);
    LEGACY_CHECK(cudaGetLastError());
}

void transpose_tiled(const float* in, float* out, int rows, int cols, cudaStream_t stream)
{
    dim3 block(TILE_DIM, BLOCK_ROWS, 1);
    transpose_tiled_kernel<<<transpose_grid(rows, cols), block, 0, stream>>>(in, out, rows, cols);
    LEGACY_CHECK(cudaGetLastError());
}

KernelReport describe_transpose_tiled()
{
    KernelReport report;
    cudaFuncAttributes attr;
    LEGACY_CHECK(cudaFuncGetAttributes(&attr, transpose_tiled_kernel));
    report.max_threads_per_block = attr.maxThreadsPerBlock;
    report.static_shared_bytes = static_cast<int>(attr.sharedSizeBytes);
    LEGACY_CHECK(cudaOccupancyMaxPotentialBlockSize(&report.min_grid_for_full_occupancy,
                                                    &report.suggested_block_size,
                                                    transpose_tiled_kernel, 0, 0));
    LEGACY_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &report.resident_blocks_per_sm, transpose_tiled_kernel, TILE_DIM * BLOCK_ROWS, 0));
    return report;
}

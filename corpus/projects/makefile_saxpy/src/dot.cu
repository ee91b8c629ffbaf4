// dot.cu - dot product partials with dynamic shared memory.
#include "check.cuh"
#include "kernels.h"

__global__ void dot_kernel(int n, const float* __restrict__ x, const float* __restrict__ y,
                           double* __restrict__ partials)
{
    extern __shared__ double cache[];
    double sum = 0.0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        sum += static_cast<double>(x[i]) * y[i];
    }
    cache[threadIdx.x] = sum;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) {
            cache[threadIdx.x] += cache[threadIdx.x + s];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = cache[0];
    }
}

int dot_partials(int n, const float* x, const float* y, double* partials, int max_partials,
                 int sm_count)
{
    const int block = 512;
    int blocks = grid_stride_blocks(n, block, sm_count);
    blocks = blocks < max_partials ? blocks : max_partials;
    dot_kernel<<<blocks, block, block * sizeof(double)>>>(n, x, y, partials);
    checkCudaErrors(cudaGetLastError());
    return blocks;
}

// saxpy.cu
#include "check.cuh"
#include "kernels.h"

__global__ void saxpy_kernel(int n, float a, const float* __restrict__ x, float* __restrict__ y)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        y[i] = a * x[i] + y[i];
    }
}

void saxpy(int n, float a, const float* x, float* y, int sm_count)
{
    const int block = 256;
    saxpy_kernel<<<grid_stride_blocks(n, block, sm_count), block>>>(n, a, x, y);
    checkCudaErrors(cudaGetLastError());
}

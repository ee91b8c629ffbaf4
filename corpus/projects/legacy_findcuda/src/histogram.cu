// histogram.cu - byte histogram with per-block shared-memory bins.
#include "gpu_timer.h"
#include "transpose.h"

#define HIST_BINS 256
#define HIST_THREADS 256

__global__ void histogram256_kernel(const unsigned char* data, int n, unsigned int* bins)
{
    __shared__ unsigned int local[HIST_BINS];
    local[threadIdx.x] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        atomicAdd(&local[data[i]], 1u);
    }
    __syncthreads();
    if (local[threadIdx.x] != 0) {
        atomicAdd(&bins[threadIdx.x], local[threadIdx.x]);
    }
}

void histogram256(const unsigned char* data, int n, unsigned int* bins, cudaStream_t stream)
{
    cudaDeviceProp prop;
    int device;
    LEGACY_CHECK(cudaGetDevice(&device));
    LEGACY_CHECK(cudaGetDeviceProperties(&prop, device));
    const int blocks = prop.multiProcessorCount * 2;
    histogram256_kernel<<<blocks, HIST_THREADS, 0, stream>>>(data, n, bins);
    LEGACY_CHECK(cudaGetLastError());
}

// check.cuh - error checking and a grid-size helper.
#pragma once

#include <cstdio>
#include <cstdlib>

#define checkCudaErrors(val) check_result((val), #val, __FILE__, __LINE__)

template <typename T>
void check_result(T result, const char* func, const char* file, int line)
{
    if (result) {
        std::fprintf(stderr, "CUDA error at %s:%d code=%d(%s) \"%s\"\n", file, line,
                     static_cast<unsigned int>(result), cudaGetErrorName(result), func);
        std::exit(EXIT_FAILURE);
    }
}

// Blocks for a grid-stride loop: enough to fill the GPU, no more than needed.
inline int grid_stride_blocks(int n, int block, int sm_count)
{
    const int needed = (n + block - 1) / block;
    const int full = sm_count * 8;
    return needed < full ? needed : full;
}

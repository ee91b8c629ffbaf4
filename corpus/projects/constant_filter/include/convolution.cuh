// convolution.cuh - the device-side filter (src/convolution.cu).
#ifndef CONSTANT_FILTER_CONVOLUTION_CUH
#define CONSTANT_FILTER_CONVOLUTION_CUH

#include "filter_params.h"

#include <cuda_runtime.h>

#include <vector>

namespace cfilter {

// Copies the weights and parameters into constant memory; the weights go in
// with cudaMemcpyToSymbolAsync on `stream`, the parameters synchronously.
void upload_filter(const std::vector<float>& weights, const FilterParams& params,
                   cudaStream_t stream);
// Reads the constant memory back (cudaMemcpyFromSymbol) for verification.
void download_filter(std::vector<float>& weights, FilterParams& params);

// Horizontal pass, then vertical pass (tmp holds the intermediate image).
void launch_row_pass(const float* src, float* dst, cudaStream_t stream);
void launch_column_pass(const float* src, float* dst, cudaStream_t stream);

// The dim3 shapes used, for reporting.
dim3 row_block();
dim3 column_block();

}  // namespace cfilter

#endif

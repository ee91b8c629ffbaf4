// error.h - the pipeline's error check (throws, so destructors still run).
#pragma once

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace pipeline {

class CudaError : public std::runtime_error {
public:
    CudaError(cudaError_t code, const char* call, const char* file, int line)
        : std::runtime_error(std::string(file) + ":" + std::to_string(line) + ": " + call +
                             ": " + cudaGetErrorString(code)),
          code_(code) {}
    cudaError_t code() const { return code_; }

private:
    cudaError_t code_;
};

}  // namespace pipeline

#define PIPE_CHECK(call)                                                  \
    do {                                                                  \
        const cudaError_t pipe_status = (call);                           \
        if (pipe_status != cudaSuccess) {                                 \
            throw ::pipeline::CudaError(pipe_status, #call, __FILE__, __LINE__); \
        }                                                                 \
    } while (0)

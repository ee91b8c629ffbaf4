// pipeline.h - runs H2D copy, two kernels and D2H copy per chunk, with the
// chunks spread round-robin over PIPELINE_STREAMS streams.
#pragma once

#include <cuda_runtime.h>

#include <atomic>
#include <vector>

#ifndef PIPELINE_STREAMS
#define PIPELINE_STREAMS 4
#endif

namespace pipeline {

struct Result {
    unsigned int clamped = 0;      // values clamped in all chunks
    int chunks_done = 0;           // counted by the host callback
    bool streams_idle = false;     // cudaStreamQuery == cudaSuccess afterwards
};

class Pipeline {
public:
    Pipeline(int n, int chunk);
    ~Pipeline();
    Pipeline(const Pipeline&) = delete;
    Pipeline& operator=(const Pipeline&) = delete;

    float* host_input() { return h_in_; }
    const float* host_output() const { return h_out_; }
    // Runs the whole pipeline once; returns when every stream is done.
    Result run(const std::vector<float>& coeffs, float lo, float hi);
    // Median time of the polynomial kernel on one chunk (100 launches).
    double time_polynomial_ms();

private:
    static void CUDART_CB on_chunk_done(void* user);

    int n_, chunk_;
    float *h_in_ = nullptr, *h_out_ = nullptr;  // pinned
    float *d_in_ = nullptr, *d_out_ = nullptr, *d_coeffs_ = nullptr;
    unsigned int* d_clamped_ = nullptr;
    cudaStream_t streams_[PIPELINE_STREAMS] = {};
    cudaEvent_t coeffs_ready_ = nullptr;
    cudaEvent_t chunk_done_[PIPELINE_STREAMS] = {};
    std::atomic<int> chunks_done_{0};
};

}  // namespace pipeline

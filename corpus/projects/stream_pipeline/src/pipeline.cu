// pipeline.cu - streams, events, pinned buffers and the host callback.
#include "pipeline/error.h"
#include "pipeline/kernels.cuh"
#include "pipeline/pipeline.h"

#include <algorithm>
#include <cstdio>

namespace pipeline {

Pipeline::Pipeline(int n, int chunk) : n_(n), chunk_(chunk)
{
    const size_t bytes = static_cast<size_t>(n) * sizeof(float);
    PIPE_CHECK(cudaMallocHost(&h_in_, bytes));
    PIPE_CHECK(cudaHostAlloc(&h_out_, bytes, cudaHostAllocDefault));
    PIPE_CHECK(cudaMalloc(&d_in_, bytes));
    PIPE_CHECK(cudaMalloc(&d_out_, bytes));
    PIPE_CHECK(cudaMalloc(&d_coeffs_, (kPolyDegree + 1) * sizeof(float)));
    PIPE_CHECK(cudaMalloc(&d_clamped_, sizeof(unsigned int)));

    // Stream 0 gets the highest priority: it carries the shared set-up and
    // the final gather.
    int least = 0, greatest = 0;
    PIPE_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    PIPE_CHECK(cudaStreamCreateWithPriority(&streams_[0], cudaStreamNonBlocking, greatest));
    for (int s = 1; s < PIPELINE_STREAMS; ++s) {
        PIPE_CHECK(cudaStreamCreateWithFlags(&streams_[s], cudaStreamNonBlocking));
    }
    // Dependency-only events: no timestamps needed.
    PIPE_CHECK(cudaEventCreateWithFlags(&coeffs_ready_, cudaEventDisableTiming));
    for (int s = 0; s < PIPELINE_STREAMS; ++s) {
        PIPE_CHECK(cudaEventCreate(&chunk_done_[s], cudaEventDisableTiming));
    }
}

Pipeline::~Pipeline()
{
    // Best effort: no checks in a destructor.
    for (int s = 0; s < PIPELINE_STREAMS; ++s) {
        cudaEventDestroy(chunk_done_[s]);
        cudaStreamDestroy(streams_[s]);
    }
    cudaEventDestroy(coeffs_ready_);
    cudaFree(d_in_);
    cudaFree(d_out_);
    cudaFree(d_coeffs_);
    cudaFree(d_clamped_);
    cudaFreeHost(h_in_);
    cudaFreeHost(h_out_);
}

void CUDART_CB Pipeline::on_chunk_done(void* user)
{
    // Host callbacks must not call the CUDA API; counting is fine.
    static_cast<Pipeline*>(user)->chunks_done_.fetch_add(1, std::memory_order_relaxed);
}

Result Pipeline::run(const std::vector<float>& coeffs, float lo, float hi)
{
    chunks_done_ = 0;
    cudaStream_t first = streams_[0];
    PIPE_CHECK(cudaMemcpyAsync(d_coeffs_, coeffs.data(), coeffs.size() * sizeof(float),
                               cudaMemcpyHostToDevice, first));
    PIPE_CHECK(cudaMemsetAsync(d_clamped_, 0, sizeof(unsigned int), first));
    PIPE_CHECK(cudaEventRecord(coeffs_ready_, first));
    for (int s = 1; s < PIPELINE_STREAMS; ++s) {
        PIPE_CHECK(cudaStreamWaitEvent(streams_[s], coeffs_ready_, 0));
    }

    const int chunks = (n_ + chunk_ - 1) / chunk_;
    for (int c = 0; c < chunks; ++c) {
        cudaStream_t s = streams_[c % PIPELINE_STREAMS];
        const int offset = c * chunk_;
        const int count = std::min(chunk_, n_ - offset);
        const size_t bytes = static_cast<size_t>(count) * sizeof(float);
        PIPE_CHECK(cudaMemcpyAsync(d_in_ + offset, h_in_ + offset, bytes, cudaMemcpyHostToDevice, s));
        launch_polynomial(d_in_ + offset, d_out_ + offset, count, d_coeffs_, s);
        launch_clamp_count(d_out_ + offset, count, lo, hi, d_clamped_, s);
        PIPE_CHECK(cudaMemcpyAsync(h_out_ + offset, d_out_ + offset, bytes, cudaMemcpyDeviceToHost, s));
        PIPE_CHECK(cudaLaunchHostFunc(s, on_chunk_done, this));
    }

    // Gather: the first stream waits for every other stream's last chunk.
    for (int s = 0; s < PIPELINE_STREAMS; ++s) {
        PIPE_CHECK(cudaEventRecord(chunk_done_[s], streams_[s]));
        PIPE_CHECK(cudaStreamWaitEvent(first, chunk_done_[s], 0));
    }
    unsigned int* h_clamped = nullptr;
    PIPE_CHECK(cudaMallocHost(&h_clamped, sizeof(unsigned int)));
    PIPE_CHECK(cudaMemcpyAsync(h_clamped, d_clamped_, sizeof(unsigned int), cudaMemcpyDeviceToHost, first));
    PIPE_CHECK(cudaStreamSynchronize(first));

    Result result;
    result.clamped = *h_clamped;
    PIPE_CHECK(cudaFreeHost(h_clamped));
    result.chunks_done = chunks_done_.load();
    result.streams_idle = true;
    for (int s = 0; s < PIPELINE_STREAMS; ++s) {
        result.streams_idle = result.streams_idle && cudaStreamQuery(streams_[s]) == cudaSuccess &&
                              cudaEventQuery(chunk_done_[s]) == cudaSuccess;
    }
    return result;
}

double Pipeline::time_polynomial_ms()
{
    cudaEvent_t start, stop;
    PIPE_CHECK(cudaEventCreateWithFlags(&start, cudaEventDefault));
    PIPE_CHECK(cudaEventCreateWithFlags(&stop, cudaEventBlockingSync));
    cudaStream_t s = streams_[0];
    for (int i = 0; i < 10; ++i) {
        launch_polynomial(d_in_, d_out_, chunk_, d_coeffs_, s);
    }
    PIPE_CHECK(cudaStreamSynchronize(s));
    std::vector<float> times(100);
    for (float& t : times) {
        PIPE_CHECK(cudaEventRecord(start, s));
        launch_polynomial(d_in_, d_out_, chunk_, d_coeffs_, s);
        PIPE_CHECK(cudaEventRecord(stop, s));
        PIPE_CHECK(cudaEventSynchronize(stop));
        PIPE_CHECK(cudaEventElapsedTime(&t, start, stop));
    }
    PIPE_CHECK(cudaEventDestroy(start));
    PIPE_CHECK(cudaEventDestroy(stop));
    std::sort(times.begin(), times.end());
    return 0.5 * (static_cast<double>(times[49]) + times[50]);
}

}  // namespace pipeline

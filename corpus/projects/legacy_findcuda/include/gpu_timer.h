/* gpu_timer.h - event-based timing (src/timing.cu). */
#ifndef LEGACY_GPU_TIMER_H
#define LEGACY_GPU_TIMER_H

#include <cuda_runtime.h>

class GpuTimer {
public:
    explicit GpuTimer(cudaStream_t stream = 0);
    ~GpuTimer();
    void start();
    void stop();
    float elapsed_ms();

private:
    GpuTimer(const GpuTimer&);
    GpuTimer& operator=(const GpuTimer&);
    cudaStream_t stream_;
    cudaEvent_t start_;
    cudaEvent_t stop_;
};

/* Median of 100 timed calls of launch(ctx) after 10 warm-up calls. */
double median_launch_ms(void (*launch)(void*), void* ctx, cudaStream_t stream);

/* Exits with a message when err is not cudaSuccess. */
void legacy_check(cudaError_t err, const char* what, const char* file, int line);
#define LEGACY_CHECK(x) legacy_check((x), #x, __FILE__, __LINE__)

#endif

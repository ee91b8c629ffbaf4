// timing.cu - host code in a .cu file: FindCUDA compiles it with nvcc.
#include "gpu_timer.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

void legacy_check(cudaError_t err, const char* what, const char* file, int line)
{
    if (err != cudaSuccess) {
        fprintf(stderr, "%s:%d: %s returned %d (%s)\n", file, line, what, static_cast<int>(err),
                cudaGetErrorString(err));
        exit(EXIT_FAILURE);
    }
}

GpuTimer::GpuTimer(cudaStream_t stream) : stream_(stream)
{
    LEGACY_CHECK(cudaEventCreate(&start_));
    LEGACY_CHECK(cudaEventCreate(&stop_));
}

GpuTimer::~GpuTimer()
{
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
}

void GpuTimer::start() { LEGACY_CHECK(cudaEventRecord(start_, stream_)); }

void GpuTimer::stop() { LEGACY_CHECK(cudaEventRecord(stop_, stream_)); }

float GpuTimer::elapsed_ms()
{
    float ms = 0.0f;
    LEGACY_CHECK(cudaEventSynchronize(stop_));
    LEGACY_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
    return ms;
}

double median_launch_ms(void (*launch)(void*), void* ctx, cudaStream_t stream)
{
    for (int i = 0; i < 10; ++i) {
        launch(ctx);
    }
    LEGACY_CHECK(cudaStreamSynchronize(stream));
    GpuTimer timer(stream);
    std::vector<float> times;
    for (int i = 0; i < 100; ++i) {
        timer.start();
        launch(ctx);
        timer.stop();
        times.push_back(timer.elapsed_ms());
    }
    std::sort(times.begin(), times.end());
    return 0.5 * (static_cast<double>(times[49]) + static_cast<double>(times[50]));
}

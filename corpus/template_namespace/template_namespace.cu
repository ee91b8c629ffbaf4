// template_namespace.cu - templated kernels inside a namespace.
//
// Part of the hipport test corpus. Exercises, for a porting tool:
//   * a kernel template in a namespace launched with a qualified name and
//     explicit template arguments: linalg::scale_add<float, 16><<<...>>>
//   * launch configurations and kernel arguments that contain nested commas
//     (dim3(gx, gy), std::min(a, b), linalg::make_params(alpha, beta))
//   * a 4-argument <<<grid, block, shared, stream>>> and a 3-argument
//     <<<grid, block, sharedBytes>>> launch with extern __shared__ memory
//   * 2-D pitched device memory (cudaMallocPitch + cudaMemcpy2D)

#include <cuda_runtime.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#define CHECK(call)                                                          \
    do {                                                                     \
        cudaError_t check_err_ = (call);                                     \
        if (check_err_ != cudaSuccess) {                                     \
            std::fprintf(stderr, "CUDA error at %s:%d: %s (%s)\n", __FILE__, \
                         __LINE__, cudaGetErrorString(check_err_), #call);   \
            std::exit(EXIT_FAILURE);                                         \
        }                                                                    \
    } while (0)

namespace linalg {

struct ScaleParams {
    float alpha;
    float beta;
};

inline ScaleParams make_params(float alpha, float beta)
{
    ScaleParams p;
    p.alpha = alpha;
    p.beta = beta;
    return p;
}

template <typename T>
__host__ __device__ inline T* row_ptr(T* base, size_t pitch_bytes, int row)
{
    return reinterpret_cast<T*>(reinterpret_cast<char*>(base) +
                                static_cast<size_t>(row) * pitch_bytes);
}

template <typename T>
__host__ __device__ inline const T* row_ptr(const T* base, size_t pitch_bytes,
                                            int row)
{
    return reinterpret_cast<const T*>(reinterpret_cast<const char*>(base) +
                                      static_cast<size_t>(row) * pitch_bytes);
}

// z = alpha * x + beta * y on pitched 2-D arrays, one TILE x TILE tile per
// block. Out of place, so relaunching it recomputes the same z.
template <typename T, int TILE>
__global__ void scale_add(const T* x, size_t x_pitch, const T* y,
                          size_t y_pitch, T* z, size_t z_pitch, int width,
                          int height, ScaleParams p)
{
    const int col = blockIdx.x * TILE + threadIdx.x;
    const int row = blockIdx.y * TILE + threadIdx.y;
    if (col < width && row < height) {
        const T xv = row_ptr(x, x_pitch, row)[col];
        const T yv = row_ptr(y, y_pitch, row)[col];
        row_ptr(z, z_pitch, row)[col] =
            static_cast<T>(p.alpha) * xv + static_cast<T>(p.beta) * yv;
    }
}

// One block per row; the block size is a runtime power of two and the
// scratch space comes from dynamic shared memory.
template <typename T>
__global__ void row_sums(const T* m, size_t pitch, int width, T* out)
{
    extern __shared__ unsigned char row_sums_smem[];
    T* scratch = reinterpret_cast<T*>(row_sums_smem);

    const int row = blockIdx.x;
    const T* r = row_ptr(m, pitch, row);
    T acc = T(0);
    for (int c = threadIdx.x; c < width; c += blockDim.x) {
        acc += r[c];
    }
    scratch[threadIdx.x] = acc;
    __syncthreads();
    for (unsigned int stride = blockDim.x / 2; stride > 0u; stride /= 2u) {
        if (threadIdx.x < stride) {
            scratch[threadIdx.x] += scratch[threadIdx.x + stride];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        out[row] = scratch[0];
    }
}

}  // namespace linalg

constexpr int kTile = 16;
constexpr int kMaxCols = 1000;

int main()
{
    const int requested_cols = 1013;  // clipped to kMaxCols by std::min
    const int width = std::min(requested_cols, kMaxCols);
    const int height = 700;
    const float alpha = 1.5f;
    const float beta = -0.25f;
    const size_t row_bytes = static_cast<size_t>(width) * sizeof(float);
    const size_t count = static_cast<size_t>(width) * height;
    std::printf("[template_namespace] %d x %d matrix, tile %d\n", height,
                width, kTile);

    std::mt19937 rng(4242u);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    std::vector<float> h_x(count), h_y(count), h_z(count, 0.0f);
    for (size_t i = 0; i < count; ++i) {
        h_x[i] = dist(rng);
        h_y[i] = dist(rng);
    }

    // cudaMallocPitch pads every row; the pitch is in bytes.
    float* d_x = nullptr;
    float* d_y = nullptr;
    float* d_z = nullptr;
    size_t pitch_x = 0, pitch_y = 0, pitch_z = 0;
    CHECK(cudaMallocPitch(reinterpret_cast<void**>(&d_x), &pitch_x, row_bytes,
                          height));
    CHECK(cudaMallocPitch(reinterpret_cast<void**>(&d_y), &pitch_y, row_bytes,
                          height));
    CHECK(cudaMallocPitch(reinterpret_cast<void**>(&d_z), &pitch_z, row_bytes,
                          height));
    CHECK(cudaMemcpy2D(d_x, pitch_x, h_x.data(), row_bytes, row_bytes, height,
                       cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy2D(d_y, pitch_y, h_y.data(), row_bytes, row_bytes, height,
                       cudaMemcpyHostToDevice));
    CHECK(cudaMemset2D(d_z, pitch_z, 0, row_bytes, height));

    float* d_rows = nullptr;
    CHECK(cudaMalloc(&d_rows, static_cast<size_t>(height) * sizeof(float)));

    cudaStream_t stream;
    CHECK(cudaStreamCreate(&stream));

    const int gx = (width + kTile - 1) / kTile;
    const int gy = (height + kTile - 1) / kTile;
    auto launch_cuda_scale_add = [&]() {
        linalg::scale_add<float, 16><<<dim3(gx, gy), dim3(16, 16), 0, stream>>>(
            d_x, pitch_x, d_y, pitch_y, d_z, pitch_z,
            std::min(width, kMaxCols), height,
            linalg::make_params(alpha, beta));
        CHECK(cudaGetLastError());
    };

    launch_cuda_scale_add();
    CHECK(cudaStreamSynchronize(stream));

    // Row sums of z: 3-argument configuration with dynamic shared memory.
    const int sum_block = 128;
    const size_t sharedBytes = sum_block * sizeof(float);
    dim3 sum_grid(height);
    dim3 sum_block_dim(sum_block);
    linalg::row_sums<float><<<sum_grid, sum_block_dim, sharedBytes>>>(
        d_z, pitch_z, width, d_rows);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());

    CHECK(cudaMemcpy2D(h_z.data(), row_bytes, d_z, pitch_z, row_bytes, height,
                       cudaMemcpyDeviceToHost));
    std::vector<float> h_rows(height, 0.0f);
    CHECK(cudaMemcpy(h_rows.data(), d_rows,
                     static_cast<size_t>(height) * sizeof(float),
                     cudaMemcpyDeviceToHost));

    // Element check: tolerance 1e-5 relative (FMA contraction may differ by
    // an ulp). Row-sum check: 1e-3 relative, for a different summation order.
    const float elem_tol = 1e-5f;
    const double row_tol = 1e-3;
    int bad_elems = 0;
    int bad_rows = 0;
    for (int r = 0; r < height; ++r) {
        double ref_row = 0.0;
        for (int c = 0; c < width; ++c) {
            const size_t i = static_cast<size_t>(r) * width + c;
            const float ref = alpha * h_x[i] + beta * h_y[i];
            ref_row += static_cast<double>(ref);
            if (std::fabs(h_z[i] - ref) > elem_tol * (1.0f + std::fabs(ref))) {
                if (bad_elems < 10) {
                    std::fprintf(stderr, "z[%d][%d]: got %f expected %f\n", r,
                                 c, h_z[i], ref);
                }
                ++bad_elems;
            }
        }
        if (std::fabs(static_cast<double>(h_rows[r]) - ref_row) >
            row_tol * (1.0 + std::fabs(ref_row))) {
            if (bad_rows < 10) {
                std::fprintf(stderr, "row %d sum: got %f expected %f\n", r,
                             static_cast<double>(h_rows[r]), ref_row);
            }
            ++bad_rows;
        }
    }
    std::printf("[template_namespace] %d bad elements (tol %g), %d bad row "
                "sums (tol %g)\n", bad_elems, elem_tol, bad_rows, row_tol);
    const bool ok = (bad_elems == 0 && bad_rows == 0);

    if (ok) {
        // Time scale_add: 10 warm-up launches, 100 timed one by one. It is out
        // of place, so d_z keeps the same values; h_z was already checked.
        cudaEvent_t start, stop;
        CHECK(cudaEventCreate(&start));
        CHECK(cudaEventCreate(&stop));
        for (int i = 0; i < 10; ++i) {
            launch_cuda_scale_add();
        }
        CHECK(cudaStreamSynchronize(stream));
        const int timed = 100;
        std::vector<float> times(timed);
        for (int i = 0; i < timed; ++i) {
            CHECK(cudaEventRecord(start, stream));
            launch_cuda_scale_add();
            CHECK(cudaEventRecord(stop, stream));
            CHECK(cudaEventSynchronize(stop));
            CHECK(cudaEventElapsedTime(&times[i], start, stop));
        }
        std::sort(times.begin(), times.end());
        double median = 0.5 * (static_cast<double>(times[timed / 2 - 1]) +
                               static_cast<double>(times[timed / 2]));
        std::printf("kernel_median_ms scale_add %.6f\n", median);
        CHECK(cudaEventDestroy(start));
        CHECK(cudaEventDestroy(stop));
    }

    CHECK(cudaStreamDestroy(stream));
    CHECK(cudaFree(d_x));
    CHECK(cudaFree(d_y));
    CHECK(cudaFree(d_z));
    if (cudaFree(d_rows) != cudaSuccess) {
        std::fprintf(stderr, "cudaFree failed for the row sums\n");
        return 1;
    }

    if (!ok) {
        std::printf("Test FAILED\n");
        return 1;
    }
    std::printf("Test PASSED\n");
    return 0;
}

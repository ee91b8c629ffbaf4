// transform_reduce.cu - the host side of transform_reduce and its explicit
// instantiations.
#include "tlib/device_vector.h"
#include "tlib/transform_reduce.cuh"

#include <algorithm>

namespace tlib {

template <typename T, typename Transform, typename Reduce>
T transform_reduce(const T* d_in, int n, Transform op, Reduce red, cudaStream_t stream)
{
    using C = ReduceConfig;
    constexpr int per_block = C::kBlockSize * C::kItemsPerThread;
    const int blocks = std::max(1, std::min(C::kMaxBlocks, (n + per_block - 1) / per_block));
    device_vector<T> partial(blocks);
    device_vector<T> result(1);
    transform_reduce_kernel<T, C::kBlockSize, C::kItemsPerThread>
        <<<blocks, C::kBlockSize, 0, stream>>>(d_in, n, op, red, partial.data());
    TLIB_CHECK(cudaGetLastError());
    // Second pass: the partials are already transformed, so only reduce.
    transform_reduce_kernel<T, C::kBlockSize, 1>
        <<<1, C::kBlockSize, 0, stream>>>(partial.data(), blocks, Identity{}, red,
                                          result.data());
    TLIB_CHECK(cudaGetLastError());
    T value{};
    TLIB_CHECK(cudaMemcpyAsync(&value, result.data(), sizeof(T), cudaMemcpyDeviceToHost, stream));
    TLIB_CHECK(cudaStreamSynchronize(stream));
    return value;
}

// The combinations the library ships.
template float transform_reduce<float, Square, Plus>(const float*, int, Square, Plus, cudaStream_t);
template float transform_reduce<float, Absolute, Maximum>(const float*, int, Absolute, Maximum, cudaStream_t);
template double transform_reduce<double, Square, Plus>(const double*, int, Square, Plus, cudaStream_t);
template double transform_reduce<double, Identity, Plus>(const double*, int, Identity, Plus, cudaStream_t);
template int transform_reduce<int, Identity, Plus>(const int*, int, Identity, Plus, cudaStream_t);
template int transform_reduce<int, Absolute, Maximum>(const int*, int, Absolute, Maximum, cudaStream_t);

}  // namespace tlib

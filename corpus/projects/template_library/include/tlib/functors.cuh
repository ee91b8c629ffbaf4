// functors.cuh - element functors and reduction operators of tlib.
//
// Every functor is a plain struct with a __host__ __device__ call operator,
// so the same object can run in a kernel and in the host reference.
#pragma once

#include <cuda_runtime.h>

namespace tlib {

struct Identity {
    template <typename T>
    __host__ __device__ T operator()(T x) const { return x; }
};

struct Square {
    template <typename T>
    __host__ __device__ T operator()(T x) const { return x * x; }
};

struct Absolute {
    template <typename T>
    __host__ __device__ T operator()(T x) const { return x < T(0) ? -x : x; }
};

struct Plus {
    template <typename T>
    __host__ __device__ T operator()(T a, T b) const { return a + b; }
    template <typename T>
    __host__ __device__ static constexpr T identity() { return T(0); }
};

struct Maximum {
    template <typename T>
    __host__ __device__ T operator()(T a, T b) const { return a < b ? b : a; }
    template <typename T>
    __host__ __device__ static constexpr T identity();
};

// Smallest value of each supported type, for Maximum::identity.
template <typename T>
struct numeric_limits_lite;
template <>
struct numeric_limits_lite<int> {
    __host__ __device__ static constexpr int lowest() { return -2147483647 - 1; }
};
template <>
struct numeric_limits_lite<float> {
    __host__ __device__ static constexpr float lowest() { return -3.402823466e+38f; }
};
template <>
struct numeric_limits_lite<double> {
    __host__ __device__ static constexpr double lowest() { return -1.7976931348623157e+308; }
};

template <typename T>
__host__ __device__ constexpr T Maximum::identity()
{
    return numeric_limits_lite<T>::lowest();
}

}  // namespace tlib

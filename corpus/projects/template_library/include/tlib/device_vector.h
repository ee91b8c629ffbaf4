// device_vector.h - a minimal owning device array (RAII over cudaMalloc).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>

#define TLIB_CHECK(call)                                                       \
    do {                                                                       \
        const cudaError_t e_ = (call);                                         \
        if (e_ != cudaSuccess) {                                               \
            std::fprintf(stderr, "%s:%d %s -> %s\n", __FILE__, __LINE__, #call, \
                         cudaGetErrorString(e_));                              \
            std::abort();                                                      \
        }                                                                      \
    } while (0)

namespace tlib {

template <typename T>
class device_vector {
public:
    device_vector() = default;
    explicit device_vector(std::size_t n) : size_(n)
    {
        TLIB_CHECK(cudaMalloc(reinterpret_cast<void**>(&data_), n * sizeof(T)));
    }
    explicit device_vector(const std::vector<T>& host) : device_vector(host.size())
    {
        TLIB_CHECK(cudaMemcpy(data_, host.data(), size_ * sizeof(T), cudaMemcpyHostToDevice));
    }
    ~device_vector() { release(); }
    device_vector(const device_vector&) = delete;
    device_vector& operator=(const device_vector&) = delete;
    device_vector(device_vector&& other) noexcept
        : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}
    device_vector& operator=(device_vector&& other) noexcept
    {
        if (this != &other) {
            release();
            data_ = std::exchange(other.data_, nullptr);
            size_ = std::exchange(other.size_, 0);
        }
        return *this;
    }

    T* data() { return data_; }
    const T* data() const { return data_; }
    std::size_t size() const { return size_; }

    std::vector<T> to_host() const
    {
        std::vector<T> host(size_);
        TLIB_CHECK(cudaMemcpy(host.data(), data_, size_ * sizeof(T), cudaMemcpyDeviceToHost));
        return host;
    }

private:
    void release()
    {
        if (data_ != nullptr) {
            cudaFree(data_);
            data_ = nullptr;
        }
    }

    T* data_ = nullptr;
    std::size_t size_ = 0;
};

}  // namespace tlib

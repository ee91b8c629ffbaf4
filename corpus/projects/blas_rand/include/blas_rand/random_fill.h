// random_fill.h - a small owner of a cuRAND host-API generator.
//
// The generator writes straight into device memory on the stream it is
// bound to; nothing is generated on the host.
#ifndef BLAS_RAND_RANDOM_FILL_H
#define BLAS_RAND_RANDOM_FILL_H

#include <cuda_runtime.h>
#include <curand.h>

#include <cstddef>

namespace blas_rand {

class RandomSource {
public:
    explicit RandomSource(unsigned long long seed,
                          curandRngType_t type = CURAND_RNG_PSEUDO_PHILOX4_32_10);
    ~RandomSource();
    RandomSource(const RandomSource&) = delete;
    RandomSource& operator=(const RandomSource&) = delete;

    void set_stream(cudaStream_t stream);
    // Uniform floats in (0, 1].
    void uniform(float* device_out, std::size_t count);
    // Normal floats; cuRAND needs an even count for the pseudo generators.
    void normal(float* device_out, std::size_t count, float mean, float stddev);

private:
    curandGenerator_t generator_;
};

}  // namespace blas_rand

#endif  // BLAS_RAND_RANDOM_FILL_H

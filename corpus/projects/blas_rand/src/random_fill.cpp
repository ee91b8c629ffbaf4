// random_fill.cpp - RandomSource on top of the cuRAND host API.
//
// Plain C++: compiled by the host compiler, linked against libcurand.
#include "blas_rand/random_fill.h"
#include "blas_rand/checks.h"

namespace blas_rand {

RandomSource::RandomSource(unsigned long long seed, curandRngType_t type)
{
    CURAND_CHECK(curandCreateGenerator(&generator_, type));
    CURAND_CHECK(curandSetPseudoRandomGeneratorSeed(generator_, seed));
    CURAND_CHECK(curandSetGeneratorOffset(generator_, 0ULL));
}

RandomSource::~RandomSource()
{
    // No CURAND_CHECK in a destructor: report, never exit.
    if (curandDestroyGenerator(generator_) != CURAND_STATUS_SUCCESS) {
        std::fprintf(stderr, "curandDestroyGenerator failed\n");
    }
}

void RandomSource::set_stream(cudaStream_t stream)
{
    CURAND_CHECK(curandSetStream(generator_, stream));
}

void RandomSource::uniform(float* device_out, std::size_t count)
{
    CURAND_CHECK(curandGenerateUniform(generator_, device_out, count));
}

void RandomSource::normal(float* device_out, std::size_t count, float mean,
                          float stddev)
{
    CURAND_CHECK(curandGenerateNormal(generator_, device_out, count, mean, stddev));
}

}  // namespace blas_rand

// util/config.h - host-side settings of the multi_file program.
//
// kernels/config.h has the same file name but different contents; both are
// included by main.cu, so the two files must stay separate after porting.
#ifndef HIPPORT_CORPUS_MULTI_FILE_UTIL_CONFIG_H
#define HIPPORT_CORPUS_MULTI_FILE_UTIL_CONFIG_H

namespace util_config {

constexpr int kNumElements = 1 << 20;   // 1M floats
constexpr unsigned int kSeed = 31337u;  // std::mt19937 seed
constexpr float kTolerance = 1e-5f;     // relative tolerance of the check
constexpr int kWarmupLaunches = 10;
constexpr int kTimedLaunches = 100;

}  // namespace util_config

#endif  // HIPPORT_CORPUS_MULTI_FILE_UTIL_CONFIG_H

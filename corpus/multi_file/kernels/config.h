// kernels/config.h - launch settings of the saxpy kernel.
//
// Not to be confused with util/config.h: same file name, other folder, other
// constants. kernels/saxpy.cuh includes this file as "config.h", which
// resolves relative to kernels/.
#ifndef HIPPORT_CORPUS_MULTI_FILE_KERNELS_CONFIG_H
#define HIPPORT_CORPUS_MULTI_FILE_KERNELS_CONFIG_H

namespace kernel_config {

constexpr int kBlockSize = 128;      // threads per block
constexpr int kItemsPerThread = 4;   // elements handled by each thread
constexpr float kAlpha = 2.5f;       // saxpy scale factor

}  // namespace kernel_config

#endif  // HIPPORT_CORPUS_MULTI_FILE_KERNELS_CONFIG_H

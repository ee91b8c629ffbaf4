// hipport emulator: cooperative groups (thread_block, thread_block_tile<N>, grid_group).
// Written for hipport; the member functions follow HIP 6.4 amd_hip_cooperative_groups.h: a tile
// of N lanes (N a power of 2, at most warpSize) is a part of one wavefront.
#pragma once
#include "device.h"

namespace cooperative_groups {

class thread_block {
public:
    unsigned long long size() const { return 1ull * blockDim.x * blockDim.y * blockDim.z; }
    unsigned long long num_threads() const { return size(); }
    unsigned long long thread_rank() const {
        const uint3 t = threadIdx;
        return t.x + 1ull * blockDim.x * (t.y + 1ull * blockDim.y * t.z);
    }
    dim3 group_index() const { return dim3(blockIdx); }
    dim3 thread_index() const { return dim3(threadIdx); }
    dim3 group_dim() const { return blockDim; }
    void sync() const { __syncthreads(); }
};
inline thread_block this_thread_block() { return thread_block(); }

class grid_group {
public:
    unsigned long long size() const {
        return 1ull * gridDim.x * gridDim.y * gridDim.z * blockDim.x * blockDim.y * blockDim.z;
    }
    unsigned long long num_threads() const { return size(); }
    unsigned long long thread_rank() const {
        unsigned long long block = blockIdx.x + 1ull * gridDim.x * (blockIdx.y + 1ull * gridDim.y * blockIdx.z);
        return block * blockDim.x * blockDim.y * blockDim.z + thread_block().thread_rank();
    }
    bool is_valid() const { return true; }
    void sync() const { ::hipemu::barrier(::hipemu::kGridBarrier); }
};
inline grid_group this_grid() { return grid_group(); }

template <unsigned int N>
class thread_block_tile {
    static_assert(N > 0 && (N & (N - 1)) == 0 && N <= unsigned(warpSize),
                  "thread_block_tile: the tile size must be a power of 2 no larger than warpSize");
public:
    static constexpr unsigned int num_threads() { return N; }
    static constexpr unsigned int size() { return N; }
    unsigned int thread_rank() const { return unsigned(thread_block().thread_rank() % N); }
    unsigned int meta_group_rank() const { return unsigned(thread_block().thread_rank() / N); }
    void sync(HIPEMU_SITE) const {
        ::hipemu::wave_op(::hipemu::kSync, "thread_block_tile::sync", 0, 0, warpSize, false, 0, HIPEMU_AT);
    }
    template <class T> T shfl(T v, int src, HIPEMU_SITE) const { return __shfl(v, src, int(N), HIPEMU_AT); }
    template <class T> T shfl_down(T v, unsigned int d, HIPEMU_SITE) const { return __shfl_down(v, d, int(N), HIPEMU_AT); }
    template <class T> T shfl_up(T v, unsigned int d, HIPEMU_SITE) const { return __shfl_up(v, d, int(N), HIPEMU_AT); }
    template <class T> T shfl_xor(T v, int m, HIPEMU_SITE) const { return __shfl_xor(v, m, int(N), HIPEMU_AT); }
    // HIP 6.4: ballot/any/all of a tile look at the tile's own lanes only.
    unsigned long long ballot(int p, HIPEMU_SITE) const {
        unsigned long long all = __ballot(p, HIPEMU_AT);
        unsigned int first = (__lane_id() / N) * N;
        unsigned long long lanes = N == 64 ? ~0ull : ((1ull << N) - 1);
        return (all >> first) & lanes;
    }
    int any(int p, HIPEMU_SITE) const { return ballot(p, HIPEMU_AT) != 0; }
    int all(int p, HIPEMU_SITE) const {
        unsigned long long lanes = N == 64 ? ~0ull : ((1ull << N) - 1);
        unsigned int first = (__lane_id() / N) * N;
        unsigned long long active = (__ballot(1, HIPEMU_AT) >> first) & lanes;
        return ballot(p, HIPEMU_AT) == active;
    }
};

template <unsigned int N, class Parent>
thread_block_tile<N> tiled_partition(const Parent&) { return thread_block_tile<N>(); }

template <class Group> inline void sync(const Group& g) { g.sync(); }

}  // namespace cooperative_groups

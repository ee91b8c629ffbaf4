// hipport emulator: GPU threads, blocks and wavefronts on the host CPU. Written for hipport.
//
// A launch runs its blocks one after another (all of them together for a cooperative launch).
// The threads of a block run on fibers of one host thread: a thread runs until it waits at
// __syncthreads or at a wavefront operation; a wavefront operation completes when every lane of
// the wavefront that has not exited waits, with the lanes waiting at it as the active lanes
// (the lanes waiting at a barrier are inactive for it, as the EXEC mask of a divergent branch).
#pragma once
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <new>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>
#include "fiber.h"

#ifndef HIPEMU_WAVE
#error "hipport emulator: compile with -DHIPEMU_WAVE=64 or -DHIPEMU_WAVE=32 (hipport emulate --wave)"
#endif
static_assert(HIPEMU_WAVE == 64 || HIPEMU_WAVE == 32, "HIPEMU_WAVE must be 64 or 32");

struct uint3 { unsigned int x, y, z; };
struct dim3 {
    unsigned int x, y, z;
    constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1) : x(vx), y(vy), z(vz) {}
    constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
    constexpr operator uint3() const { return uint3{x, y, z}; }
};

// HIP 6.4 (amd_warp_functions.h): warpSize is a constant expression, the wavefront size.
static constexpr int warpSize = HIPEMU_WAVE;

namespace hipemu {

inline constexpr int kWave = HIPEMU_WAVE;

enum State : unsigned char { kReady, kBarrier, kGridBarrier, kWave_, kDone };
enum Op : unsigned char { kShfl, kShflUp, kShflDown, kShflXor, kBallot, kAny, kAll, kSync };

struct Thread {
    uint3 tid, bid;
    int block = 0;     // index into Group::blocks
    int lane = 0;      // lane in its wavefront
    int wave_first = 0;  // index (in Group::threads) of lane 0 of its wavefront
    State state = kReady;
    // a pending wavefront operation or barrier
    Op op = kSync;
    bool masked = false;      // a *_sync form: `mask` applies to the result
    bool check_mask = false;  // ... and is checked (HIP 6.4 checks it unless NDEBUG is defined)
    const char* file = "";
    int line = 0;
    const char* name = "";
    std::uint64_t value = 0, mask = 0, result = 0;
    long long arg = 0;
    int width = kWave;
    Fiber* fiber = nullptr;
};

struct Block {
    uint3 idx;
    int first = 0, count = 0;                      // its threads in Group::threads
    std::vector<std::pair<const void*, void*>> shared;  // static __shared__ variables, by declaration
    char* dynamic_shared = nullptr;
};

struct Group {
    dim3 grid, block;
    std::size_t dynamic_bytes = 0;
    void (*invoke)(void*) = nullptr;  // runs the kernel body for g_thread
    void* closure = nullptr;
    bool cooperative = false;
    std::vector<Thread> threads;
    std::vector<Block> blocks;
    std::vector<Fiber*> ready;
    long long waits = 0;
};

inline Thread* g_thread = nullptr;
inline Group* g_group = nullptr;
inline std::vector<Fiber*> g_fiber_pool;

inline Thread& self() {
    if (!g_thread) fatal("a device function that needs a GPU thread (threadIdx, __syncthreads, a "
                         "wavefront operation, __shared__) was called from host code");
    return *g_thread;
}

// A fiber (from the pool) that will run threads [next, end) of the current group.
inline Fiber* new_fiber(int next, int end) {
    Fiber* f;
    if (!g_fiber_pool.empty()) { f = g_fiber_pool.back(); g_fiber_pool.pop_back(); }
    else f = new Fiber;
    fiber_start(*f);
    f->next = next; f->end = end; f->finished = false; f->current = -1;
    return f;
}

// Leave the running fiber for the next ready one (directly: one switch), or for the scheduler
// when none is ready (it then completes wavefront operations and barriers).
inline void switch_away() {
    Fiber* self = g_fiber;
    Group& g = *g_group;
    if (!g.ready.empty()) {
        Fiber* next = g.ready.back();
        g.ready.pop_back();
        g_thread = next->current >= 0 ? &g.threads[next->current] : nullptr;
        fiber_switch(*self, *next);
    } else {
        fiber_yield();
    }
}

inline void fiber_main() {
    Fiber* f = g_fiber;
    while (f->next < f->end) {
        int t = f->next++;
        f->current = t;
        Thread& thread = g_group->threads[t];
        thread.fiber = f;
        g_thread = &thread;
        g_group->invoke(g_group->closure);
        thread.state = kDone;
    }
    f->current = -1;
    f->finished = true;
    g_fiber_pool.push_back(f);  // its stack is free once it has switched away
    switch_away();
    fatal("a finished fiber was resumed");
}

// The calling GPU thread waits (state already set) until it is released.
inline void wait_here() {
    Thread& t = *g_thread;
    Fiber* f = g_fiber;
    Group& g = *g_group;
    ++g.waits;
    if (f->next < f->end) {  // the rest of this fiber's range moves on without this thread
        g.ready.push_back(new_fiber(f->next, f->end));
        f->end = f->next;
    }
    switch_away();
    g_thread = &t;
}

inline std::string where(const Thread& t) {
    char text[160];
    std::snprintf(text, sizeof text, "block (%u,%u,%u), thread (%u,%u,%u)", t.bid.x, t.bid.y, t.bid.z,
                  t.tid.x, t.tid.y, t.tid.z);
    return text;
}

[[noreturn]] inline void fatal_at(const Thread& t, const std::string& message) {
    fatal((message + " [" + where(t) + "]").c_str());
}

inline bool same_site(const Thread& a, const Thread& b) {
    return a.line == b.line && a.op == b.op && (a.file == b.file || std::strcmp(a.file, b.file) == 0);
}

// Complete the wavefront operation the waiting lanes of one wavefront are at.
inline void resolve_wave(Group& g, int first, int count, std::vector<Fiber*>& ready) {
    Thread* lanes = &g.threads[first];
    std::uint64_t active = 0;
    const Thread* lead = nullptr;
    for (int l = 0; l < count; ++l) {
        if (lanes[l].state != kWave_) continue;
        if (!lead) lead = &lanes[l];
        else if (!same_site(*lead, lanes[l])) {
            char text[512];
            std::snprintf(text, sizeof text,
                          "lanes of one wavefront wait at two different wavefront operations: %s at %s:%d "
                          "and %s at %s:%d; the emulator cannot order divergent wavefront operations",
                          lead->name, lead->file, lead->line, lanes[l].name, lanes[l].file, lanes[l].line);
            fatal_at(lanes[l], text);
        }
        active |= std::uint64_t(1) << l;
    }
    if (!lead) return;
    if (lead->check_mask) {
        // HIP 6.4 amd_warp_sync_functions.h __hip_check_mask: the mask must be non-zero, and the
        // lanes that give the same mask must be exactly the lanes that mask names.
        for (int l = 0; l < count; ++l) {
            if (!(active >> l & 1)) continue;
            std::uint64_t m = lanes[l].mask;
            if (m == 0) fatal_at(lanes[l], std::string(lead->name) + ": the mask is 0 (HIP traps)");
            std::uint64_t same = 0;
            for (int k = 0; k < count; ++k)
                if ((active >> k & 1) && lanes[k].mask == m) same |= std::uint64_t(1) << k;
            if (same != m) {
                char text[400];
                std::snprintf(text, sizeof text,
                              "%s at %s:%d: mask 0x%llx but the lanes calling it with that mask are 0x%llx "
                              "(HIP traps: every lane in the mask must execute the call, no other lane may)",
                              lead->name, lead->file, lead->line, (unsigned long long)m,
                              (unsigned long long)same);
                fatal_at(lanes[l], text);
            }
        }
    }
    std::uint64_t ballot = 0;
    bool any = false, all = true;
    for (int l = 0; l < count; ++l)
        if (active >> l & 1) {
            bool p = lanes[l].value != 0;
            if (p) ballot |= std::uint64_t(1) << l;
            any |= p;
            all &= p;
        }
    for (int l = 0; l < count; ++l) {
        if (!(active >> l & 1)) continue;
        Thread& t = lanes[l];
        int width = t.width, self = l, index = l;
        switch (t.op) {
        case kShfl: index = (int(t.arg) & (width - 1)) + (self & ~(width - 1)); break;
        case kShflUp: index = self - int(t.arg); if (index < (self & ~(width - 1))) index = self; break;
        case kShflDown: index = self + int(t.arg);
            if (int((self & (width - 1)) + (unsigned)t.arg) >= width) index = self; break;
        case kShflXor: index = self ^ int(t.arg);
            if (index >= ((self + width) & ~(width - 1))) index = self; break;
        default: break;
        }
        switch (t.op) {
        case kShfl: case kShflUp: case kShflDown: case kShflXor:
            index &= kWave - 1;  // ds_bpermute takes the lane number modulo the wavefront size
            // ds_bpermute: a lane that is not active (or does not exist) gives 0.
            t.result = (index < count && (active >> index & 1)) ? lanes[index].value : 0;
            break;
        case kBallot: t.result = ballot & (t.masked ? t.mask : ~std::uint64_t(0)); break;
        case kAny: t.result = t.masked ? (ballot & t.mask) != 0 : any; break;
        case kAll: t.result = t.masked ? (ballot & t.mask) == t.mask : all; break;
        case kSync: t.result = active; break;
        }
        t.state = kReady;
        ready.push_back(t.fiber);
    }
}

// Run every thread of `g` to completion.
inline void run_group(Group& g) {
    const int n = int(g.threads.size());
    std::vector<Fiber*>& ready = g.ready;
    ready.clear();
    g.waits = 0;
    ready.push_back(new_fiber(0, n));
    for (;;) {
        if (!ready.empty()) {  // the fibers pass control among themselves until none is ready
            Fiber* f = ready.back();
            ready.pop_back();
            g_thread = f->current >= 0 ? &g.threads[f->current] : nullptr;
            fiber_resume(*f);
            g_thread = nullptr;
            continue;
        }
        if (!g.waits) return;  // no thread waited: all have exited
        // Every thread has exited or waits. Wavefront operations first.
        bool progress = false;
        for (const Block& b : g.blocks)
            for (int w = b.first; w < b.first + b.count; w += kWave) {
                int count = std::min(kWave, b.first + b.count - w);
                for (int l = w; l < w + count; ++l)
                    if (g.threads[l].state == kWave_) {
                        resolve_wave(g, w, count, ready);
                        progress = true;
                        break;
                    }
            }
        if (progress) continue;
        // Then block barriers: a block whose threads all wait at __syncthreads (or have exited).
        std::size_t done_blocks = 0;
        for (Block& b : g.blocks) {
            int waiting = 0, grid_waiting = 0, live = 0;
            for (int t = b.first; t < b.first + b.count; ++t) {
                State s = g.threads[t].state;
                if (s == kDone) continue;
                ++live;
                waiting += s == kBarrier;
                grid_waiting += s == kGridBarrier;
            }
            if (live == 0) { ++done_blocks; continue; }
            if (waiting && grid_waiting)
                fatal_at(g.threads[b.first], "threads of one block wait at __syncthreads and at a grid "
                                             "barrier at the same time");
            if (waiting == live) {
                // __syncthreads_count/_and/_or: the reduction over the threads that arrived
                long long count = 0;
                for (int t = b.first; t < b.first + b.count; ++t)
                    if (g.threads[t].state == kBarrier) count += g.threads[t].value != 0;
                for (int t = b.first; t < b.first + b.count; ++t) {
                    Thread& th = g.threads[t];
                    if (th.state != kBarrier) continue;
                    th.result = std::uint64_t(count);
                    th.arg = live;
                    th.state = kReady;
                    ready.push_back(th.fiber);
                }
                progress = true;
            }
        }
        if (progress) continue;
        if (done_blocks == g.blocks.size()) return;
        // A grid barrier (cooperative launch): every live thread of the grid waits at it.
        bool all_grid = g.cooperative;
        for (const Thread& t : g.threads) all_grid &= t.state == kDone || t.state == kGridBarrier;
        if (all_grid) {
            for (Thread& t : g.threads)
                if (t.state == kGridBarrier) { t.state = kReady; ready.push_back(t.fiber); }
            continue;
        }
        for (const Thread& t : g.threads)
            if (t.state == kGridBarrier) fatal_at(t, "grid barrier (grid.sync) outside a cooperative launch "
                                                     "(hipLaunchCooperativeKernel), or while other threads wait "
                                                     "at __syncthreads");
        fatal("deadlock: the threads of a block wait at different barriers");
    }
}

// Per-block storage for one static __shared__ declaration (`tag` identifies the declaration).
template <class T>
T& shared_var(const void* tag) {
    Block& b = g_group->blocks[self().block];
    for (auto& entry : b.shared)
        if (entry.first == tag) return *static_cast<T*>(entry.second);
    void* memory = ::operator new(sizeof(T), std::align_val_t(64));
    std::memset(memory, 0xff, sizeof(T));  // uninitialised shared memory: NaN / -1 bytes, never zeros
    b.shared.emplace_back(tag, memory);
    return *static_cast<T*>(memory);
}

// The block's dynamic shared memory (`extern __shared__ T name[];`).
template <class T>
T& dynamic_shared() {
    return *reinterpret_cast<T*>(g_group->blocks[self().block].dynamic_shared);
}

struct LaunchError { int code; };

// Run a kernel body over a grid. `cooperative`: all blocks at once (grid.sync allowed).
template <class Body>
int run_grid(dim3 grid, dim3 block, std::size_t shmem, bool cooperative, Body& body) {
    unsigned long long threads = 1ull * block.x * block.y * block.z;
    if (threads == 0 || threads > 1024 || block.z > 64 || grid.x == 0 || grid.y == 0 || grid.z == 0 ||
        grid.y > 65535 || grid.z > 65535)
        return 9;  // hipErrorInvalidConfiguration
    if (shmem > 64 * 1024) return 1;  // hipErrorInvalidValue: more than the 64 KiB LDS of a block
    unsigned long long blocks_total = 1ull * grid.x * grid.y * grid.z;
    if (cooperative && blocks_total * threads > 64 * 1024) return 720;  // hipErrorCooperativeLaunchTooLarge
    Group g;
    g.grid = grid; g.block = block; g.dynamic_bytes = shmem; g.cooperative = cooperative;
    g.closure = &body;
    g.invoke = [](void* c) { (*static_cast<Body*>(c))(); };
    Group* saved = g_group;
    g_group = &g;
    // The threads of one block (the same for every block but blockIdx).
    std::vector<Thread> shape;
    shape.reserve(threads);
    for (unsigned z = 0; z < block.z; ++z)
        for (unsigned y = 0; y < block.y; ++y)
            for (unsigned x = 0; x < block.x; ++x) {
                Thread t;
                t.tid = uint3{x, y, z};
                int linear = int(shape.size());
                t.lane = linear % kWave;
                t.wave_first = linear - t.lane;
                shape.push_back(t);
            }
    std::vector<char*> dynamic;
    auto add_block = [&](unsigned bx, unsigned by, unsigned bz) {
        Block b;
        b.idx = uint3{bx, by, bz};
        b.first = int(g.threads.size());
        b.count = int(threads);
        int index = int(g.blocks.size());
        for (const Thread& s : shape) {
            g.threads.push_back(s);
            Thread& t = g.threads.back();
            t.bid = b.idx;
            t.block = index;
            t.wave_first += b.first;
        }
        if (shmem) {
            if (dynamic.size() <= g.blocks.size())
                dynamic.push_back(static_cast<char*>(::operator new(shmem, std::align_val_t(64))));
            b.dynamic_shared = dynamic[g.blocks.size()];
            std::memset(b.dynamic_shared, 0xff, shmem);
        }
        g.blocks.push_back(std::move(b));
    };
    auto finish = [&]() {
        for (Block& b : g.blocks)
            for (auto& entry : b.shared) ::operator delete(entry.second, std::align_val_t(64));
        g.blocks.clear();
        g.threads.clear();
    };
    g.threads.reserve(cooperative ? blocks_total * threads : threads);
    for (unsigned bz = 0; bz < grid.z; ++bz)
        for (unsigned by = 0; by < grid.y; ++by)
            for (unsigned bx = 0; bx < grid.x; ++bx) {
                add_block(bx, by, bz);
                if (!cooperative) { run_group(g); finish(); }
            }
    if (cooperative) { run_group(g); finish(); }
    for (char* memory : dynamic) ::operator delete(memory, std::align_val_t(64));
    g_group = saved;
    return 0;
}

// ---- waiting points called from device code ----

inline void barrier(State kind, std::uint64_t predicate = 0) {
    Thread& t = self();
    t.state = kind;
    t.value = predicate;
    wait_here();
}

template <class T>
inline std::uint64_t to_bits(T v) {
    static_assert(std::is_trivially_copyable<T>::value && sizeof(T) <= 8,
                  "hipport emulator: wavefront operations take scalars of at most 8 bytes");
    std::uint64_t bits = 0;
    std::memcpy(&bits, &v, sizeof(T));
    return bits;
}
template <class T>
inline T from_bits(std::uint64_t bits) {
    T v;
    std::memcpy(&v, &bits, sizeof(T));
    return v;
}

inline std::uint64_t wave_op(Op op, const char* name, std::uint64_t value, long long arg, int width,
                             bool masked, std::uint64_t mask, const char* file, int line, bool check = false) {
    Thread& t = self();
    if (width <= 0 || width > kWave || (width & (width - 1)))
        fatal_at(t, std::string(name) + ": width must be a power of 2 no larger than warpSize");
    t.op = op; t.name = name; t.value = value; t.arg = arg; t.width = width;
    t.masked = masked; t.check_mask = masked && check; t.mask = mask; t.file = file; t.line = line;
    t.state = kWave_;
    wait_here();
    return t.result;
}

template <class M>
inline std::uint64_t sync_mask(M mask) {
    static_assert(std::is_integral<M>::value && sizeof(M) == 8,
                  "The mask must be a 64-bit integer. "
                  "Implicitly promoting a smaller integer is almost always an error.");
    std::uint64_t m = std::uint64_t(mask);
    if (kWave == 32) m &= 0xFFFFFFFFu;  // __hip_adjust_mask_for_wave32
    return m;
}

}  // namespace hipemu

#define threadIdx (::hipemu::self().tid)
#define blockIdx (::hipemu::self().bid)
#define blockDim (::hipemu::g_group->block)
#define gridDim (::hipemu::g_group->grid)

#define HIPEMU_SITE const char* hipemu_file = __builtin_FILE(), int hipemu_line = __builtin_LINE()
#define HIPEMU_AT hipemu_file, hipemu_line

inline void __syncthreads() { ::hipemu::barrier(::hipemu::kBarrier); }
inline int __syncthreads_count(int p) { ::hipemu::barrier(::hipemu::kBarrier, p != 0); return int(::hipemu::self().result); }
inline int __syncthreads_and(int p) {
    ::hipemu::barrier(::hipemu::kBarrier, p != 0);
    return ::hipemu::self().result == ::std::uint64_t(::hipemu::self().arg);
}
inline int __syncthreads_or(int p) { ::hipemu::barrier(::hipemu::kBarrier, p != 0); return ::hipemu::self().result != 0; }

inline unsigned int __lane_id() { return unsigned(::hipemu::self().lane); }

template <class T>
inline T __shfl(T var, int src_lane, int width = warpSize, HIPEMU_SITE) {
    return ::hipemu::from_bits<T>(::hipemu::wave_op(::hipemu::kShfl, "__shfl", ::hipemu::to_bits(var), src_lane,
                                                    width, false, 0, HIPEMU_AT));
}
template <class T>
inline T __shfl_up(T var, unsigned int delta, int width = warpSize, HIPEMU_SITE) {
    return ::hipemu::from_bits<T>(::hipemu::wave_op(::hipemu::kShflUp, "__shfl_up", ::hipemu::to_bits(var), delta,
                                                    width, false, 0, HIPEMU_AT));
}
template <class T>
inline T __shfl_down(T var, unsigned int delta, int width = warpSize, HIPEMU_SITE) {
    return ::hipemu::from_bits<T>(::hipemu::wave_op(::hipemu::kShflDown, "__shfl_down", ::hipemu::to_bits(var),
                                                    delta, width, false, 0, HIPEMU_AT));
}
template <class T>
inline T __shfl_xor(T var, int lane_mask, int width = warpSize, HIPEMU_SITE) {
    return ::hipemu::from_bits<T>(::hipemu::wave_op(::hipemu::kShflXor, "__shfl_xor", ::hipemu::to_bits(var),
                                                    lane_mask, width, false, 0, HIPEMU_AT));
}
inline unsigned long long __ballot(int predicate, HIPEMU_SITE) {
    return ::hipemu::wave_op(::hipemu::kBallot, "__ballot", predicate != 0, 0, warpSize, false, 0, HIPEMU_AT);
}
inline unsigned long long __ballot64(int predicate, HIPEMU_SITE) {
    return ::hipemu::wave_op(::hipemu::kBallot, "__ballot64", predicate != 0, 0, warpSize, false, 0, HIPEMU_AT);
}
inline int __any(int predicate, HIPEMU_SITE) {
    return int(::hipemu::wave_op(::hipemu::kAny, "__any", predicate != 0, 0, warpSize, false, 0, HIPEMU_AT));
}
inline int __all(int predicate, HIPEMU_SITE) {
    return int(::hipemu::wave_op(::hipemu::kAll, "__all", predicate != 0, 0, warpSize, false, 0, HIPEMU_AT));
}

// The two AMD builtins HIP 7.0 defines __syncwarp with (amd_warp_sync_functions.h: a release fence
// of wavefront scope, __builtin_amdgcn_wave_barrier(), an acquire fence of wavefront scope), which
// `hipport convert --fix` writes in place of __syncwarp calls. On the GPU the lanes of a wavefront
// run in lock-step and the wave barrier keeps the compiler from moving memory accesses across it;
// here the lanes run one after another, so the wave barrier is a wavefront operation: every lane
// that has not exited writes what it wrote before it, then every lane goes on.
inline void __builtin_amdgcn_wave_barrier(HIPEMU_SITE) {
    ::hipemu::wave_op(::hipemu::kSync, "__builtin_amdgcn_wave_barrier", 0, 0, warpSize, false, 0, HIPEMU_AT);
}
inline void __builtin_amdgcn_fence(int order, const char* scope) {
    (void)scope;  // "wavefront", "workgroup", "agent" or "" (system): all one host thread here
    __atomic_thread_fence(order);
}

// The *_sync forms and __activemask: declared, as in HIP 6.4, only with HIP_ENABLE_WARP_SYNC_BUILTINS
// (hipport emulate defines it, as hipport's HIP builds do).
#ifdef HIP_ENABLE_WARP_SYNC_BUILTINS
// __hip_check_mask is a __hip_assert: compiled out when NDEBUG is defined (hip_assert.h).
#ifdef NDEBUG
#define HIPEMU_CHECK false
#else
#define HIPEMU_CHECK true
#endif
inline unsigned long long __activemask(HIPEMU_SITE) {
    return ::hipemu::wave_op(::hipemu::kBallot, "__activemask", 1, 0, warpSize, false, 0, HIPEMU_AT);
}
template <class M>
inline unsigned long long __ballot_sync(M mask, int predicate, HIPEMU_SITE) {
    return ::hipemu::wave_op(::hipemu::kBallot, "__ballot_sync", predicate != 0, 0, warpSize, true,
                             ::hipemu::sync_mask(mask), HIPEMU_AT, HIPEMU_CHECK);
}
template <class M>
inline int __any_sync(M mask, int predicate, HIPEMU_SITE) {
    return int(::hipemu::wave_op(::hipemu::kAny, "__any_sync", predicate != 0, 0, warpSize, true,
                                 ::hipemu::sync_mask(mask), HIPEMU_AT, HIPEMU_CHECK));
}
template <class M>
inline int __all_sync(M mask, int predicate, HIPEMU_SITE) {
    return int(::hipemu::wave_op(::hipemu::kAll, "__all_sync", predicate != 0, 0, warpSize, true,
                                 ::hipemu::sync_mask(mask), HIPEMU_AT, HIPEMU_CHECK));
}
template <class M, class T>
inline T __shfl_sync(M mask, T var, int src_lane, int width = warpSize, HIPEMU_SITE) {
    return ::hipemu::from_bits<T>(::hipemu::wave_op(::hipemu::kShfl, "__shfl_sync", ::hipemu::to_bits(var),
                                                    src_lane, width, true, ::hipemu::sync_mask(mask), HIPEMU_AT, HIPEMU_CHECK));
}
template <class M, class T>
inline T __shfl_up_sync(M mask, T var, unsigned int delta, int width = warpSize, HIPEMU_SITE) {
    return ::hipemu::from_bits<T>(::hipemu::wave_op(::hipemu::kShflUp, "__shfl_up_sync", ::hipemu::to_bits(var),
                                                    delta, width, true, ::hipemu::sync_mask(mask), HIPEMU_AT, HIPEMU_CHECK));
}
template <class M, class T>
inline T __shfl_down_sync(M mask, T var, unsigned int delta, int width = warpSize, HIPEMU_SITE) {
    return ::hipemu::from_bits<T>(::hipemu::wave_op(::hipemu::kShflDown, "__shfl_down_sync",
                                                    ::hipemu::to_bits(var), delta, width, true,
                                                    ::hipemu::sync_mask(mask), HIPEMU_AT, HIPEMU_CHECK));
}
template <class M, class T>
inline T __shfl_xor_sync(M mask, T var, int lane_mask, int width = warpSize, HIPEMU_SITE) {
    return ::hipemu::from_bits<T>(::hipemu::wave_op(::hipemu::kShflXor, "__shfl_xor_sync",
                                                    ::hipemu::to_bits(var), lane_mask, width, true,
                                                    ::hipemu::sync_mask(mask), HIPEMU_AT, HIPEMU_CHECK));
}
#endif

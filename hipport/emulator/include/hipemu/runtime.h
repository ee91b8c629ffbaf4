// hipport emulator: the HIP runtime API on the host. Written for hipport.
// Device memory is host memory; every stream operation runs when it is called, so the
// operations of all streams run in the order the program issues them (a valid order for HIP).
#pragma once
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <tuple>
#include "device.h"

enum hipError_t {
    hipSuccess = 0, hipErrorInvalidValue = 1, hipErrorOutOfMemory = 2, hipErrorMemoryAllocation = 2,
    hipErrorInvalidConfiguration = 9, hipErrorInvalidSymbol = 13, hipErrorInvalidDevicePointer = 17,
    hipErrorInvalidMemcpyDirection = 21, hipErrorInvalidDeviceFunction = 98, hipErrorNoDevice = 100,
    hipErrorInvalidDevice = 101, hipErrorInvalidResourceHandle = 400, hipErrorNotReady = 600,
    hipErrorLaunchFailure = 719, hipErrorCooperativeLaunchTooLarge = 720, hipErrorNotSupported = 801,
};
enum hipMemcpyKind {
    hipMemcpyHostToHost = 0, hipMemcpyHostToDevice = 1, hipMemcpyDeviceToHost = 2,
    hipMemcpyDeviceToDevice = 3, hipMemcpyDefault = 4,
};
enum hipDeviceAttribute_t {
    hipDeviceAttributeMultiprocessorCount, hipDeviceAttributeMaxThreadsPerBlock, hipDeviceAttributeWarpSize,
    hipDeviceAttributeCooperativeLaunch, hipDeviceAttributeAsyncEngineCount,
    hipDeviceAttributeMaxSharedMemoryPerBlock, hipDeviceAttributeMaxThreadsPerMultiProcessor,
    hipDeviceAttributeComputeCapabilityMajor, hipDeviceAttributeComputeCapabilityMinor,
    hipDeviceAttributeMaxBlockDimX, hipDeviceAttributeMaxBlockDimY, hipDeviceAttributeMaxBlockDimZ,
    hipDeviceAttributeMaxGridDimX, hipDeviceAttributeMaxGridDimY, hipDeviceAttributeMaxGridDimZ,
    hipDeviceAttributeConcurrentKernels, hipDeviceAttributeTotalConstantMemory,
};
#define hipStreamDefault 0x00
#define hipStreamNonBlocking 0x01
#define hipEventDefault 0x0
#define hipEventBlockingSync 0x1
#define hipEventDisableTiming 0x2
#define hipHostMallocDefault 0x0
#define hipHostMallocPortable 0x1
#define hipHostAllocDefault 0x0

struct ihipStream_t { unsigned int flags; int priority; };
struct ihipEvent_t { unsigned int flags; bool recorded; std::chrono::steady_clock::time_point when; };
typedef ihipStream_t* hipStream_t;
typedef ihipEvent_t* hipEvent_t;
typedef void (*hipHostFn_t)(void* user_data);

struct hipDeviceProp_t {
    char name[256];
    char gcnArchName[256];
    std::size_t totalGlobalMem, sharedMemPerBlock, totalConstMem, memPitch;
    int regsPerBlock, warpSize, maxThreadsPerBlock, maxThreadsDim[3], maxGridSize[3], clockRate;
    int major, minor, multiProcessorCount, maxThreadsPerMultiProcessor, concurrentKernels;
    int asyncEngineCount, cooperativeLaunch, l2CacheSize, memoryClockRate, memoryBusWidth, integrated;
    int canMapHostMemory, computeMode, pciBusID, pciDeviceID, maxSharedMemoryPerMultiProcessor;
};
struct hipFuncAttributes {
    std::size_t sharedSizeBytes, constSizeBytes, localSizeBytes;
    int maxThreadsPerBlock, numRegs, ptxVersion, binaryVersion, maxDynamicSharedSizeBytes;
};

namespace hipemu {

// The emulated device. Fixed, small numbers: occupancy-sized grids stay cheap to run.
inline constexpr int kMultiprocessors = 4;
inline constexpr int kThreadsPerMultiprocessor = 2048;

inline hipError_t& last_error() { static hipError_t error = hipSuccess; return error; }
inline hipError_t record(hipError_t e) { if (e != hipSuccess) last_error() = e; return e; }

struct Symbol { const void* address; std::size_t size; };

inline std::map<const void*, std::size_t>& kernel_shared_bytes() {
    static std::map<const void*, std::size_t> table;
    return table;
}
inline bool register_shared(const void* kernel, std::size_t bytes) {
    kernel_shared_bytes()[kernel] = bytes;
    return true;
}

struct LaunchConfig {
    dim3 grid, block;
    std::size_t shmem;
    hipStream_t stream;
    LaunchConfig(dim3 g, dim3 b, std::size_t s = 0, hipStream_t st = nullptr)
        : grid(g), block(b), shmem(s), stream(st) {}
};

// kernel<<<grid, block, shmem, stream>>>(args...) after the source transform:
// launch(LaunchConfig(grid, block, shmem, stream), [&](auto... a) { kernel(a...); }, args...)
template <class Kernel, class... Args>
void launch(LaunchConfig config, Kernel kernel, Args... args) {
    auto body = [&]() { kernel(args...); };
    int e = run_grid(config.grid, config.block, config.shmem, false, body);
    record(hipError_t(e));
}

template <class... P, std::size_t... I>
int launch_packed(void (*kernel)(P...), dim3 grid, dim3 block, void** args, std::size_t shmem, bool coop,
                  std::index_sequence<I...>) {
    if (sizeof...(P) && !args) return hipErrorInvalidValue;
    auto body = [&]() { kernel(*static_cast<std::remove_cv_t<std::remove_reference_t<P>>*>(args[I])...); };
    return run_grid(grid, block, shmem, coop, body);
}
// hipLaunchCooperativeKernel / hipLaunchKernel after the source transform (the kernel's own type).
template <class... P>
hipError_t launch_cooperative(void (*kernel)(P...), dim3 grid, dim3 block, void** args, std::size_t shmem = 0,
                              hipStream_t = nullptr) {
    return record(hipError_t(launch_packed(kernel, grid, block, args, shmem, true, std::index_sequence_for<P...>{})));
}
template <class... P>
hipError_t launch_packed_kernel(void (*kernel)(P...), dim3 grid, dim3 block, void** args, std::size_t shmem = 0,
                                hipStream_t = nullptr) {
    return record(hipError_t(launch_packed(kernel, grid, block, args, shmem, false, std::index_sequence_for<P...>{})));
}

}  // namespace hipemu

#define HIP_SYMBOL(X) ::hipemu::Symbol{static_cast<const void*>(&(X)), sizeof(X)}
#define HIP_KERNEL_NAME(...) __VA_ARGS__
#define hipLaunchKernelGGL(KERNEL, GRID, BLOCK, SHMEM, STREAM, ...) \
    ::hipemu::launch(::hipemu::LaunchConfig(GRID, BLOCK, SHMEM, STREAM), \
                     [&](auto... hipemu_a) { KERNEL(hipemu_a...); } __VA_OPT__(,) __VA_ARGS__)

// ---- errors ----
inline hipError_t hipGetLastError() { hipError_t e = ::hipemu::last_error(); ::hipemu::last_error() = hipSuccess; return e; }
inline hipError_t hipPeekAtLastError() { return ::hipemu::last_error(); }
inline const char* hipGetErrorName(hipError_t e) {
    switch (e) {
    case hipSuccess: return "hipSuccess";
    case hipErrorInvalidValue: return "hipErrorInvalidValue";
    case hipErrorOutOfMemory: return "hipErrorOutOfMemory";
    case hipErrorInvalidConfiguration: return "hipErrorInvalidConfiguration";
    case hipErrorInvalidSymbol: return "hipErrorInvalidSymbol";
    case hipErrorInvalidDevicePointer: return "hipErrorInvalidDevicePointer";
    case hipErrorInvalidMemcpyDirection: return "hipErrorInvalidMemcpyDirection";
    case hipErrorInvalidDeviceFunction: return "hipErrorInvalidDeviceFunction";
    case hipErrorNoDevice: return "hipErrorNoDevice";
    case hipErrorInvalidDevice: return "hipErrorInvalidDevice";
    case hipErrorInvalidResourceHandle: return "hipErrorInvalidResourceHandle";
    case hipErrorNotReady: return "hipErrorNotReady";
    case hipErrorLaunchFailure: return "hipErrorLaunchFailure";
    case hipErrorCooperativeLaunchTooLarge: return "hipErrorCooperativeLaunchTooLarge";
    case hipErrorNotSupported: return "hipErrorNotSupported";
    }
    return "hipErrorUnknown";
}
inline const char* hipGetErrorString(hipError_t e) {
    switch (e) {
    case hipSuccess: return "no error";
    case hipErrorInvalidValue: return "invalid argument";
    case hipErrorOutOfMemory: return "out of memory";
    case hipErrorInvalidConfiguration: return "invalid configuration argument";
    case hipErrorInvalidSymbol: return "invalid device symbol";
    case hipErrorInvalidDevicePointer: return "invalid device pointer";
    case hipErrorInvalidMemcpyDirection: return "invalid copy direction for memcpy";
    case hipErrorInvalidDevice: return "invalid device ordinal";
    case hipErrorCooperativeLaunchTooLarge: return "too many blocks in cooperative launch";
    default: return hipGetErrorName(e);
    }
}

// ---- device ----
inline hipError_t hipGetDeviceCount(int* count) { if (!count) return hipErrorInvalidValue; *count = 1; return hipSuccess; }
inline hipError_t hipGetDevice(int* device) { if (!device) return hipErrorInvalidValue; *device = 0; return hipSuccess; }
inline hipError_t hipSetDevice(int device) { return device == 0 ? hipSuccess : ::hipemu::record(hipErrorInvalidDevice); }
inline hipError_t hipDeviceSynchronize() { return hipSuccess; }
inline hipError_t hipDeviceReset() { return hipSuccess; }
inline hipError_t hipGetDeviceProperties(hipDeviceProp_t* prop, int device) {
    if (!prop) return hipErrorInvalidValue;
    if (device != 0) return ::hipemu::record(hipErrorInvalidDevice);
    std::memset(prop, 0, sizeof *prop);
    std::snprintf(prop->name, sizeof prop->name, "hipport emulator (wave%d)", warpSize);
    std::snprintf(prop->gcnArchName, sizeof prop->gcnArchName, "%s", warpSize == 64 ? "emulated-wave64" : "emulated-wave32");
    prop->totalGlobalMem = std::size_t(8) << 30;
    prop->sharedMemPerBlock = 64 * 1024;
    prop->maxSharedMemoryPerMultiProcessor = 64 * 1024;
    prop->totalConstMem = 64 * 1024;
    prop->memPitch = std::size_t(1) << 31;
    prop->regsPerBlock = 65536;
    prop->warpSize = warpSize;
    prop->maxThreadsPerBlock = 1024;
    prop->maxThreadsDim[0] = 1024; prop->maxThreadsDim[1] = 1024; prop->maxThreadsDim[2] = 64;
    prop->maxGridSize[0] = 2147483647; prop->maxGridSize[1] = 65535; prop->maxGridSize[2] = 65535;
    prop->clockRate = 1000000;
    prop->major = warpSize == 64 ? 9 : 11;
    prop->minor = 0;
    prop->multiProcessorCount = ::hipemu::kMultiprocessors;
    prop->maxThreadsPerMultiProcessor = ::hipemu::kThreadsPerMultiprocessor;
    prop->concurrentKernels = 1;
    prop->asyncEngineCount = 1;
    prop->cooperativeLaunch = 1;
    prop->l2CacheSize = 4 << 20;
    return hipSuccess;
}
inline hipError_t hipDeviceGetAttribute(int* value, hipDeviceAttribute_t attribute, int device) {
    if (!value) return hipErrorInvalidValue;
    hipDeviceProp_t p;
    if (hipError_t e = hipGetDeviceProperties(&p, device)) return e;
    switch (attribute) {
    case hipDeviceAttributeMultiprocessorCount: *value = p.multiProcessorCount; break;
    case hipDeviceAttributeMaxThreadsPerBlock: *value = p.maxThreadsPerBlock; break;
    case hipDeviceAttributeWarpSize: *value = p.warpSize; break;
    case hipDeviceAttributeCooperativeLaunch: *value = p.cooperativeLaunch; break;
    case hipDeviceAttributeAsyncEngineCount: *value = p.asyncEngineCount; break;
    case hipDeviceAttributeMaxSharedMemoryPerBlock: *value = int(p.sharedMemPerBlock); break;
    case hipDeviceAttributeMaxThreadsPerMultiProcessor: *value = p.maxThreadsPerMultiProcessor; break;
    case hipDeviceAttributeComputeCapabilityMajor: *value = p.major; break;
    case hipDeviceAttributeComputeCapabilityMinor: *value = p.minor; break;
    case hipDeviceAttributeMaxBlockDimX: *value = p.maxThreadsDim[0]; break;
    case hipDeviceAttributeMaxBlockDimY: *value = p.maxThreadsDim[1]; break;
    case hipDeviceAttributeMaxBlockDimZ: *value = p.maxThreadsDim[2]; break;
    case hipDeviceAttributeMaxGridDimX: *value = p.maxGridSize[0]; break;
    case hipDeviceAttributeMaxGridDimY: *value = p.maxGridSize[1]; break;
    case hipDeviceAttributeMaxGridDimZ: *value = p.maxGridSize[2]; break;
    case hipDeviceAttributeConcurrentKernels: *value = p.concurrentKernels; break;
    case hipDeviceAttributeTotalConstantMemory: *value = int(p.totalConstMem); break;
    default: return ::hipemu::record(hipErrorInvalidValue);
    }
    return hipSuccess;
}

// ---- kernels: attributes and occupancy ----
template <class F>
hipError_t hipFuncGetAttributes(hipFuncAttributes* attr, F kernel) {
    if (!attr) return hipErrorInvalidValue;
    std::memset(attr, 0, sizeof *attr);
    attr->maxThreadsPerBlock = 1024;
    attr->maxDynamicSharedSizeBytes = 64 * 1024;
    auto& table = ::hipemu::kernel_shared_bytes();
    auto found = table.find(reinterpret_cast<const void*>(kernel));
    attr->sharedSizeBytes = found == table.end() ? 0 : found->second;
    return hipSuccess;
}
template <class F>
hipError_t hipOccupancyMaxActiveBlocksPerMultiprocessor(int* blocks, F, int block_size, std::size_t shmem) {
    if (!blocks || block_size <= 0) return hipErrorInvalidValue;
    int by_threads = ::hipemu::kThreadsPerMultiprocessor / block_size;
    int by_shared = shmem ? int((64 * 1024) / shmem) : by_threads;
    *blocks = std::min(by_threads, by_shared);
    return hipSuccess;
}
template <class F>
hipError_t hipOccupancyMaxPotentialBlockSize(int* min_grid, int* block_size, F, std::size_t shmem = 0, int limit = 0) {
    if (!min_grid || !block_size) return hipErrorInvalidValue;
    int size = limit > 0 && limit < 1024 ? limit : 1024;
    if (shmem > 64 * 1024) return hipErrorInvalidValue;
    *block_size = size;
    *min_grid = ::hipemu::kMultiprocessors * (::hipemu::kThreadsPerMultiprocessor / size);
    return hipSuccess;
}

// ---- memory ----
inline hipError_t hipMalloc(void** ptr, std::size_t size) {
    if (!ptr) return ::hipemu::record(hipErrorInvalidValue);
    *ptr = size ? std::aligned_alloc(256, (size + 255) / 256 * 256) : nullptr;
    if (size && !*ptr) return ::hipemu::record(hipErrorOutOfMemory);
    return hipSuccess;
}
template <class T>
hipError_t hipMalloc(T** ptr, std::size_t size) { return hipMalloc(reinterpret_cast<void**>(ptr), size); }
inline hipError_t hipFree(void* ptr) { std::free(ptr); return hipSuccess; }
inline hipError_t hipHostMalloc(void** ptr, std::size_t size, unsigned int = 0) { return hipMalloc(ptr, size); }
template <class T>
hipError_t hipHostMalloc(T** ptr, std::size_t size, unsigned int flags = 0) { return hipHostMalloc(reinterpret_cast<void**>(ptr), size, flags); }
inline hipError_t hipHostAlloc(void** ptr, std::size_t size, unsigned int = 0) { return hipMalloc(ptr, size); }
template <class T>
hipError_t hipHostAlloc(T** ptr, std::size_t size, unsigned int flags = 0) { return hipHostAlloc(reinterpret_cast<void**>(ptr), size, flags); }
inline hipError_t hipHostFree(void* ptr) { std::free(ptr); return hipSuccess; }
inline hipError_t hipMallocManaged(void** ptr, std::size_t size, unsigned int = 1) { return hipMalloc(ptr, size); }
template <class T>
hipError_t hipMallocManaged(T** ptr, std::size_t size, unsigned int flags = 1) { return hipMallocManaged(reinterpret_cast<void**>(ptr), size, flags); }
inline hipError_t hipMallocPitch(void** ptr, std::size_t* pitch, std::size_t width, std::size_t height) {
    if (!pitch) return ::hipemu::record(hipErrorInvalidValue);
    *pitch = (width + 255) / 256 * 256;
    return hipMalloc(ptr, *pitch * height);
}
template <class T>
hipError_t hipMallocPitch(T** ptr, std::size_t* pitch, std::size_t width, std::size_t height) {
    return hipMallocPitch(reinterpret_cast<void**>(ptr), pitch, width, height);
}
inline hipError_t hipMemcpy(void* dst, const void* src, std::size_t count, hipMemcpyKind kind) {
    if (unsigned(kind) > 4) return ::hipemu::record(hipErrorInvalidMemcpyDirection);
    if (count && (!dst || !src)) return ::hipemu::record(hipErrorInvalidValue);
    if (count) std::memmove(dst, src, count);
    return hipSuccess;
}
inline hipError_t hipMemcpyAsync(void* dst, const void* src, std::size_t count, hipMemcpyKind kind, hipStream_t = nullptr) {
    return hipMemcpy(dst, src, count, kind);
}
inline hipError_t hipMemcpy2D(void* dst, std::size_t dpitch, const void* src, std::size_t spitch, std::size_t width,
                              std::size_t height, hipMemcpyKind kind) {
    if (width > dpitch || width > spitch) return ::hipemu::record(hipErrorInvalidValue);
    for (std::size_t row = 0; row < height; ++row)
        if (hipError_t e = hipMemcpy(static_cast<char*>(dst) + row * dpitch,
                                     static_cast<const char*>(src) + row * spitch, width, kind))
            return e;
    return hipSuccess;
}
inline hipError_t hipMemcpy2DAsync(void* dst, std::size_t dpitch, const void* src, std::size_t spitch, std::size_t width,
                                   std::size_t height, hipMemcpyKind kind, hipStream_t = nullptr) {
    return hipMemcpy2D(dst, dpitch, src, spitch, width, height, kind);
}
inline hipError_t hipMemset(void* dst, int value, std::size_t count) {
    if (count && !dst) return ::hipemu::record(hipErrorInvalidValue);
    if (count) std::memset(dst, value, count);
    return hipSuccess;
}
inline hipError_t hipMemsetAsync(void* dst, int value, std::size_t count, hipStream_t = nullptr) { return hipMemset(dst, value, count); }
inline hipError_t hipMemset2D(void* dst, std::size_t pitch, int value, std::size_t width, std::size_t height) {
    if (width > pitch) return ::hipemu::record(hipErrorInvalidValue);
    for (std::size_t row = 0; row < height; ++row) std::memset(static_cast<char*>(dst) + row * pitch, value, width);
    return hipSuccess;
}
inline hipError_t hipMemset2DAsync(void* dst, std::size_t pitch, int value, std::size_t width, std::size_t height,
                                   hipStream_t = nullptr) {
    return hipMemset2D(dst, pitch, value, width, height);
}
inline hipError_t hipMemGetInfo(std::size_t* free_bytes, std::size_t* total) {
    if (free_bytes) *free_bytes = std::size_t(8) << 30;
    if (total) *total = std::size_t(8) << 30;
    return hipSuccess;
}

// ---- symbols (__device__ and __constant__ variables are host variables here) ----
inline hipError_t hipMemcpyToSymbol(::hipemu::Symbol symbol, const void* src, std::size_t count, std::size_t offset = 0,
                                    hipMemcpyKind kind = hipMemcpyHostToDevice) {
    if (offset + count > symbol.size) return ::hipemu::record(hipErrorInvalidValue);
    return hipMemcpy(static_cast<char*>(const_cast<void*>(symbol.address)) + offset, src, count, kind);
}
template <class T>
hipError_t hipMemcpyToSymbol(const T& symbol, const void* src, std::size_t count, std::size_t offset = 0,
                             hipMemcpyKind kind = hipMemcpyHostToDevice) {
    return hipMemcpyToSymbol(::hipemu::Symbol{&symbol, sizeof(T)}, src, count, offset, kind);
}
inline hipError_t hipMemcpyFromSymbol(void* dst, ::hipemu::Symbol symbol, std::size_t count, std::size_t offset = 0,
                                      hipMemcpyKind kind = hipMemcpyDeviceToHost) {
    if (offset + count > symbol.size) return ::hipemu::record(hipErrorInvalidValue);
    return hipMemcpy(dst, static_cast<const char*>(symbol.address) + offset, count, kind);
}
template <class T>
hipError_t hipMemcpyFromSymbol(void* dst, const T& symbol, std::size_t count, std::size_t offset = 0,
                               hipMemcpyKind kind = hipMemcpyDeviceToHost) {
    return hipMemcpyFromSymbol(dst, ::hipemu::Symbol{&symbol, sizeof(T)}, count, offset, kind);
}
template <class S>
hipError_t hipMemcpyToSymbolAsync(const S& symbol, const void* src, std::size_t count, std::size_t offset,
                                  hipMemcpyKind kind, hipStream_t = nullptr) {
    return hipMemcpyToSymbol(symbol, src, count, offset, kind);
}
template <class S>
hipError_t hipMemcpyFromSymbolAsync(void* dst, const S& symbol, std::size_t count, std::size_t offset,
                                    hipMemcpyKind kind, hipStream_t = nullptr) {
    return hipMemcpyFromSymbol(dst, symbol, count, offset, kind);
}
inline hipError_t hipGetSymbolSize(std::size_t* size, ::hipemu::Symbol symbol) {
    if (!size) return hipErrorInvalidValue;
    *size = symbol.size;
    return hipSuccess;
}
template <class T>
hipError_t hipGetSymbolSize(std::size_t* size, const T& symbol) { return hipGetSymbolSize(size, ::hipemu::Symbol{&symbol, sizeof(T)}); }
inline hipError_t hipGetSymbolAddress(void** address, ::hipemu::Symbol symbol) {
    if (!address) return hipErrorInvalidValue;
    *address = const_cast<void*>(symbol.address);
    return hipSuccess;
}
template <class T>
hipError_t hipGetSymbolAddress(void** address, const T& symbol) { return hipGetSymbolAddress(address, ::hipemu::Symbol{&symbol, sizeof(T)}); }

// ---- streams and events ----
inline hipError_t hipStreamCreate(hipStream_t* stream) {
    if (!stream) return hipErrorInvalidValue;
    *stream = new ihipStream_t{0, 0};
    return hipSuccess;
}
inline hipError_t hipStreamCreateWithFlags(hipStream_t* stream, unsigned int flags) {
    if (!stream) return hipErrorInvalidValue;
    *stream = new ihipStream_t{flags, 0};
    return hipSuccess;
}
inline hipError_t hipStreamCreateWithPriority(hipStream_t* stream, unsigned int flags, int priority) {
    if (!stream) return hipErrorInvalidValue;
    *stream = new ihipStream_t{flags, priority};
    return hipSuccess;
}
inline hipError_t hipDeviceGetStreamPriorityRange(int* least, int* greatest) {
    if (least) *least = 0;
    if (greatest) *greatest = -1;
    return hipSuccess;
}
inline hipError_t hipStreamDestroy(hipStream_t stream) { delete stream; return hipSuccess; }
inline hipError_t hipStreamSynchronize(hipStream_t) { return hipSuccess; }
inline hipError_t hipStreamQuery(hipStream_t) { return hipSuccess; }
inline hipError_t hipStreamWaitEvent(hipStream_t, hipEvent_t event, unsigned int = 0) {
    return event ? hipSuccess : ::hipemu::record(hipErrorInvalidResourceHandle);
}
inline hipError_t hipLaunchHostFunc(hipStream_t, hipHostFn_t fn, void* user_data) {
    if (!fn) return hipErrorInvalidValue;
    fn(user_data);
    return hipSuccess;
}
inline hipError_t hipEventCreateWithFlags(hipEvent_t* event, unsigned int flags) {
    if (!event) return hipErrorInvalidValue;
    *event = new ihipEvent_t{flags, false, {}};
    return hipSuccess;
}
inline hipError_t hipEventCreate(hipEvent_t* event) { return hipEventCreateWithFlags(event, 0); }
inline hipError_t hipEventDestroy(hipEvent_t event) { delete event; return hipSuccess; }
inline hipError_t hipEventRecord(hipEvent_t event, hipStream_t = nullptr) {
    if (!event) return ::hipemu::record(hipErrorInvalidResourceHandle);
    event->recorded = true;
    event->when = std::chrono::steady_clock::now();
    return hipSuccess;
}
inline hipError_t hipEventSynchronize(hipEvent_t event) { return event ? hipSuccess : hipErrorInvalidResourceHandle; }
inline hipError_t hipEventQuery(hipEvent_t event) { return event ? hipSuccess : hipErrorInvalidResourceHandle; }
inline hipError_t hipEventElapsedTime(float* ms, hipEvent_t start, hipEvent_t stop) {
    if (!ms) return hipErrorInvalidValue;
    if (!start || !stop) return ::hipemu::record(hipErrorInvalidResourceHandle);
    if (!start->recorded || !stop->recorded) return ::hipemu::record(hipErrorInvalidResourceHandle);
    if ((start->flags | stop->flags) & hipEventDisableTiming) return ::hipemu::record(hipErrorInvalidResourceHandle);
    *ms = std::chrono::duration<float, std::milli>(stop->when - start->when).count();
    return hipSuccess;
}

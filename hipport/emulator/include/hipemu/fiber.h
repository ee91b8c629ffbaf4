// hipport emulator: fibers (one per GPU thread that has to wait) and the switch between them.
// Written for hipport. x86-64: a hand-written stack switch of the callee-saved registers (the
// floating-point control words are not switched: device code does not change them, and saving
// them made the switch several times slower); elsewhere ucontext.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sys/mman.h>
#if !defined(__x86_64__)
#include <ucontext.h>
#endif

#if defined(__x86_64__)
extern "C" void hipemu_switch(void** save_sp, void* load_sp);
// Saves the callee-saved registers on the current stack, stores the stack pointer in *save_sp,
// loads load_sp and restores the state saved there. Weak: every translation unit defines it.
asm(R"(
    .pushsection .text
    .weak hipemu_switch
    .type hipemu_switch, @function
hipemu_switch:
    pushq %rbp
    pushq %rbx
    pushq %r12
    pushq %r13
    pushq %r14
    pushq %r15
    movq %rsp, (%rdi)
    movq %rsi, %rsp
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %rbx
    popq %rbp
    ret
    .size hipemu_switch, .-hipemu_switch
    .popsection
)");
#endif

namespace hipemu {

[[noreturn]] inline void fatal(const char* message) {
    std::fflush(stdout);
    std::fprintf(stderr, "hipport emulator: %s\n", message);
    std::exit(134);
}

// A fiber runs the GPU threads [next, end) of a thread group one after another on its own stack;
// when one of them waits (barrier, wavefront operation) the fiber keeps that thread and the
// scheduler gives the rest of the range to a new fiber.
struct Fiber {
    char* stack = nullptr;
    std::size_t size = 0;
    std::size_t color = 0;  // stack tops staggered by cache lines: no set conflicts between fibers
    int next = 0, end = 0, current = -1;
    bool finished = true;
#if defined(__x86_64__)
    void* sp = nullptr;
#else
    ucontext_t context;
#endif
};

inline constexpr std::size_t kStackBytes = 256 * 1024;  // per fiber; pages are committed on use
inline Fiber* g_fiber = nullptr;                        // the fiber running now (null: scheduler)
#if defined(__x86_64__)
inline void* g_scheduler_sp = nullptr;
#else
inline ucontext_t g_scheduler_context;
#endif

inline void fiber_main();  // defined in device.h: the loop over the fiber's range of threads

#if defined(__x86_64__)
extern "C" inline void hipemu_fiber_entry() { fiber_main(); std::abort(); }
#else
inline void hipemu_fiber_entry_uc() { fiber_main(); std::abort(); }
#endif

// Prepare `fiber` to start in fiber_main the next time it is resumed.
inline void fiber_start(Fiber& fiber) {
    if (!fiber.stack) {
        void* memory = mmap(nullptr, kStackBytes, PROT_READ | PROT_WRITE,
                            MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (memory == MAP_FAILED) fatal("cannot map a fiber stack");
        mprotect(memory, 4096, PROT_NONE);  // guard page: a stack overflow faults
        fiber.stack = static_cast<char*>(memory);
        fiber.size = kStackBytes;
        static std::size_t fibers = 0;
        fiber.color = (fibers++ % 63) * 64 + 64;
    }
#if defined(__x86_64__)
    auto top = reinterpret_cast<std::uintptr_t>(fiber.stack + fiber.size - fiber.color) & ~std::uintptr_t(15);
    auto* frame = reinterpret_cast<std::uint64_t*>(top - 64);  // 64: entry sees rsp % 16 == 8
    for (int i = 0; i < 6; ++i) frame[i] = 0;                   // r15 r14 r13 r12 rbx rbp
    frame[6] = reinterpret_cast<std::uint64_t>(&hipemu_fiber_entry);
    frame[7] = 0;
    fiber.sp = frame;
#else
    getcontext(&fiber.context);
    fiber.context.uc_stack.ss_sp = fiber.stack + 4096;
    fiber.context.uc_stack.ss_size = fiber.size - 4096;
    fiber.context.uc_link = nullptr;
    makecontext(&fiber.context, hipemu_fiber_entry_uc, 0);
#endif
}

// Scheduler -> fiber.
inline void fiber_resume(Fiber& fiber) {
    g_fiber = &fiber;
#if defined(__x86_64__)
    hipemu_switch(&g_scheduler_sp, fiber.sp);
#else
    swapcontext(&g_scheduler_context, &fiber.context);
#endif
    g_fiber = nullptr;
}

// Fiber -> fiber, without the scheduler in between (returns when `from` is resumed).
inline void fiber_switch(Fiber& from, Fiber& to) {
    g_fiber = &to;
#if defined(__x86_64__)
    hipemu_switch(&from.sp, to.sp);
#else
    swapcontext(&from.context, &to.context);
#endif
}

// Fiber -> scheduler (returns when the scheduler resumes this fiber).
inline void fiber_yield() {
    Fiber* self = g_fiber;
#if defined(__x86_64__)
    hipemu_switch(&self->sp, g_scheduler_sp);
#else
    swapcontext(&self->context, &g_scheduler_context);
#endif
}

}  // namespace hipemu

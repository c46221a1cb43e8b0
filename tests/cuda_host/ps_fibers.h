// The invocations of one workgroup as fibers of one OS thread, for kernels with barriers
// (tests/cuda_host.py, tests/msl_host.py). A barrier switches to the next invocation
// that has not finished, round robin, so every invocation reaches barrier k before any
// goes past it (pyshade checks at translation that barriers are in uniform control
// flow). A thread per invocation did the same with a std::barrier, but made hundreds of
// threads per launch and woke each at every barrier: a radix sort spent most of its
// time in the kernel's futexes.
#pragma once
#include <ucontext.h>

#include <functional>
#include <memory>
#include <vector>

struct ps_fibers {
    static constexpr std::size_t STACK = 128 * 1024;
    unsigned n, cur = 0, left = 0;
    std::vector<ucontext_t> ctx;
    std::vector<char> done;
    std::unique_ptr<char[]> stacks;
    ucontext_t main_ctx;
    std::function<void(unsigned)> body;
    void (*resume)(unsigned) = nullptr;    // restores a resumed invocation's ids, if any

    explicit ps_fibers(unsigned count)
        : n(count), ctx(count), done(count), stacks(new char[count * STACK]) {}

    unsigned next_after(unsigned me) const {
        for (unsigned k = 1; k <= n; ++k)
            if (!done[(me + k) % n]) return (me + k) % n;
        return me;
    }
    // Run body(t) for every invocation t in 0..n-1; returns when all have finished.
    void run(std::function<void(unsigned)> fn);
    // A barrier: on to the next invocation that has not finished.
    void yield() {
        unsigned me = cur, nx = next_after(me);
        if (nx == me) return;
        cur = nx;
        swapcontext(&ctx[me], &ctx[nx]);
        if (resume) resume(me);
    }
};

inline thread_local ps_fibers* ps_host_fibers = nullptr;

inline void ps_fiber_entry() {
    ps_fibers* f = ps_host_fibers;
    unsigned me = f->cur;
    if (f->resume) f->resume(me);
    f->body(me);
    f->done[me] = 1;
    if (--f->left == 0) setcontext(&f->main_ctx);
    f->cur = f->next_after(me);
    setcontext(&f->ctx[f->cur]);
}

inline void ps_fibers::run(std::function<void(unsigned)> fn) {
    body = std::move(fn);
    left = n;
    for (unsigned t = 0; t < n; ++t) {
        done[t] = 0;
        getcontext(&ctx[t]);
        ctx[t].uc_stack.ss_sp = stacks.get() + t * STACK;
        ctx[t].uc_stack.ss_size = STACK;
        ctx[t].uc_link = &main_ctx;
        makecontext(&ctx[t], ps_fiber_entry, 0);
    }
    ps_fibers* outer = ps_host_fibers;
    ps_host_fibers = this;
    cur = 0;
    swapcontext(&main_ctx, &ctx[0]);
    ps_host_fibers = outer;
}

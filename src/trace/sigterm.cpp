#include "sigterm.h"

#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <cerrno>
#include <mutex>

namespace mspti_trace {
namespace {

using SigactionFn = int (*)(int, const struct sigaction *, struct sigaction *);

// libc's sigaction, resolved before our handler can run (dlsym is not async-signal-safe).
std::atomic<SigactionFn> g_real{nullptr};

SigactionFn real_sigaction() {
    SigactionFn f = g_real.load(std::memory_order_acquire);
    if (f == nullptr) {
        f = reinterpret_cast<SigactionFn>(dlsym(RTLD_NEXT, "sigaction"));
        g_real.store(f, std::memory_order_release);
    }
    return f;
}

SigtermActions g_actions{};
std::atomic<bool> g_installed{false};
std::mutex g_update;  // one change of the program's view at a time (never taken by the handler)
// The program's view of SIGTERM, double-buffered so that the handler reads a whole one.
struct sigaction g_views[2];
std::atomic<int> g_view{0};

bool is_ignore(const struct sigaction &sa) { return !(sa.sa_flags & SA_SIGINFO) && sa.sa_handler == SIG_IGN; }
bool is_default(const struct sigaction &sa) { return !(sa.sa_flags & SA_SIGINFO) && sa.sa_handler == SIG_DFL; }

void on_sigterm(int sig, siginfo_t *info, void *context);

// Makes `view` the program's disposition: ours in front of it, except for SIG_IGN, which stays a
// real SIG_IGN (it then survives an exec, as the program expects). Caller holds g_update.
int apply(const struct sigaction &view) {
    struct sigaction real {};
    if (is_ignore(view)) {
        real = view;
    } else {
        real.sa_sigaction = on_sigterm;
        // The program's mask and flags (SA_RESTART or not matters to it), with our calling convention.
        real.sa_mask = view.sa_mask;
        real.sa_flags = (view.sa_flags | SA_SIGINFO) & ~SA_RESETHAND;
    }
    int rc = real_sigaction()(SIGTERM, &real, nullptr);
    if (rc != 0) return rc;
    int next = 1 - g_view.load(std::memory_order_relaxed);
    g_views[next] = view;
    g_view.store(next, std::memory_order_release);
    return 0;
}

void chain(const struct sigaction &view, int sig, siginfo_t *info, void *context) {
    if (view.sa_flags & SA_SIGINFO) {
        if (view.sa_sigaction != nullptr) view.sa_sigaction(sig, info, context);
    } else if (view.sa_handler != SIG_DFL && view.sa_handler != SIG_IGN) {
        view.sa_handler(sig);
    }
}

void on_sigterm(int sig, siginfo_t *info, void *context) {
    int saved_errno = errno;
    struct sigaction view = g_views[g_view.load(std::memory_order_acquire)];
    if (is_ignore(view)) return;  // SIG_IGN set while the signal was on its way
    if (is_default(view)) {
        // The process is about to die: write everything, then die of the signal as it would have.
        if (g_actions.finish != nullptr) g_actions.finish();
        struct sigaction dfl {};
        dfl.sa_handler = SIG_DFL;
        sigemptyset(&dfl.sa_mask);
        real_sigaction()(SIGTERM, &dfl, nullptr);
        raise(SIGTERM);  // blocked until this handler returns
        errno = saved_errno;
        return;
    }
    // The program's handler decides: what was delivered so far is on disk whatever it does.
    if (g_actions.sync != nullptr) g_actions.sync();
    if (view.sa_flags & SA_RESETHAND) {
        // One-shot, as the program asked: its next SIGTERM gets the default (through us).
        struct sigaction dfl {};
        dfl.sa_handler = SIG_DFL;
        sigemptyset(&dfl.sa_mask);
        int next = 1 - g_view.load(std::memory_order_relaxed);
        g_views[next] = dfl;
        g_view.store(next, std::memory_order_release);
    }
    errno = saved_errno;
    chain(view, sig, info, context);
}

}  // namespace

void install_sigterm(const SigtermActions &actions) {
    std::lock_guard<std::mutex> lock(g_update);
    if (g_installed.load()) return;
    SigactionFn real = real_sigaction();
    if (real == nullptr) return;
    g_actions = actions;
    // A child forked while another thread changes SIGTERM must not inherit g_update taken.
    pthread_atfork([] { g_update.lock(); }, [] { g_update.unlock(); }, [] { g_update.unlock(); });
    struct sigaction current {};
    if (real(SIGTERM, nullptr, &current) != 0) return;
    if (apply(current) == 0) g_installed.store(true, std::memory_order_release);
}

}  // namespace mspti_trace

using namespace mspti_trace;

extern "C" {

// In front of libc's: SIGTERM changes go to the program's view while our handler stays in front.
__attribute__((visibility("default"))) int sigaction(int sig, const struct sigaction *act, struct sigaction *oldact) {
    SigactionFn real = real_sigaction();
    if (sig != SIGTERM || !g_installed.load(std::memory_order_acquire)) return real(sig, act, oldact);
    std::lock_guard<std::mutex> lock(g_update);
    struct sigaction previous = g_views[g_view.load(std::memory_order_relaxed)];
    if (act != nullptr) {
        int rc = apply(*act);
        if (rc != 0) return rc;
    }
    if (oldact != nullptr) *oldact = previous;
    return 0;
}

// glibc's signal() does not go through sigaction's symbol: BSD semantics, as glibc gives them.
__attribute__((visibility("default"))) sighandler_t signal(int sig, sighandler_t handler) {
    if (sig != SIGTERM || !g_installed.load(std::memory_order_acquire)) {
        using SignalFn = sighandler_t (*)(int, sighandler_t);
        static SignalFn real_signal = reinterpret_cast<SignalFn>(dlsym(RTLD_NEXT, "signal"));
        return real_signal(sig, handler);
    }
    struct sigaction sa {
    }, old{};
    sa.sa_handler = handler;
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, sig);
    sa.sa_flags = SA_RESTART;
    if (sigaction(sig, &sa, &old) != 0) return SIG_ERR;
    if (!(old.sa_flags & SA_SIGINFO)) return old.sa_handler;
    return reinterpret_cast<sighandler_t>(reinterpret_cast<void (*)()>(old.sa_sigaction));  // as glibc returns it
}

}  // extern "C"

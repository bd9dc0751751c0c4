// The preloaded client: at load it reads the launcher's options, subscribes, registers the
// writer's buffer callbacks and enables the kinds; at exit and on SIGTERM it has everything
// written (sigterm.cpp). It defines msptiSubscribe, msptiActivityRegisterCallbacks, msptiActivityEnable and
// msptiActivityDisable in front of libmspti's, so that a program with its own msPTI client gets
// the library to itself: the trace stops, the program's calls go through.
#include <dlfcn.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <string>

#include "config.h"
#include "libmspti_ext.h"
#include "mspti/mspti.h"
#include "sigterm.h"
#include "writer.h"
#include "write_fault.h"

namespace mspti_trace {
namespace {

using SubscribeFn = msptiResult (*)(msptiSubscriberHandle *, msptiCallbackFunc, void *);
using RegisterFn = msptiResult (*)(msptiBuffersCallbackRequestFunc, msptiBuffersCallbackCompleteFunc);
using KindFn = msptiResult (*)(msptiActivityKind);

struct Real {
    SubscribeFn subscribe = nullptr;
    RegisterFn register_callbacks = nullptr;
    KindFn enable = nullptr;
    KindFn disable = nullptr;
};

Real &real() {
    static Real r = [] {
        Real x;
        x.subscribe = reinterpret_cast<SubscribeFn>(dlsym(RTLD_NEXT, "msptiSubscribe"));
        x.register_callbacks = reinterpret_cast<RegisterFn>(dlsym(RTLD_NEXT, "msptiActivityRegisterCallbacks"));
        x.enable = reinterpret_cast<KindFn>(dlsym(RTLD_NEXT, "msptiActivityEnable"));
        x.disable = reinterpret_cast<KindFn>(dlsym(RTLD_NEXT, "msptiActivityDisable"));
        return x;
    }();
    return r;
}

// A function-local static: the constructor below may run before this file's static initialisers.
Config &config() {
    static Config c;
    return c;
}
Writer *g_writer = nullptr;  // never destroyed: callbacks may come during exit
msptiSubscriberHandle g_subscriber = nullptr;
std::atomic<uint32_t> g_ours{0};  // kinds this library enabled (bit per kind)
std::atomic<uint32_t> g_theirs{0};  // kinds the program enabled itself
std::atomic<bool> g_active{false};
std::mutex g_stop_mutex;

void request(uint8_t **buffer, size_t *size, size_t *maxNumRecords) {
    g_writer->on_request(buffer, size, maxNumRecords);
}
void complete(uint8_t *buffer, size_t size, size_t validSize) { g_writer->on_complete(buffer, size, validSize); }

// Everything delivered so far goes to the file, which is then closed.
void stop_tracing(bool unsubscribe) {
    std::lock_guard<std::mutex> lock(g_stop_mutex);
    if (!g_active.exchange(false)) return;
    msptiActivityFlushAll(1);
    g_writer->finish(10000);
    uint32_t ours = g_ours.exchange(0), theirs = g_theirs.load();
    for (int k = 1; k < MSPTI_ACTIVITY_KIND_COUNT; ++k)
        if ((ours & (1u << k)) && !(theirs & (1u << k)) && real().disable != nullptr)
            real().disable(static_cast<msptiActivityKind>(k));
    if (unsubscribe && g_subscriber != nullptr) {
        msptiUnsubscribe(g_subscriber);
        g_subscriber = nullptr;
    }
}

void step_aside(const char *function, bool unsubscribe) {
    if (g_active.load())
        std::fprintf(stderr,
                     "mspti-trace: the program registers its own msPTI client (%s); tracing stops in this process "
                     "(pid %d) and the program's client gets the records\n",
                     function, static_cast<int>(getpid()));
    stop_tracing(unsubscribe);
    if (unsubscribe && g_subscriber != nullptr) {  // tracing had already stopped at exit or SIGTERM
        std::lock_guard<std::mutex> lock(g_stop_mutex);
        msptiUnsubscribe(g_subscriber);
        g_subscriber = nullptr;
    }
}

void at_exit() { stop_tracing(false); }

// A forked child has no writer thread: it is not traced (an exec traces it again).
// Around fork() (pthread_atfork, registered after libmspti's handlers: these run before them, and
// the writer's lock is never held while calling libmspti).
void before_fork() {
    if (g_writer != nullptr) g_writer->lock_for_fork();
}
void in_parent() {
    if (g_writer != nullptr) g_writer->unlock_after_fork();
}
void in_child() {
    g_active.store(false);
    if (g_writer != nullptr) g_writer->unlock_after_fork();
    // A thread of the parent that was stopping the tracer does not exist here: nothing stops it in
    // the child (not active), and the child's exit takes this lock.
    new (&g_stop_mutex) std::mutex();
}

// SIGTERM (sigterm.cpp): the process dies of it, or the program's own handler takes it.
void finish_on_signal() {
    if (g_active.load() && g_writer != nullptr) {
        g_writer->finish_from_signal();
        g_writer->wait_finished(5000);
    }
}

void sync_on_signal() {
    if (g_active.load() && g_writer != nullptr) g_writer->sync_from_signal(5000);
}

__attribute__((constructor)) void init() {
    std::string error;
    if (!config().load(error) || !load_write_fault(error)) {
        std::fprintf(stderr, "mspti-trace: %s; this process is not traced\n", error.c_str());
        return;
    }
    if (config().dir.empty()) return;
    Real &r = real();
    libmspti_ext();  // says once what this libmspti.so lacks
    if (r.subscribe == nullptr || r.register_callbacks == nullptr || r.enable == nullptr || r.disable == nullptr) {
        std::fprintf(stderr,
                     "mspti-trace: libmspti.so is not loaded after libmspti_trace.so; this process is not traced\n");
        return;
    }
    g_writer = new Writer(config());
    g_writer->start();
    // libmspti's threads start here: they inherit a mask without SIGTERM, so the handler
    // never runs on (and waits for) the thread that delivers buffers.
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    msptiResult res = r.subscribe(&g_subscriber, nullptr, nullptr);
    if (res == MSPTI_SUCCESS) res = r.register_callbacks(request, complete);
    if (res == MSPTI_SUCCESS) msptiActivityFlushPeriod(config().flush_ms);
    uint32_t ours = 0;
    for (msptiActivityKind k : config().kinds) {
        msptiResult e = r.enable(k);
        if (e == MSPTI_SUCCESS)
            ours |= 1u << k;
        else
            std::fprintf(stderr, "mspti-trace: cannot enable %s: %s\n", kind_name(k), last_error_text());
    }
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
    if (res != MSPTI_SUCCESS) {
        std::fprintf(stderr, "mspti-trace: cannot register with msPTI (%s: %s); this process is not traced\n",
                     result_text(res), last_error_text());
        return;
    }
    g_ours = ours;
    g_active = true;
    // After libmspti's own exit handler was registered, so that this one runs first.
    std::atexit(at_exit);
    pthread_atfork(before_fork, in_parent, in_child);
    install_sigterm(SigtermActions{finish_on_signal, sync_on_signal});
}

}  // namespace
}  // namespace mspti_trace

using namespace mspti_trace;

extern "C" {

__attribute__((visibility("default"))) msptiResult msptiSubscribe(msptiSubscriberHandle *subscriber,
                                                                  msptiCallbackFunc callback, void *userdata) {
    if (real().subscribe == nullptr) return MSPTI_ERROR_INNER;
    step_aside("msptiSubscribe", true);
    return real().subscribe(subscriber, callback, userdata);
}

__attribute__((visibility("default"))) msptiResult msptiActivityRegisterCallbacks(
    msptiBuffersCallbackRequestFunc funcBufferRequested, msptiBuffersCallbackCompleteFunc funcBufferCompleted) {
    if (real().register_callbacks == nullptr) return MSPTI_ERROR_INNER;
    if (funcBufferRequested != nullptr && funcBufferCompleted != nullptr)
        step_aside("msptiActivityRegisterCallbacks", false);
    return real().register_callbacks(funcBufferRequested, funcBufferCompleted);
}

__attribute__((visibility("default"))) msptiResult msptiActivityEnable(msptiActivityKind kind) {
    if (real().enable == nullptr) return MSPTI_ERROR_INNER;
    msptiResult r = real().enable(kind);
    if (r == MSPTI_SUCCESS && kind > 0 && kind < MSPTI_ACTIVITY_KIND_COUNT) g_theirs |= 1u << kind;
    return r;
}

__attribute__((visibility("default"))) msptiResult msptiActivityDisable(msptiActivityKind kind) {
    if (real().disable == nullptr) return MSPTI_ERROR_INNER;
    if (kind > 0 && kind < MSPTI_ACTIVITY_KIND_COUNT) {
        g_theirs &= ~(1u << kind);
        if (g_active.load() && (g_ours.load() & (1u << kind))) return MSPTI_SUCCESS;  // still traced
    }
    return real().disable(kind);
}

}  // extern "C"

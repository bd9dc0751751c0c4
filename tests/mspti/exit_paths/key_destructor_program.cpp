// Threads whose first record comes from a pthread key destructor, i.e. after the thread's C++
// thread-locals are destroyed: their records are delivered and their staging is freed, so
// thousands of such threads do not pile up memory. Exit status 0 = delivered and no growth.
#include <pthread.h>

#include <cstdio>
#include <cstdlib>
#include <malloc.h>
#include <string>

#include "exit_collector.h"
#include "mstx/ms_tools_ext.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
// From the sanitizer runtime, which replaces malloc (gcc ships no header declaring it).
extern "C" size_t __sanitizer_get_current_allocated_bytes(void);
#endif

using namespace exit_test;

namespace {

constexpr int kThreads = 1000;
pthread_key_t g_key;

// Bytes allocated by malloc and not freed (every arena, mmapped chunks included).
size_t AllocatedBytes() {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    return __sanitizer_get_current_allocated_bytes();
#else
    struct mallinfo2 info = mallinfo2();
    return info.uordblks + info.hblkhd;
#endif
}

void MarkOnExit(void *) { mstxMarkA("from a key destructor", nullptr); }

bool g_mark_in_thread = false;

void *Thread(void *) {
    if (g_mark_in_thread) mstxMarkA("in the thread", nullptr);
    pthread_setspecific(g_key, reinterpret_cast<void *>(1));  // the destructor runs at thread exit
    return nullptr;
}

}  // namespace

// Modes: "user-key-first" (our key destructor runs after the user's in the same round),
// "library-key-first" (before it: the staging is retired in the next round), and
// "library-key-first-thread-records" (the thread's own staging is retired first; the key
// destructor's mark needs a second, small one).
int main(int argc, char **argv) {
    std::string mode = argc > 1 ? argv[1] : "user-key-first";
    bool user_key_first = mode == "user-key-first";
    g_mark_in_thread = mode == "library-key-first-thread-records";
    if (user_key_first) pthread_key_create(&g_key, &MarkOnExit);
    msptiActivityRegisterCallbacks(&Request, &Complete);
    msptiActivityEnable(MSPTI_ACTIVITY_KIND_MARKER);
    mstxMarkA("warm-up", nullptr);  // creates the library's key
    if (!user_key_first) pthread_key_create(&g_key, &MarkOnExit);
    msptiActivityFlushAll(1);
    size_t before = AllocatedBytes();

    for (int i = 0; i < kThreads; ++i) {
        pthread_t thread;
        if (pthread_create(&thread, nullptr, &Thread, nullptr) != 0) return 2;
        pthread_join(thread, nullptr);
    }
    msptiActivityFlushAll(1);
    size_t after = AllocatedBytes();

    msptiExtActivityStats s = MarkerStats();
    size_t received = Count("from a key destructor");
    long long growth = static_cast<long long>(after) - static_cast<long long>(before);
    // A staging ring is 8192 records of 72 bytes: leaked ones would add ~590 MB here.
    bool ok = received == kThreads && Count("in the thread") == (g_mark_in_thread ? kThreads : 0) &&
              s.produced == s.delivered + s.dropped && s.dropped == 0 && growth < 32ll * 1024 * 1024;
    std::printf("%s: threads %d received %zu produced %llu dropped %llu heap growth %lld bytes: %s\n", mode.c_str(),
                kThreads, received, static_cast<unsigned long long>(s.produced),
                static_cast<unsigned long long>(s.dropped), growth, ok ? "ok" : "FAILED");
    return ok ? 0 : 1;
}

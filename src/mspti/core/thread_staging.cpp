#include "core/thread_staging.h"

#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdlib>

namespace mspti {

constinit thread_local ThreadStaging *t_staging = nullptr;

namespace {

thread_local bool t_exited = false;  // this thread's staging was retired (it is ending)

// Staging ring size in records (power of two); MSPTI_STAGING_RECORDS overrides.
uint32_t staging_capacity() {
    static const uint32_t capacity = [] {
        uint32_t value = 8192;
        if (const char *env = std::getenv("MSPTI_STAGING_RECORDS")) {
            unsigned long requested = std::strtoul(env, nullptr, 10);
            if (requested >= 64 && requested <= (1ul << 24) && (requested & (requested - 1)) == 0)
                value = static_cast<uint32_t>(requested);
        }
        return value;
    }();
    return capacity;
}

// Capacity of a staging made after the thread's own was retired (a later pthread key
// destructor recording again): such a thread is about to end, so it gets a small ring. (Only a
// ring first made in glibc's last destructor round, the 4th, is never retired: 64 slots.)
constexpr uint32_t kLateStagingCapacity = 64;

// The thread's staging is retired by a pthread key destructor rather than a C++ thread_local
// destructor: key destructors run after every thread_local destructor, they run again (up to
// PTHREAD_DESTRUCTOR_ITERATIONS rounds) for a key set by another key's destructor, and they do
// not run for the main thread at exit(), whose staging therefore stays usable for marks made by
// atexit handlers and global destructors.
void retire_staging(void *value) {
    auto *s = static_cast<ThreadStaging *>(value);
    if (t_staging == s) t_staging = nullptr;
    t_exited = true;
    s->retired.store(true, std::memory_order_release);
}

pthread_key_t staging_key() {
    static const pthread_key_t key = [] {
        pthread_key_t k;
        if (pthread_key_create(&k, &retire_staging) != 0) std::abort();  // out of keys at load
        return k;
    }();
    return key;
}

}  // namespace

ThreadStaging::ThreadStaging(uint32_t capacity)
    : ring(capacity), pid(getpid()), tid(static_cast<pid_t>(syscall(SYS_gettid))) {
    host_object.pt.processId = static_cast<uint32_t>(pid);
    host_object.pt.threadId = static_cast<uint32_t>(tid);
}

void ThreadStaging::restart_after_fork() {
    ring.restart_after_fork();
    pid = getpid();
    tid = static_cast<pid_t>(syscall(SYS_gettid));
    host_object.pt.processId = static_cast<uint32_t>(pid);
    host_object.pt.threadId = static_cast<uint32_t>(tid);
}

ThreadStaging *ThreadStaging::make_for_this_thread() {
    pthread_key_t key = staging_key();
    auto *s = new ThreadStaging(t_exited ? kLateStagingCapacity : staging_capacity());
    if (pthread_setspecific(key, s) != 0) {
        delete s;  // nothing would retire it
        return nullptr;
    }
    return s;
}

ThreadStaging *ThreadStaging::make_shared() { return new ThreadStaging(staging_capacity()); }

void ThreadStaging::settle_capacity() { staging_capacity(); }

void StagingList::restart_after_fork(ThreadStaging *own) {
    ThreadStaging **link = &head_;
    while (*link != nullptr) {
        ThreadStaging *s = *link;
        if (s == own) {
            s->restart_after_fork();
            link = &s->next;
        } else {
            *link = s->next;
            delete s;
        }
    }
}

}  // namespace mspti

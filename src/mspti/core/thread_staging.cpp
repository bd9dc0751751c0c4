#include "core/thread_staging.h"

#include <sys/syscall.h>
#include <unistd.h>

namespace mspti {

ThreadStaging::ThreadStaging(uint32_t capacity)
    : ring(capacity), pid(getpid()), tid(static_cast<pid_t>(syscall(SYS_gettid))) {}

void ThreadStaging::restart_after_fork() {
    ring.restart_after_fork();
    pid = getpid();
    tid = static_cast<pid_t>(syscall(SYS_gettid));
}

}  // namespace mspti

#include "core/thread_staging.h"

#include "core/marker_names.h"

#include <sys/syscall.h>
#include <unistd.h>

namespace mspti {

ThreadStaging::ThreadStaging(uint32_t capacity)
    : capacity_(capacity), mask_(capacity - 1), nudge_mask_(capacity / 4 - 1), slots_(new StagingSlot[capacity]) {
    pid = getpid();
    tid = static_cast<pid_t>(syscall(SYS_gettid));
}

ThreadStaging::~ThreadStaging() {
    // Drained by now: the cached names may go once the buffers holding their records are back.
    for (InternEntry &entry : intern_cache) names::release(entry.interned);
    delete[] slots_;
}

}  // namespace mspti

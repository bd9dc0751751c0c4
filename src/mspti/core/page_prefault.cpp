#include "core/page_prefault.h"

#include <atomic>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23  // Linux 5.14
#endif

namespace mspti {

namespace {

size_t page_size() {
    static const size_t size = [] {
        long p = sysconf(_SC_PAGESIZE);
        return p > 0 ? static_cast<size_t>(p) : size_t{4096};
    }();
    return size;
}

// Cleared once the kernel refuses MADV_POPULATE_WRITE (older than 5.14, or not a plain
// mapping): later buffers are touched page by page straight away.
std::atomic<bool> g_populate_works{true};

void prefault_range(uint8_t *data, size_t size) {
    if (size == 0) return;
    const size_t page = page_size();
    const uintptr_t first = reinterpret_cast<uintptr_t>(data);
    const uintptr_t end = first + size;
    // Whole pages inside the buffer: one system call faults them all in, without the kernel
    // returning to user space 2,048 times for an 8 MB buffer. The pages at either end may be
    // shared with the client's other data: those are written below, inside the buffer only.
    const uintptr_t inner_begin = (first + page - 1) & ~(page - 1);
    const uintptr_t inner_end = end & ~(page - 1);
    bool populated = false;
    if (inner_end > inner_begin && g_populate_works.load(std::memory_order_relaxed)) {
        populated = madvise(reinterpret_cast<void *>(inner_begin), inner_end - inner_begin, MADV_POPULATE_WRITE) == 0;
        if (!populated) g_populate_works.store(false, std::memory_order_relaxed);
    }
    volatile uint8_t *bytes = data;
    if (!populated) {
        // One write a page: the buffer's bytes are ours until it is handed back.
        for (size_t at = 0; at < size; at += page) bytes[at] = 0;
    }
    bytes[0] = 0;
    bytes[size - 1] = 0;
}

}  // namespace

void prefault_pages(uint8_t *data, size_t size) {
    if (data == nullptr || size == 0) return;
    if (size <= kPrefaultMax) {
        prefault_range(data, size);
        return;
    }
    // A big buffer (a Monitor's of 256 MB, say) may never fill: its start, where records go, and
    // its end, where their names go, only; the rest faults as it is reached.
    prefault_range(data, kPrefaultMax - kPrefaultTail);
    prefault_range(data + size - kPrefaultTail, kPrefaultTail);
}

}  // namespace mspti

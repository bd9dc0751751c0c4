#include "mstx/thread_markers.h"

#include <atomic>

#include "core/activity_engine.h"
#include "core/marker_names.h"

namespace mspti::mstx {
namespace {

constexpr uint64_t kIdBlock = 256;
std::atomic<uint64_t> g_next_id_block{1};

}  // namespace

ThreadMarkers::~ThreadMarkers() {
    for (Entry &entry : cache_) names::release(entry.interned);
}

void ThreadMarkers::take_id_block() {
    next_id_ = g_next_id_block.fetch_add(kIdBlock, std::memory_order_relaxed);
    id_limit_ = next_id_ + kIdBlock;
}

void ThreadMarkers::set_last(const Entry &entry) {
    last_.key = kNoKey;
    waiting_ = nullptr;
#ifdef MSPTI_WIDE_NAME_COMPARE
    if (!clock::raw_ticks_in_use()) {
        waiting_ = &entry;  // mirrored by mirror_waiting() once they are
        return;
    }
    const size_t length = names::node_of(entry.interned)->length;
    if (length < names::kTextReadable && (reinterpret_cast<uintptr_t>(entry.key) & 4095) <= 4096 - 16) {
        std::memcpy(last_.text, entry.interned, sizeof(last_.text));  // kTextReadable bytes
        last_.need = (2u << length) - 1;
        last_.interned = entry.interned;
        last_.key = entry.key;
    }
#else
    (void)entry;
#endif
}

void ThreadMarkers::mirror_waiting_slow() {
    // The entry still holds the name interned last: any other interning would have replaced it.
    if (clock::raw_ticks_in_use())
        set_last(*waiting_);
    else if (!clock::uses_tsc())
        waiting_ = nullptr;  // they never will be
}

uint64_t ThreadMarkers::take_shared_id() { return g_next_id_block.fetch_add(kIdBlock, std::memory_order_relaxed); }

const char *ThreadMarkers::intern_slow(Entry &entry, const char *message) {
    size_t length = strnlen(message, 255);
    if (length == 255) return nullptr;
    // Pin the new name before unpinning the one it replaces (they may be the same). The entry
    // pins it: the name is reclaimed after the entry is reused (or the thread's staging freed)
    // and every record pointing to it has been delivered.
    const char *previous = entry.interned;
    entry.key = message;
    entry.interned = names::acquire(message, length);
    set_last(entry);  // before the release: last_ may mirror this entry with its previous name
    names::release(previous);
    if (__builtin_expect(names::many_retired(), 0)) ActivityEngine::instance().free_retired_names();
    return entry.interned;
}

}  // namespace mspti::mstx

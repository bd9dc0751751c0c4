#include "memory_registry.h"

#include <pthread.h>

#include <mutex>
#include <new>

namespace vnpu {

MemoryRegistry &MemoryRegistry::get() {
    static auto *registry = [] {
        auto *r = new MemoryRegistry;  // leaked: usable by workers during exit
        // A child forked while another thread held the lock would wait for it forever on its first
        // allocation: it is taken around fork() (a leaf lock: nothing else is taken under it). The
        // child gets a new one: an rwlock unlocked there would hand over to the parent's waiting
        // writers, which the child does not have.
        pthread_atfork([] { get().mu_.lock(); }, [] { get().mu_.unlock(); },
                       [] { new (&get().mu_) std::shared_mutex(); });
        return r;
    }();
    return *registry;
}

void MemoryRegistry::add(const Allocation &allocation) {
    std::unique_lock<std::shared_mutex> lock(mu_);
    blocks_[allocation.base] = allocation;
}

std::optional<Allocation> MemoryRegistry::remove(const void *base, MemoryKind kind) {
    std::unique_lock<std::shared_mutex> lock(mu_);
    auto it = blocks_.find(reinterpret_cast<uintptr_t>(base));
    if (it == blocks_.end() || it->second.kind != kind) {
        return std::nullopt;
    }
    Allocation found = it->second;
    blocks_.erase(it);
    return found;
}

std::optional<Allocation> MemoryRegistry::find(const void *p) const {
    const auto address = reinterpret_cast<uintptr_t>(p);
    std::shared_lock<std::shared_mutex> lock(mu_);
    auto it = blocks_.upper_bound(address);
    if (it == blocks_.begin()) {
        return std::nullopt;
    }
    --it;
    const Allocation &block = it->second;
    if (address - block.base < block.size) {
        return block;
    }
    return std::nullopt;
}

bool MemoryRegistry::contains(const void *p, size_t bytes, MemoryKind kind) const {
    auto block = find(p);
    if (!block || block->kind != kind) {
        return false;
    }
    const uintptr_t offset = reinterpret_cast<uintptr_t>(p) - block->base;
    return bytes <= block->size - offset;
}

bool MemoryRegistry::contains_any(const void *p, size_t bytes) const {
    auto block = find(p);
    if (!block) {
        return false;
    }
    const uintptr_t offset = reinterpret_cast<uintptr_t>(p) - block->base;
    return bytes <= block->size - offset;
}

}  // namespace vnpu

// Every block handed out by aclrtMalloc / aclrtMallocHost, so that device pointers and sizes can be checked.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <shared_mutex>

namespace vnpu {

enum class MemoryKind { Device, Host };

struct Allocation {
    uintptr_t base = 0;
    size_t size = 0;  // bytes the caller asked for: the checked range
    MemoryKind kind = MemoryKind::Device;
    int32_t device_id = -1;
};

class MemoryRegistry {
public:
    static MemoryRegistry &get();

    void add(const Allocation &allocation);
    /// Removes the block starting exactly at `base` if it is of `kind`.
    std::optional<Allocation> remove(const void *base, MemoryKind kind);
    /// The block containing `p`, if any.
    std::optional<Allocation> find(const void *p) const;
    /// True if [p, p + bytes) lies inside one block of `kind`.
    bool contains(const void *p, size_t bytes, MemoryKind kind) const;
    /// True if [p, p + bytes) lies inside one block of any kind.
    bool contains_any(const void *p, size_t bytes) const;

private:
    mutable std::shared_mutex mu_;
    std::map<uintptr_t, Allocation> blocks_;
};

}  // namespace vnpu

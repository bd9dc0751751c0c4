// The names behind the numbers in libprofapi's reports: hash ids (MsprofGetHashId, answered by
// libmspti's callback 12: the id is ours to give) and registered type names (MsprofRegTypeInfo,
// callback 11: level + type id -> name). Looking a name up by id is lock-free and allocation-free
// (report callbacks run on the application's threads); giving an id to a name seen by this thread
// before is a per-thread cache hit; only a new name takes the lock. Names are interned (never freed).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>

namespace mspti::device {

class HashNames {
public:
    HashNames();
    ~HashNames();
    HashNames(const HashNames &) = delete;
    HashNames &operator=(const HashNames &) = delete;
    /// The id of `text` (`length` bytes, not NUL-terminated necessarily); never 0. 0 for a null text.
    uint64_t id(const char *text, size_t length);
    /// The name of an id this table gave, else nullptr.
    const char *name(uint64_t id) const;
    uint64_t size() const { return count_.load(std::memory_order_acquire); }
    void fork_prepare() { mu_.lock(); }
    void fork_release() { mu_.unlock(); }

private:
    static constexpr uint64_t kChunk = 4096, kChunks = 1024;
    uint64_t add_locked(const char *text, size_t length);
    std::mutex mu_;
    std::atomic<uint64_t> count_{0};
    std::atomic<const char **> chunks_[kChunks];
    struct Index;
    Index *index_;  // name -> id, under mu_
    const uint64_t serial_;  // tells this table's per-thread cache entries from another table's
};

class TypeNames {
public:
    TypeNames();
    /// Records `name` for (level, type); a later registration of the same pair replaces it.
    void add(uint16_t level, uint32_t type, const char *name, size_t length);
    /// The name of (level, type), else nullptr.
    const char *name(uint16_t level, uint32_t type) const;
    /// Never 0; changes with every add() and differs from every other table's: a per-thread cache of
    /// names read from this table holds while it is the same.
    uint64_t generation() const { return generation_.load(std::memory_order_acquire); }
    void fork_prepare() { mu_.lock(); }
    void fork_release() { mu_.unlock(); }

private:
    static constexpr uint64_t kSlots = 8192;
    struct Slot {
        std::atomic<uint64_t> key{0};
        std::atomic<const char *> name{nullptr};
    };
    static uint64_t key(uint16_t level, uint32_t type) { return ((uint64_t{level} << 32) | type) + 1; }
    std::mutex mu_;
    std::atomic<uint64_t> generation_;
    Slot slots_[kSlots];
};

}  // namespace mspti::device

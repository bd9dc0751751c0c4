#include "device/report_names.h"

#include <cstring>
#include <string_view>
#include <unordered_map>

#include "core/string_table.h"

namespace mspti::device {
namespace {

std::atomic<uint64_t> g_serial{1};

uint64_t mix(uint64_t k) { return (k * 0x9E3779B97F4A7C15ull) >> 40; }

}  // namespace

struct HashNames::Index {
    std::unordered_map<std::string_view, uint64_t> ids;
};

HashNames::HashNames() : index_(new Index), serial_(g_serial.fetch_add(1)) {
    for (auto &c : chunks_) c.store(nullptr, std::memory_order_relaxed);
}

// libmspti's own table is never destroyed (its collector lives until the process ends); a table
// that is, e.g. a test's, frees its index and chunks. The names themselves are interned.
HashNames::~HashNames() {
    for (auto &c : chunks_) delete[] c.load(std::memory_order_relaxed);
    delete index_;
}

uint64_t HashNames::id(const char *text, size_t length) {
    if (text == nullptr) return 0;
    // Reporters hand the same static strings again and again: a hit costs a compare.
    struct Entry {
        uint64_t serial;
        const char *key;
        size_t length;
        uint64_t id;
    };
    static thread_local Entry cache[64] = {};
    auto v = reinterpret_cast<uintptr_t>(text);
    Entry &e = cache[((v >> 3) ^ (v >> 9) ^ length) & 63];
    if (e.serial == serial_ && e.key == text && e.length == length) {
        const char *stored = name(e.id);
        if (stored != nullptr && std::memcmp(stored, text, length) == 0 && stored[length] == '\0') return e.id;
    }
    uint64_t id;
    {
        std::lock_guard<std::mutex> lock(mu_);
        id = add_locked(text, length);
    }
    if (id != 0) e = Entry{serial_, text, length, id};
    return id;
}

uint64_t HashNames::add_locked(const char *text, size_t length) {
    // A name holding a NUL is cut there, as the C string it is stored as.
    const size_t cut = strnlen(text, length);
    auto found = index_->ids.find(std::string_view(text, cut));
    if (found != index_->ids.end()) return found->second;
    uint64_t n = count_.load(std::memory_order_relaxed);
    if (n >= kChunk * kChunks) return 0;  // 4 M distinct names: the table is full
    const char **chunk = chunks_[n / kChunk].load(std::memory_order_relaxed);
    if (chunk == nullptr) {
        chunk = new const char *[kChunk]();
        chunks_[n / kChunk].store(chunk, std::memory_order_release);
    }
    const char *stored = intern(text, cut);
    chunk[n % kChunk] = stored;
    index_->ids.emplace(std::string_view(stored, cut), n + 1);
    count_.store(n + 1, std::memory_order_release);  // the name is visible before its id is
    return n + 1;
}

const char *HashNames::name(uint64_t id) const {
    if (id == 0 || id > count_.load(std::memory_order_acquire)) return nullptr;
    const char **chunk = chunks_[(id - 1) / kChunk].load(std::memory_order_acquire);
    return chunk != nullptr ? chunk[(id - 1) % kChunk] : nullptr;
}

TypeNames::TypeNames() : generation_(g_serial.fetch_add(1)) {}

void TypeNames::add(uint16_t level, uint32_t type, const char *name, size_t length) {
    if (name == nullptr) return;
    const char *stored = intern(name, strnlen(name, length));
    const uint64_t k = key(level, type);
    std::lock_guard<std::mutex> lock(mu_);
    for (uint64_t i = 0; i < kSlots; ++i) {
        Slot &s = slots_[(mix(k) + i) & (kSlots - 1)];
        uint64_t have = s.key.load(std::memory_order_relaxed);
        if (have == k || have == 0) {
            s.name.store(stored, std::memory_order_release);
            if (have == 0) s.key.store(k, std::memory_order_release);
            generation_.store(g_serial.fetch_add(1), std::memory_order_release);  // after the name
            return;
        }
    }
}

const char *TypeNames::name(uint16_t level, uint32_t type) const {
    const uint64_t k = key(level, type);
    for (uint64_t i = 0; i < kSlots; ++i) {
        const Slot &s = slots_[(mix(k) + i) & (kSlots - 1)];
        uint64_t have = s.key.load(std::memory_order_acquire);
        if (have == k) return s.name.load(std::memory_order_acquire);
        if (have == 0) return nullptr;
    }
    return nullptr;
}

}  // namespace mspti::device

#include "core/string_table.h"

#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace mspti {
namespace {

constexpr size_t kShards = 32;
constexpr size_t kChunkBytes = 64 * 1024;

// One shard: a set of views into arena chunks that are never freed.
struct Shard {
    std::mutex mutex;
    std::unordered_set<std::string_view> strings;
    std::vector<std::unique_ptr<char[]>> chunks;
    size_t used = kChunkBytes;

    const char *store(std::string_view text) {
        size_t need = text.size() + 1;
        char *dst;
        if (need > kChunkBytes / 4) {
            chunks.emplace_back(new char[need]);
            dst = chunks.back().get();
        } else {
            if (used + need > kChunkBytes) {
                chunks.emplace_back(new char[kChunkBytes]);
                used = 0;
            }
            dst = chunks.back().get() + used;
            used += need;
        }
        std::memcpy(dst, text.data(), text.size());
        dst[text.size()] = '\0';
        return dst;
    }
};

Shard *shards() {
    static Shard *all = new Shard[kShards];  // leaked on purpose: records may be read at exit
    return all;
}

}  // namespace

const char *intern(const char *text, size_t length) {
    std::string_view view(text, length);
    size_t hash = std::hash<std::string_view>{}(view);
    Shard &shard = shards()[hash % kShards];
    std::lock_guard<std::mutex> lock(shard.mutex);
    auto it = shard.strings.find(view);
    if (it != shard.strings.end()) return it->data();
    const char *stored = shard.store(view);
    shard.strings.emplace(stored, length);
    return stored;
}

const char *intern(const char *text) { return intern(text, std::strlen(text)); }

void strings_fork_prepare() {
    for (size_t i = 0; i < kShards; ++i) shards()[i].mutex.lock();
}

void strings_fork_release() {
    for (size_t i = kShards; i-- > 0;) shards()[i].mutex.unlock();
}

}  // namespace mspti

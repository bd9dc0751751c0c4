#include "core/marker_names.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <mutex>
#include <new>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace mspti::names {
namespace {

constexpr size_t kShards =
    16;  // fork() holds them all, beside the string table's 32 (TSan tracks at most 64 held locks)

Node *mutable_node(const char *name) { return const_cast<Node *>(node_of(name)); }
size_t node_bytes(size_t length) { return sizeof(Node) + (length + 1 > kTextReadable ? length + 1 : kTextReadable); }

struct Shard {
    std::mutex mutex;
    std::unordered_map<std::string_view, Node *> names;  // pinned names; keys view the nodes' text
};

struct Batch {
    std::vector<Node *> nodes;
    bool drained = false;
};

// Retired names. Lock order: a shard's mutex, then this one.
struct Retired {
    std::mutex mutex;
    std::vector<Node *> unsealed;  // retired since the last seal()
    std::map<uint64_t, Batch> batches;  // by ticket
    uint64_t next_ticket = 1;
};

// Leaked on purpose: records may be read while the process exits.
Shard *shards() {
    static Shard *all = new Shard[kShards];
    return all;
}
Retired &retired() {
    static Retired *r = new Retired();
    return *r;
}

std::atomic<uint64_t> g_live{0}, g_retired{0}, g_reclaimed{0}, g_bytes{0};
std::atomic<uint64_t> g_next_serial{1};
std::atomic<uint64_t> g_unsealed{0};  // names retired since the last seal()
constexpr uint64_t kManyRetired = 4096;

}  // namespace

const char *acquire(const char *text, size_t length) {
    std::string_view view(text, length);
    size_t index = std::hash<std::string_view>{}(view) % kShards;
    Shard &shard = shards()[index];
    std::lock_guard<std::mutex> lock(shard.mutex);
    auto it = shard.names.find(view);
    if (it != shard.names.end()) {
        ++it->second->pins;
        return it->second->text();
    }
    void *memory = std::malloc(node_bytes(length));
    if (memory == nullptr) throw std::bad_alloc();
    Node *node = new (memory)
        Node{g_next_serial.fetch_add(1, std::memory_order_relaxed), 1, static_cast<uint32_t>(index), length};
    std::memcpy(node->text(), text, length);
    // The NUL, and zeros up to kTextReadable: a short name is compared 16 bytes at a time.
    std::memset(node->text() + length, 0, node_bytes(length) - sizeof(Node) - length);
    shard.names.emplace(std::string_view(node->text(), length), node);
    g_live.fetch_add(1, std::memory_order_relaxed);
    g_bytes.fetch_add(node_bytes(length), std::memory_order_relaxed);
    return node->text();
}

void release(const char *name) {
    if (name == nullptr) return;
    Node *node = mutable_node(name);
    Shard &shard = shards()[node->shard];
    std::lock_guard<std::mutex> lock(shard.mutex);
    if (--node->pins != 0) return;
    // Unpinned: no new record can point to it (a later acquire makes a new copy).
    shard.names.erase(std::string_view(node->text(), node->length));
    g_live.fetch_sub(1, std::memory_order_relaxed);
    g_retired.fetch_add(1, std::memory_order_relaxed);
    Retired &r = retired();
    std::lock_guard<std::mutex> retire_lock(r.mutex);
    r.unsealed.push_back(node);
    g_unsealed.store(r.unsealed.size(), std::memory_order_relaxed);
}

bool many_retired() { return g_unsealed.load(std::memory_order_relaxed) > kManyRetired; }

uint64_t seal() {
    Retired &r = retired();
    std::lock_guard<std::mutex> lock(r.mutex);
    if (r.unsealed.empty()) return 0;
    uint64_t ticket = r.next_ticket++;
    r.batches[ticket].nodes.swap(r.unsealed);
    g_unsealed.store(0, std::memory_order_relaxed);
    return ticket;
}

void drained(uint64_t ticket) {
    if (ticket == 0) return;
    Retired &r = retired();
    std::lock_guard<std::mutex> lock(r.mutex);
    auto it = r.batches.find(ticket);
    if (it != r.batches.end()) it->second.drained = true;
}

void fork_prepare() {
    Shard *all = shards();
    for (size_t i = 0; i < kShards; ++i) all[i].mutex.lock();
    retired().mutex.lock();
}

void fork_release() {
    retired().mutex.unlock();
    Shard *all = shards();
    for (size_t i = kShards; i-- > 0;) all[i].mutex.unlock();
}

void unseal(uint64_t ticket) {
    if (ticket == 0) return;
    Retired &r = retired();
    std::lock_guard<std::mutex> lock(r.mutex);
    auto it = r.batches.find(ticket);
    if (it == r.batches.end()) return;
    r.unsealed.insert(r.unsealed.end(), it->second.nodes.begin(), it->second.nodes.end());
    r.batches.erase(it);
    g_unsealed.store(r.unsealed.size(), std::memory_order_relaxed);
}

void reclaim() {
    std::vector<Node *> dead;
    {
        Retired &r = retired();
        std::lock_guard<std::mutex> lock(r.mutex);
        if (r.batches.empty()) return;
        for (auto it = r.batches.begin(); it != r.batches.end();) {
            if (it->second.drained) {
                if (dead.empty())
                    dead.swap(it->second.nodes);
                else
                    dead.insert(dead.end(), it->second.nodes.begin(), it->second.nodes.end());
                it = r.batches.erase(it);
            } else {
                ++it;
            }
        }
    }
    uint64_t bytes = 0;
    for (Node *node : dead) {
        bytes += node_bytes(node->length);
        node->~Node();
        std::free(node);
    }
    g_retired.fetch_sub(dead.size(), std::memory_order_relaxed);
    g_reclaimed.fetch_add(dead.size(), std::memory_order_relaxed);
    g_bytes.fetch_sub(bytes, std::memory_order_relaxed);
}

Stats stats() {
    return Stats{g_live.load(std::memory_order_relaxed), g_retired.load(std::memory_order_relaxed),
                 g_reclaimed.load(std::memory_order_relaxed), g_bytes.load(std::memory_order_relaxed)};
}

}  // namespace mspti::names

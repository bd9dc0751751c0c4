#include "core/marker_names.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <mutex>
#include <new>
#include <set>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace mspti::names {
namespace {

constexpr size_t kShards =
    16;  // fork() holds them all, beside the string table's 32 (TSan tracks at most 64 held locks)

// A name's header; its text follows it. Pins are guarded by the shard's mutex.
struct Node {
    uint32_t pins;
    uint32_t shard;
    size_t length;
    char *text() { return reinterpret_cast<char *>(this + 1); }
};

Node *node_of(const char *name) { return reinterpret_cast<Node *>(const_cast<char *>(name)) - 1; }
size_t node_bytes(size_t length) { return sizeof(Node) + length + 1; }

struct Shard {
    std::mutex mutex;
    std::unordered_map<std::string_view, Node *> names;  // pinned names; keys view the nodes' text
};

struct Batch {
    std::vector<Node *> nodes;
    bool drained = false;
    uint64_t last_seq = 0;
};

// Retired names and client holds. Lock order: a shard's mutex, then this one.
struct Retired {
    std::mutex mutex;
    std::vector<Node *> unsealed;  // retired since the last seal()
    std::map<uint64_t, Batch> batches;  // by ticket
    uint64_t next_ticket = 1;
    std::multimap<const void *, uint64_t> holds;  // buffer -> seq
    std::multiset<uint64_t> held_seqs;
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
    Node *node = new (memory) Node{1, static_cast<uint32_t>(index), length};
    std::memcpy(node->text(), text, length);
    node->text()[length] = '\0';
    shard.names.emplace(std::string_view(node->text(), length), node);
    g_live.fetch_add(1, std::memory_order_relaxed);
    g_bytes.fetch_add(node_bytes(length), std::memory_order_relaxed);
    return node->text();
}

void release(const char *name) {
    if (name == nullptr) return;
    Node *node = node_of(name);
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
}

uint64_t seal() {
    Retired &r = retired();
    std::lock_guard<std::mutex> lock(r.mutex);
    if (r.unsealed.empty()) return 0;
    uint64_t ticket = r.next_ticket++;
    r.batches[ticket].nodes.swap(r.unsealed);
    return ticket;
}

void drained(uint64_t ticket, uint64_t last_seq) {
    if (ticket == 0) return;
    Retired &r = retired();
    std::lock_guard<std::mutex> lock(r.mutex);
    auto it = r.batches.find(ticket);
    if (it == r.batches.end()) return;
    it->second.drained = true;
    it->second.last_seq = last_seq;
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
}

void reclaim(uint64_t delivered_through) {
    std::vector<Node *> dead;
    {
        Retired &r = retired();
        std::lock_guard<std::mutex> lock(r.mutex);
        if (r.batches.empty()) return;
        uint64_t safe = delivered_through;
        if (!r.held_seqs.empty() && *r.held_seqs.begin() <= safe) safe = *r.held_seqs.begin() - 1;
        for (auto it = r.batches.begin(); it != r.batches.end();) {
            if (it->second.drained && it->second.last_seq <= safe) {
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

void hold(const void *buffer, uint64_t seq) {
    Retired &r = retired();
    std::lock_guard<std::mutex> lock(r.mutex);
    r.holds.emplace(buffer, seq);
    r.held_seqs.insert(seq);
}

bool release_hold(const void *buffer) {
    Retired &r = retired();
    std::lock_guard<std::mutex> lock(r.mutex);
    auto it = r.holds.find(buffer);
    if (it == r.holds.end()) return false;
    r.held_seqs.erase(r.held_seqs.find(it->second));
    r.holds.erase(it);
    return true;
}

Stats stats() {
    return Stats{g_live.load(std::memory_order_relaxed), g_retired.load(std::memory_order_relaxed),
                 g_reclaimed.load(std::memory_order_relaxed), g_bytes.load(std::memory_order_relaxed)};
}

}  // namespace mspti::names

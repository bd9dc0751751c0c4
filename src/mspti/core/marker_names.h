// Marker names (mstx messages): interned while threads mark with them, copied into the client
// buffer beside the records that point to them, and freed once no staged record points to them.
//
// A record in a client buffer never points to a name here: the drain copies the name into the
// same buffer (at its end, growing down towards the records) and points the record at that copy,
// so a name lives exactly as long as the buffer that holds its record, whatever the client does
// with the buffer afterwards (docs/architecture.md, "Marker names").
//
// Each name has a pin count: a thread's marker cache holds one pin per entry, so repeated names
// cost no table access at all. When the last pin goes, the name is retired: staged records may
// still point to it. The engine's consumer seals the retired names before a full drain; once
// that drain has copied every staged record, the sealed names are freed.
#pragma once

#include <cstddef>
#include <cstdint>

namespace mspti::names {

// A name's header; its NUL-terminated text follows it. `serial` is unique for the life of the process: the drain's per-buffer cache
// of copies is keyed by it, since a freed name's memory may hold another name later.
struct Node {
    uint64_t serial;
    uint32_t pins;  // guarded by the shard's mutex
    uint32_t shard;
    size_t length;
    char *text() { return reinterpret_cast<char *>(this + 1); }
};

// Pins the reclaimable copy of text[0, length) (made on first sight). Never NULL.
const char *acquire(const char *text, size_t length);

// Drops one pin of a name from acquire(). At zero the name is retired.
void release(const char *name);

// A staged marker record that points to an interned name carries this bit in its sourceKind
// field (msPTI's values are 0 and 1), so that the drain knows to copy the name and clears the
// bit. Other names in marker records (string literals, domain names) live as long as the
// process, need no copy, and may sit at any address, so the pointer itself cannot carry a tag.
constexpr int kStagedInternedName = 1 << 30;
inline const Node *node_of(const char *interned) { return reinterpret_cast<const Node *>(interned) - 1; }
// Bytes readable from an interned name's start, its NUL and zero padding included, however short
// it is: a producer compares names shorter than this with one wide load (mstx::ThreadMarkers).
constexpr size_t kTextReadable = 16;

// Consumer (under the engine's consumer lock, before a full drain): names retired so far form
// a batch; returns its ticket.
uint64_t seal();

// More names were retired since the last seal() than should wait for a full drain (4096): the
// producer that retired one then drains every ring itself (ActivityEngine::free_retired_names),
// so that ever-new names do not pile up between the worker's rounds. One relaxed load.
bool many_retired();

// Consumer, after that drain, still under the lock: no staged record points to the batch's
// names any more (they were copied into client buffers); reclaim() frees them.
void drained(uint64_t ticket);

// Consumer, after a drain that stopped early (the limit of buffers in flight): records that may
// point to the batch's names are still staged, so they go back to the next seal().
void unseal(uint64_t ticket);

// Frees the drained batches (not under the consumer lock: it calls free()).
void reclaim();

// fork(): every lock of the name table, taken after the engine's consumer lock (the order in
// which a staging's destructor nests them), and released in the parent or the child.
void fork_prepare();
void fork_release();

struct Stats {
    uint64_t live;  // names pinned by some thread's cache
    uint64_t retired;  // names no longer pinned, waiting for the next full drain
    uint64_t reclaimed;  // names freed since the process started
    uint64_t bytes;  // bytes of live and retired names (text and bookkeeping)
};
Stats stats();

}  // namespace mspti::names

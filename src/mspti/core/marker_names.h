// Marker names (mstx messages) that are reclaimed once no undelivered record can point to them.
//
// Each name has a pin count: a thread's marker cache holds one pin per entry, so repeated names
// cost no table access at all. When the last pin goes, the name is retired, not freed: records
// that point to it may still be staged or in client buffers. The engine's consumer seals the
// retired names before a full drain (afterwards every record that may point to them is in a
// client buffer whose sequence number it reports), and frees them once those buffers have been
// handed back and no client holds them (msptiExtActivityHoldBuffer).
#pragma once

#include <cstddef>
#include <cstdint>

namespace mspti::names {

// Pins the reclaimable copy of text[0, length) (made on first sight). Never NULL.
const char *acquire(const char *text, size_t length);

// Drops one pin of a name from acquire(). At zero the name is retired.
void release(const char *name);

// Consumer (under the engine's consumer lock, before a full drain): names retired so far form
// a batch; returns its ticket.
uint64_t seal();

// Consumer, after that drain: every record that may point to the batch's names is in a buffer
// whose sequence number is at most `last_seq` (0: none).
void drained(uint64_t ticket, uint64_t last_seq);

// Consumer, after a drain that stopped early (the limit of buffers in flight): records that may
// point to the batch's names are still staged, so they go back to the next seal().
void unseal(uint64_t ticket);

// Frees the drained batches whose buffers are all handed back: `delivered_through` is the
// last sequence number up to which every buffer's complete callback has returned.
void reclaim(uint64_t delivered_through);

// Keeps the names of buffer `seq` (being completed) valid until release_hold(buffer).
void hold(const void *buffer, uint64_t seq);
// Ends a hold; false if `buffer` is not held.
bool release_hold(const void *buffer);

// fork(): every lock of the name table, taken after the engine's consumer lock (the order in
// which a staging's destructor nests them), and released in the parent or the child.
void fork_prepare();
void fork_release();

struct Stats {
    uint64_t live;  // names pinned by some thread's cache
    uint64_t retired;  // names no longer pinned, waiting for their records to be delivered
    uint64_t reclaimed;  // names freed since the process started
    uint64_t bytes;  // bytes of live and retired names (text and bookkeeping)
};
Stats stats();

}  // namespace mspti::names

// The client's buffers as the engine holds them, all under the engine's consumer lock: the one
// records are drained into, spares obtained ahead, completed ones waiting to be handed back, those
// being handed back, the order they go back in, and how many (and how many bytes) are out.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <set>
#include <vector>

#include "core/marker_names.h"

namespace mspti {

class ClientBuffers {
public:
    // Records fill a buffer from its start up to `valid`; the marker names they point to are
    // copied to its end, from `names_at` up to `size` (docs/architecture.md, "Marker names").
    struct Buffer {
        uint8_t *data = nullptr;
        size_t size = 0;
        size_t valid = 0;
        uint64_t seq = 0;  // its place in the hand-back order, given when it is completed
        size_t names_at = 0;  // where the names copied so far begin (== size: none)
    };
    static Buffer fresh(uint8_t *data, size_t size) { return Buffer{data, size, 0, 0, size}; }

    // The buffer records are drained into (data == nullptr: none).
    Buffer &current() { return current_; }
    const Buffer &current() const { return current_; }
    // Makes `b` current; a spare, or one just obtained.
    void make_current(const Buffer &b) {
        current_ = b;
        ++current_number_;
    }
    bool has_spare() const { return !spares_.empty(); }
    size_t spares() const { return spares_.size(); }
    // Whether a buffer is being asked for (by any thread) at this moment.
    bool asking() const { return asking_ > 0; }
    void add_spare(const Buffer &b) { spares_.push_back(b); }
    Buffer take_spare() {
        Buffer b = spares_.back();
        spares_.pop_back();
        return b;
    }

    // The copy of the interned `name` in the current buffer, if one was made (inline: a name
    // repeated in a buffer is the common case).
    const char *name_copy(const char *name) const {
        const uint64_t serial = names::node_of(name)->serial;
        const NameCopy &slot = name_copies_[serial % kNameCopies];
        return slot.serial == serial && slot.buffer == current_number_ ? slot.copy : nullptr;
    }
    // Makes that copy in the current buffer `out`, while its records end at `valid` and a record of
    // `record_size` bytes must still fit; nullptr if there is no room for both. `names_at` is the
    // buffer's, updated.
    // (Inline, as name_copy: drain() calls it for every name new to the buffer.)
    const char *place_name(const char *name, uint8_t *out, size_t valid, size_t record_size, size_t &names_at) {
        const names::Node *node = names::node_of(name);
        const uint64_t serial = node->serial;
        NameCopy &slot = name_copies_[serial % kNameCopies];
        const size_t bytes = node->length + 1;
        if (names_at - valid < record_size || names_at - valid - record_size < bytes) return nullptr;
        names_at -= bytes;
        char *copy = reinterpret_cast<char *>(out + names_at);
        std::memcpy(copy, reinterpret_cast<const char *>(node + 1), bytes);
        slot = NameCopy{serial, current_number_, copy};
        return copy;
    }

    // The current buffer is complete: it joins those waiting to be handed back.
    void retire_current();
    // `b`, never made current (a buffer asked for ahead of need that cannot hold records), is
    // handed back as it is: the client owns it.
    void retire_unused(const Buffer &b);
    // The current buffer and every spare are complete (a flush).
    void retire_all();
    bool has_completed() const { return !completed_.empty(); }
    // The completed buffers, in order, now being handed back.
    std::vector<Buffer> take_completed();
    // The seq of the last buffer completed so far.
    uint64_t last_seq() const { return next_seq_ - 1; }

    // Asking the client for a buffer: counted before the ask, so concurrent asks cannot pass the
    // limit; then declined (no buffer) or given (its size now counts). A buffer's size is known
    // only once given: until then an ask counts as the size of the last buffer given, so that
    // several threads asking at once pass the byte limit by one buffer at most, as one does.
    void request_begun() {
        ++out_;
        ++asking_;
    }
    void request_declined() {
        --out_;
        if (asking_ > 0) --asking_;  // (0 in a child forked from inside the request callback)
        changed_.notify_all();
    }
    void request_given(size_t size) {
        if (asking_ > 0) --asking_;
        out_bytes_ += size;
        last_size_ = size;
    }
    // Whether the buffers out reach the limit of buffers or of bytes in flight.
    bool over_limit(size_t max_buffers, size_t max_bytes) const {
        return out_ >= max_buffers || out_bytes_ + asking_ * last_size_ >= max_bytes;
    }

    // Waits until `seq` is the next buffer to hand back (buffers go back in the order filled).
    template <class Lock>
    void wait_turn(Lock &lock, uint64_t seq) {
        changed_.wait(lock, [&] { return next_handback_ == seq; });
    }
    // `b` went back to the client: it is no longer out, and the next one may go.
    void handed_back(const Buffer &b);
    // Whether every buffer completed up to `seq` has been handed back.
    bool handed_back_through(uint64_t seq) const { return in_flight_.empty() || *in_flight_.begin() > seq; }

    // Signalled when a buffer was completed, handed back, or became available.
    std::condition_variable &changed() { return changed_; }

    // In a forked child: the buffers the parent was filling or had filled are emptied and kept
    // for the child's records; those it was handing back stay the parent's.
    void restart_after_fork();

private:
    // The copies of interned names in the current buffer, by the name's serial (names::Node): a
    // name repeated in one buffer is copied once. Entries of earlier buffers are told apart by
    // `buffer`, a number given to each buffer made current.
    struct NameCopy {
        uint64_t serial = 0;
        uint64_t buffer = 0;
        const char *copy = nullptr;
    };
    static constexpr size_t kNameCopies = 256;

    Buffer current_;
    uint64_t current_number_ = 0;  // numbers each buffer made current, for name_copies_
    NameCopy name_copies_[kNameCopies];
    std::vector<Buffer> spares_;
    std::vector<Buffer> completed_;
    std::set<uint64_t> in_flight_;  // seqs being handed back
    size_t out_ = 0;  // requested from the client, not yet back from complete
    size_t out_bytes_ = 0;  // their sizes
    size_t asking_ = 0;  // of out_, those being asked for (their sizes not known yet)
    size_t last_size_ = 0;  // the size of the last buffer given
    uint64_t next_seq_ = 1;
    uint64_t next_handback_ = 1;  // seq of the next buffer to hand back in order
    std::set<uint64_t> handed_back_early_;  // seqs handed back out of order (nested flushes)
    std::condition_variable changed_;
};

}  // namespace mspti

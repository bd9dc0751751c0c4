// The mstx state of one thread: its block of marker ids, its cache of interned messages and the
// last marker timestamp. Producer-only (no atomics); lives in the thread's ThreadStaging, so it
// is reached with the same thread-local load as the ring and freed with it.
#pragma once

#include <cstdint>
#include <cstring>

#include "core/clock.h"
#include "core/marker_names.h"

// Names shorter than 16 bytes are compared with one 16-byte load each (same_text); sanitized
// builds compare with strcmp, as they would report the read past a message's NUL.
#if defined(__SSE2__) && !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
#include <emmintrin.h>
#define MSPTI_WIDE_NAME_COMPARE 1
#endif

namespace mspti::mstx {

class ThreadMarkers {
public:
    ThreadMarkers() = default;
    // Unpins the cached names: they are reclaimed once the buffers holding their records are back.
    ~ThreadMarkers();
    ThreadMarkers(const ThreadMarkers &) = delete;
    ThreadMarkers &operator=(const ThreadMarkers &) = delete;

    // A fresh marker id (process-unique, from 1); ids come from per-thread blocks of 256, so the
    // shared counter is touched once per block.
    uint64_t take_id() {
        if (__builtin_expect(next_id_ == id_limit_, 0)) take_id_block();
        return next_id_++;
    }
    // take_id() for a caller with a path of its own for a new block: false at a block's end.
    bool try_take_id(uint64_t &id) {
        if (__builtin_expect(next_id_ == id_limit_, 0)) return false;
        id = next_id_++;
        return true;
    }

    // The timestamp a marker record is staged with: a tagged raw tick while the TSC is in use
    // (the consumer converts it and keeps the thread's markers in order, see
    // ActivityEngine::drain), else epoch nanoseconds clamped here to the thread's last one.
    uint64_t timestamp() {
        uint64_t t = clock::deferred_now();
        if (__builtin_expect(clock::is_raw_tick(t), 1)) return t;
        if (t < last_timestamp_) t = last_timestamp_;
        last_timestamp_ = t;
        return t;
    }

    // The interned copy of `message` (a NUL-terminated text shorter than 255 bytes), pinned by
    // this thread's cache; nullptr if the message is too long. Repeated messages touch no shared
    // state.
    // The interned copy if this thread's cache holds `message` (same pointer, same text), else nullptr.
    const char *cached(const char *message) const {
        const Entry &entry = cache_[cache_index(message)];
        return entry.key == message && same_text(message, entry.interned) ? entry.interned : nullptr;
    }

    // Whether `message` is the message of the name this thread interned last (never for NULL), with
    // the same text: one 16-byte compare against a copy of the text, for the mark's fast
    // path (mstx::mark). Only a short name read 16 bytes wide is kept there (see set_last), and
    // only while raw ticks are in use, so that true also says they are (clock::raw_ticks_in_use).
    bool is_last(const char *message) const {
#ifdef MSPTI_WIDE_NAME_COMPARE
        if (message != last_.key) return false;
        const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i *>(message));
        const __m128i b = _mm_load_si128(reinterpret_cast<const __m128i *>(last_.text));
        const unsigned equal = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(a, b)));
        return (equal & last_.need) == last_.need;
#else
        (void)message;
        return false;
#endif
    }
    // Its interned copy (only after is_last() was true).
    const char *last_interned() const { return last_.interned; }
    // For a message that took a general path although cached() or intern() found it: the second
    // time in a row, its cache entry becomes the one is_last() checks, so that its next marks take
    // the path with no call. (Messages that alternate are left alone: each would undo the other.)
    // The entry pins its name; an entry is only ever refilled by intern_slow, which sets last_ anew.
    void keep_last(const char *message) {
        if (message != repeated_) {
            repeated_ = message;
            return;
        }
        const Entry &entry = cache_[cache_index(message)];
        if (entry.key == message && last_.key != message) set_last(entry);
    }
    // A name interned before raw ticks were in use waits to be kept for is_last(): kept now if
    // they are.
    void mirror_waiting() {
        if (__builtin_expect(waiting_ != nullptr, 0)) mirror_waiting_slow();
    }

    const char *intern(const char *message) {
        Entry &entry = cache_[cache_index(message)];
        // Same pointer is not enough: callers reuse buffers, so the text is compared too.
        if (__builtin_expect(entry.key == message, 1) && same_text(message, entry.interned)) return entry.interned;
        return intern_slow(entry, message);
    }

    static constexpr unsigned kCacheSize = 64;

    // A process-unique id without a thread context (a thread that is exiting).
    static uint64_t take_shared_id();

private:
    struct Entry {
        const char *key;
        const char *interned;
    };

    static unsigned cache_index(const char *p) {
        auto v = reinterpret_cast<uintptr_t>(p);
        return static_cast<unsigned>((v >> 3) ^ (v >> 9)) & (kCacheSize - 1);
    }
    // Whether `message` still holds the text of `interned`, its cache entry's name. A short name
    // takes one 16-byte load from each instead of a call to strcmp (about 20 instructions a mark):
    // an interned text has 16 bytes readable (names::kTextReadable), and the message's 16 are
    // read only when they lie in one 4 KiB block, so a read past its NUL cannot fault.
    static bool same_text(const char *message, const char *interned) {
#ifdef MSPTI_WIDE_NAME_COMPARE
        const size_t length = names::node_of(interned)->length;
        if (length < names::kTextReadable && (reinterpret_cast<uintptr_t>(message) & 4095) <= 4096 - 16) {
            const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i *>(message));
            const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i *>(interned));
            const unsigned equal = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(a, b)));
            const unsigned need = (2u << length) - 1;  // bytes 0..length: the text and its NUL
            return (equal & need) == need;
        }
#endif
        return std::strcmp(message, interned) == 0;
    }
    const char *intern_slow(Entry &entry, const char *message);
    void take_id_block();
    // Makes `entry` (just filled by intern_slow) the one last() checks, if its name is short and
    // its message's 16 bytes lie in one 4 KiB block; else last() finds nothing. Every entry that
    // last_ mirrors was filled last, so the name it points to is pinned by that entry.
    void set_last(const Entry &entry);
    void mirror_waiting_slow();

    // Last's key while no name is mirrored: an address no message has, so that is_last() of any
    // message, NULL included, is false without a test of its own.
    static constexpr char kNoKey[1] = {};
    // The copy last() compares with: the text's 16 readable bytes and the mask of the bytes that
    // must match (the text and its NUL).
    struct Last {
        alignas(16) unsigned char text[16];
        const char *key = kNoKey;
        const char *interned;
        unsigned need;
    };

    uint64_t next_id_ = 0;
    uint64_t id_limit_ = 0;
    uint64_t last_timestamp_ = 0;
    Entry cache_[kCacheSize] = {};
    Last last_ = {};
    const Entry *waiting_ = nullptr;  // the entry set_last() would have kept, had raw ticks been in use
    const char *repeated_ = nullptr;  // the message keep_last() saw last
};

}  // namespace mspti::mstx

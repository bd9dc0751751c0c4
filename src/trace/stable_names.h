// The trace tool's own copies of the names marker records carry. A record's name lies in the
// msPTI buffer that held it (or, with msPTI's library, in its never-freed table); the writer
// gives the buffer back before the records are written, and an open range's start waits for
// its end across windows, so each name is copied once here and kept for the process's life
// (the sinks keep every distinct name anyway: pftrace interns them, SQLite has a names table).
// Names that are not valid UTF-8 (a C program may mark any bytes) are kept escaped: each byte
// of an invalid sequence becomes the four characters \xNN.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>

namespace mspti_trace {

class StableNames {
public:
    // The kept copy of `text` (NULL stays NULL). Inline for a pointer seen before with the same text.
    const char *keep(const char *text) {
        if (text == nullptr) return nullptr;
        const Seen &seen = seen_[slot(text)];
        // A pointer seen before is checked against the text it had: its memory may hold another name now.
        if (seen.pointer == text && std::strcmp(seen.original, text) == 0) return seen.copy;
        return keep_slow(text);
    }
    // Names that were not valid UTF-8 and were kept escaped.
    uint64_t escaped() const { return escaped_; }

    // `text` with each byte of an invalid UTF-8 sequence written as \xNN; unchanged if valid.
    static std::string escape_invalid_utf8(std::string_view text);

private:
    struct Seen {
        const char *pointer = nullptr;
        const char *original = nullptr;  // the text it had, as marked
        const char *copy = nullptr;  // as kept (escaped where invalid)
    };
    static constexpr size_t kSeenBits = 10;
    static size_t slot(const void *p) {
        uint64_t bits = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(p));
        return static_cast<size_t>((bits * 0x9E3779B97F4A7C15ull) >> (64 - kSeenBits));
    }
    const char *keep_slow(const char *text);

    std::array<Seen, size_t{1} << kSeenBits> seen_{};
    std::deque<std::string> storage_;  // never moves its strings
    std::unordered_map<std::string_view, const char *> kept_;  // marked text (in storage_) -> kept copy
    uint64_t escaped_ = 0;
};

}  // namespace mspti_trace

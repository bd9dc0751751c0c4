// Perfetto TrackEvent protobuf (docs/trace.md, "pftrace"): one packet sequence per process,
// interned names, categories and annotation names; whole packets written per window.
#pragma once

#include <array>
#include <cstring>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "proto.h"
#include "sink.h"
#include "trace_file.h"

namespace mspti_trace {

class PftraceSink : public Sink {
public:
    explicit PftraceSink(uint32_t pid) : pid_(pid) {}
    ~PftraceSink() override;
    bool open(const std::string &path, std::string &error) override;
    void track(const Track &t) override;
    void begin(const Slice &s) override;
    void end(uint32_t track, uint64_t ts) override;
    void instant(const Slice &s) override;
    void counter(uint32_t track, const char *name, uint64_t ts, int64_t value) override;
    void stats(const Stats &s, uint64_t ts, bool final) override;
    void flush() override;
    void close() override;

private:
    struct Interned {
        // Most names are long-lived pointers: a direct-mapped cache of pointer -> iid comes first.
        struct Seen {
            const void *pointer = nullptr;
            uint64_t iid = 0;
            const char *text = nullptr;  // our copy, to check a reused pointer against
        };
        static constexpr size_t kSeenBits = 10;
        static size_t slot(const void *p) {
            uint64_t bits = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(p));
            return static_cast<size_t>((bits * 0x9E3779B97F4A7C15ull) >> (64 - kSeenBits));
        }
        std::array<Seen, size_t{1} << kSeenBits> by_pointer{};
        std::deque<std::string> storage;  // the texts, by iid - 1; never move
        std::unordered_map<std::string_view, uint64_t> ids;  // keys point into storage
    };
    // kLiteral: a string literal, the pointer alone identifies it. kPointer: a long-lived pointer
    // whose memory may be reused for other text. kText: a transient string.
    enum class Source { kLiteral, kPointer, kText };
    // Inline for the common case, a pointer seen before; the rest in intern_slow().
    uint64_t intern(Interned &table, const char *s, uint32_t field, Source source) {
        if (source != Source::kText) {
            const Interned::Seen &seen = table.by_pointer[Interned::slot(s)];
            // A record's pointer seen before is checked against its text: a runtime may reuse the memory.
            if (seen.pointer == s && (source == Source::kLiteral || std::strcmp(seen.text, s) == 0)) return seen.iid;
        }
        return intern_slow(table, s, field, source);
    }
    uint64_t intern_slow(Interned &table, const char *s, uint32_t field, Source source);
    void encode_track(const Track &t);
    void encode_stats(const Stats &s, uint64_t ts);
    // After a window that could not be written: what it defined (interned names, track
    // descriptors) is not in the file, so the sequence starts over (cleared incremental state)
    // and every track is described again at the head of the next window.
    void restart_sequence(bool all_tracks);
    size_t begin_packet(uint64_t ts);
    // A TracePacket's opening: key, one length byte (set by the caller), timestamp, sequence.
    char *packet_head(char *p, uint64_t ts, char **length);
    // The common case of event() in one pass: no new interned text, every nested message under
    // 128 bytes. False (nothing written) otherwise.
    bool event_fast(const Slice &s, uint64_t type, const Arg *args, size_t nargs, uint64_t name, uint64_t category);
    void event(const Slice &s, uint64_t type, const Arg *args, size_t nargs, bool stable_names);
    uint64_t uuid(uint32_t track) const { return (static_cast<uint64_t>(pid_) << 32) | track; }

    uint32_t pid_;
    TraceFile file_;
    std::vector<Track> tracks_;  // every track described so far, to describe again after a failure
    Stats final_stats_{};
    uint64_t final_ts_ = 0;
    bool have_final_ = false, final_lost_ = false;
    bool first_ = true;
    // What follows the timestamp in every packet after the first: sequence id and flags.
    char tail_[16];
    size_t tail_size_ = 0;
    proto::Buffer out_;  // the window being built
    proto::Buffer interned_;  // InternedData of the packet being built
    Interned names_, categories_, annotations_;
    std::vector<uint64_t> arg_ids_;
    uint64_t next_name_ = 1, next_category_ = 1, next_annotation_ = 1;
};

}  // namespace mspti_trace

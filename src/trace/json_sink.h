// Chrome trace-event JSON (docs/trace.md, "JSON"), optionally gzip-compressed; events are
// appended per window, so a file cut short needs only its closing brackets. A window that cannot
// be written is left out whole (gzip: each window is compressed on its own, after a full flush,
// and the trailer's CRC covers only what was written), so the file stays valid JSON.
#pragma once

#include <zlib.h>

#include <map>
#include <string>
#include <vector>

#include "config.h"
#include "sink.h"
#include "trace_file.h"

namespace mspti_trace {

class JsonSink : public Sink {
public:
    JsonSink(const Config &config, uint32_t pid, bool gzip) : config_(config), pid_(pid), gzip_(gzip) {}
    ~JsonSink() override;
    bool open(const std::string &path, std::string &error) override;
    void track(const Track &t) override;
    void begin(const Slice &s) override;
    void end(uint32_t, uint64_t) override {}
    void instant(const Slice &s) override;
    void counter(uint32_t track, const char *name, uint64_t ts, int64_t value) override;
    void stats(const Stats &s, uint64_t ts, bool final) override;
    void flush() override;
    void close() override;

private:
    void us(uint64_t ns);  // a timestamp relative to start_ns, in microseconds
    void dur(uint64_t ns);
    void str(const char *s);  // a quoted, escaped JSON string
    void args(const Slice &s);
    void head(const char *ph, const Slice &s, uint64_t tid);
    uint64_t tid_of(uint32_t track) const { return tids_[track]; }
    void thread_name(uint32_t track);
    void stats_event(const Stats &s, uint64_t ts);
    // Writes text as one window (gzip: compressed, `finish` ends the stream); false: nothing of it
    // is in the file. `held`: into the space held back (the last words).
    bool write(const std::string &text, bool finish, bool held);

    const Config &config_;
    uint32_t pid_;
    bool gzip_;
    TraceFile file_;
    z_stream zs_{};
    bool deflating_ = false;
    uLong crc_ = 0;  // of what the file holds, for the gzip trailer
    uint64_t isize_ = 0;
    std::string head_;  // the header, until a window with it is written
    std::string deflated_;
    Stats final_stats_{};
    uint64_t final_ts_ = 0;
    bool have_final_ = false, final_lost_ = false;
    std::string out_;
    std::vector<uint64_t> tids_{0};  // by track index
    std::vector<std::string> names_{""};
    uint64_t next_tid_ = 1ull << 30;
    bool closed_ = false;
};

}  // namespace mspti_trace

// Chrome trace-event JSON (docs/trace.md, "JSON"), optionally gzip-compressed; events are
// appended per window, so a file cut short needs only its closing brackets.
#pragma once

#include <zlib.h>

#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "config.h"
#include "sink.h"

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

    const Config &config_;
    uint32_t pid_;
    bool gzip_;
    FILE *file_ = nullptr;
    gzFile gz_ = nullptr;
    std::string out_;
    std::vector<uint64_t> tids_{0};  // by track index
    std::vector<std::string> names_{""};
    uint64_t next_tid_ = 1ull << 30;
    bool closed_ = false;
};

}  // namespace mspti_trace

#include "json_sink.h"

#include <unistd.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>

#include "loss.h"

namespace mspti_trace {

JsonSink::~JsonSink() { close(); }

bool JsonSink::open(const std::string &path, std::string &error) {
    if (!file_.open(path, error)) return false;
    // Raw deflate; the gzip header and trailer are written here (the trailer covers what is written).
    if (gzip_ && deflateInit2(&zs_, 6, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
        error = "zlib: cannot start compressing " + path;
        file_.close();
        return false;
    }
    deflating_ = gzip_;
    crc_ = crc32(0, nullptr, 0);
    char head[512];
    std::snprintf(head, sizeof head,
                  "{\"displayTimeUnit\": \"ns\",\n\"distributedInfo\": {\"rank\": %d, \"world_size\": %d, "
                  "\"backend\": \"hccl\"},\n\"otherData\": {\"pid\": %u, \"start_ns\": %" PRIu64
                  ", \"format\": \"mspti-trace 1\"},\n\"traceEvents\": [\n",
                  config_.rank, config_.world_size, pid_, config_.start_ns);
    out_ += head;
    std::string name = config_.rank >= 0
                           ? "rank " + std::to_string(config_.rank) + " \xC2\xB7 pid " + std::to_string(pid_)
                           : "pid " + std::to_string(pid_);
    out_ += "{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": " + std::to_string(pid_) + ", \"args\": {\"name\": ";
    str(name.c_str());
    out_ += "}},\n{\"ph\": \"M\", \"name\": \"process_sort_index\", \"pid\": " + std::to_string(pid_) +
            ", \"args\": {\"sort_index\": " + std::to_string(config_.rank >= 0 ? config_.rank : 0) + "}},\n";
    head_.swap(out_);
    if (gzip_) head_.insert(0, "\x1f\x8b\x08\0\0\0\0\0\0\xff", 10);  // gzip header: deflate, no name, Unix
    return true;
}

void JsonSink::str(const char *s) {
    out_.push_back('"');
    for (const unsigned char *p = reinterpret_cast<const unsigned char *>(s); *p != 0; ++p) {
        unsigned char c = *p;
        if (c == '"' || c == '\\') {
            out_.push_back('\\');
            out_.push_back(static_cast<char>(c));
        } else if (c < 0x20) {
            char b[8];
            std::snprintf(b, sizeof b, "\\u%04x", c);
            out_ += b;
        } else {
            out_.push_back(static_cast<char>(c));
        }
    }
    out_.push_back('"');
}

void JsonSink::us(uint64_t ns) {
    // Relative to start_ns, 3 decimals: exact to the ns once parsed as a double.
    bool neg = ns < config_.start_ns;
    uint64_t d = neg ? config_.start_ns - ns : ns - config_.start_ns;
    char b[40];
    std::snprintf(b, sizeof b, "%s%" PRIu64 ".%03" PRIu64, neg ? "-" : "", d / 1000, d % 1000);
    out_ += b;
}

void JsonSink::dur(uint64_t ns) {
    char b[40];
    std::snprintf(b, sizeof b, "%" PRIu64 ".%03" PRIu64, ns / 1000, ns % 1000);
    out_ += b;
}

void JsonSink::track(const Track &t) {
    uint64_t tid = 0;
    switch (t.kind) {
    case Track::kProcess:
    case Track::kDevice:
    case Track::kCounter: break;  // no thread of their own
    case Track::kThread: tid = t.tid; break;
    default: tid = next_tid_++; break;
    }
    if (tids_.size() <= t.index) {
        tids_.resize(t.index + 1, 0);
        names_.resize(t.index + 1);
    }
    tids_[t.index] = tid;
    // Streams are named with their device ("device D · stream S"); lanes after their track.
    names_[t.index] = t.kind == Track::kStream ? names_[t.parent] + " \xC2\xB7 " + t.name : t.name;
    thread_name(t.index);
}

void JsonSink::thread_name(uint32_t track) {
    uint64_t tid = tids_[track];
    if (tid == 0) return;
    out_ += "{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": " + std::to_string(pid_) +
            ", \"tid\": " + std::to_string(tid) + ", \"args\": {\"name\": ";
    str(names_[track].c_str());
    out_ += "}},\n";
}

void JsonSink::args(const Slice &s) {
    out_ += ", \"args\": {";
    for (int i = 0; i < s.nargs; ++i) {
        const Arg &a = s.args[i];
        if (i != 0) out_ += ", ";
        str(a.name);
        out_ += ": ";
        char b[40];
        switch (a.type) {
        case Arg::kUint:
            std::snprintf(b, sizeof b, "%" PRIu64, a.u);
            out_ += b;
            break;
        case Arg::kInt:
            std::snprintf(b, sizeof b, "%" PRId64, a.i);
            out_ += b;
            break;
        case Arg::kDouble:
            std::snprintf(b, sizeof b, "%.17g", a.d);
            out_ += b;
            break;
        case Arg::kString: str(a.s); break;
        }
    }
    out_ += "}";
}

void JsonSink::head(const char *ph, const Slice &s, uint64_t tid) {
    out_ += "{\"ph\": \"";
    out_ += ph;
    out_ += "\", \"pid\": " + std::to_string(pid_) + ", \"tid\": " + std::to_string(tid) + ", \"ts\": ";
    us(s.start);
    out_ += ", \"name\": ";
    str(s.name);
    out_ += ", \"cat\": ";
    str(s.category);
}

void JsonSink::begin(const Slice &s) {
    progressed();
    uint64_t tid = tid_of(s.track);
    head("X", s, tid);
    out_ += ", \"dur\": ";
    dur(s.end - s.start);
    args(s);
    out_ += "},\n";
    // API side starts the flows (one per device slice), device side ends its one (binding to the
    // enclosing slice): each id has one start and one end, which chrome://tracing and Perfetto
    // both draw as one arrow.
    for (uint32_t i = 0; i < s.nflows; ++i) {
        out_ += host_category(s.category) ? "{\"ph\": \"s\"" : "{\"ph\": \"f\", \"bp\": \"e\"";
        out_ += ", \"pid\": " + std::to_string(pid_) + ", \"tid\": " + std::to_string(tid) + ", \"ts\": ";
        us(s.start);
        out_ += ", \"cat\": \"flow\", \"name\": \"launch\", \"id\": " + std::to_string(s.flow + i) + "},\n";
    }
}

void JsonSink::instant(const Slice &s) {
    progressed();
    uint64_t tid = tid_of(s.track);
    head("i", s, tid);
    out_ += tid == 0 ? ", \"s\": \"p\"" : ", \"s\": \"t\"";
    args(s);
    out_ += "},\n";
}

void JsonSink::counter(uint32_t, const char *name, uint64_t ts, int64_t value) {
    bool dropped = std::strcmp(name, "dropped records") == 0;
    out_ += "{\"ph\": \"C\", \"pid\": " + std::to_string(pid_) + ", \"ts\": ";
    us(ts);
    out_ += ", \"name\": ";
    str(name);
    out_ += dropped ? ", \"args\": {\"total\": " : ", \"args\": {\"bytes\": ";
    out_ += std::to_string(value) + "}},\n";
}

void JsonSink::stats(const Stats &st, uint64_t ts, bool final) {
    if (!final) return;
    final_stats_ = st;
    final_ts_ = ts;
    have_final_ = true;
    stats_event(st, ts);
}

void JsonSink::stats_event(const Stats &st, uint64_t ts) {
    out_ += "{\"ph\": \"i\", \"s\": \"p\", \"pid\": " + std::to_string(pid_) + ", \"tid\": 0, \"ts\": ";
    us(ts);
    out_ += ", \"name\": \"mspti-trace stats\", \"cat\": \"mspti-trace\", \"args\": {\"filtered\": " +
            std::to_string(st.filtered) + ", \"unmatched_ranges\": " + std::to_string(st.unmatched_ranges);
    if (!st.per_kind) out_ += ", \"per_kind_stats_unavailable\": 1";
    if (st.lost != 0) out_ += ", \"lost_to_write_failures\": " + std::to_string(st.lost);
    for (int k = 1; st.per_kind && k < MSPTI_ACTIVITY_KIND_COUNT; ++k) {
        if (!traced_kind(k)) continue;
        std::string kn = kind_name(static_cast<msptiActivityKind>(k));
        out_ += ", \"dropped." + kn + "\": " + std::to_string(st.kinds[k].dropped);
        out_ += ", \"produced." + kn + "\": " + std::to_string(st.kinds[k].produced);
        out_ += ", \"delivered." + kn + "\": " + std::to_string(st.kinds[k].delivered);
    }
    out_ += "}},\n";
}

bool JsonSink::write(const std::string &text, bool finish, bool held) {
    const std::string &head = head_;
    if (!gzip_) {
        std::string joined;
        const std::string &whole = head.empty() ? text : (joined = head + text);
        return held ? file_.append_held(whole.data(), whole.size()) : file_.append(whole.data(), whole.size());
    }
    // The gzip header goes with the first window; each window ends on a full flush (no reference
    // to what came before), so leaving one out leaves a valid deflate stream.
    std::string plain = head.empty() ? text : head.substr(10) + text;
    deflated_.assign(head.empty() ? "" : head.substr(0, 10));
    zs_.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(plain.data()));
    zs_.avail_in = static_cast<uInt>(plain.size());
    int flush = finish ? Z_FINISH : Z_FULL_FLUSH;
    int rc;
    do {
        char buf[16384];
        zs_.next_out = reinterpret_cast<Bytef *>(buf);
        zs_.avail_out = sizeof buf;
        rc = deflate(&zs_, flush);
        deflated_.append(buf, sizeof buf - zs_.avail_out);
    } while (rc == Z_OK && (zs_.avail_out == 0 || zs_.avail_in != 0 || (finish && rc != Z_STREAM_END)));
    uLong crc = crc32(crc_, reinterpret_cast<const Bytef *>(plain.data()), static_cast<uInt>(plain.size()));
    uint64_t isize = isize_ + plain.size();
    if (finish) {
        for (uint64_t v : {static_cast<uint64_t>(crc), isize & 0xFFFFFFFFu})
            for (int i = 0; i < 4; ++i) deflated_.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
    }
    bool ok =
        held ? file_.append_held(deflated_.data(), deflated_.size()) : file_.append(deflated_.data(), deflated_.size());
    if (ok) {
        crc_ = crc;
        isize_ = isize;
    } else if (finish) {
        deflateReset(&zs_);  // a raw stream again: the next try starts a fresh run of blocks
    }
    return ok;
}

void JsonSink::flush() {
    if (out_.empty() || !file_.is_open()) return;
    if (write(out_, false, false)) {
        head_.clear();
        out_.clear();
        return;
    }
    // The window is left out whole; the threads it named are named again in the next one.
    window_lost_ = true;
    final_lost_ = have_final_;
    report_write_failure(file_.path(), std::strerror(file_.error()));
    out_.clear();
    for (uint32_t t = 1; t < tids_.size(); ++t) thread_name(t);
}

void JsonSink::close() {
    if (closed_ || !file_.is_open()) return;
    closed_ = true;
    if (final_lost_) {
        // The last window could not be written: the stats alone, counting its records as lost.
        out_.clear();
        stats_event(with_window_lost(final_stats_), final_ts_);
    }
    // The last event closes the array: a metadata record with no trailing comma.
    out_ += "{\"ph\": \"M\", \"name\": \"mspti_trace_end\", \"pid\": " + std::to_string(pid_) + ", \"args\": {}}\n]}\n";
    if (!write(out_, true, false) && !write(out_, true, true) && final_lost_) final_stats_written_ = false;
    out_.clear();
    if (deflating_) deflateEnd(&zs_);
    deflating_ = false;
    file_.close();
}

}  // namespace mspti_trace

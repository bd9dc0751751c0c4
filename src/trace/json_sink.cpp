#include "json_sink.h"

#include <unistd.h>

#include <cerrno>
#include <cinttypes>
#include <cstring>

namespace mspti_trace {

JsonSink::~JsonSink() { close(); }

bool JsonSink::open(const std::string &path, std::string &error) {
    if (gzip_)
        gz_ = gzopen(path.c_str(), "wb6");
    else
        file_ = std::fopen(path.c_str(), "wbe");
    if (gz_ == nullptr && file_ == nullptr) {
        error = "cannot create " + path + ": " + std::strerror(errno);
        return false;
    }
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
    if (tid == 0) return;
    out_ += "{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": " + std::to_string(pid_) +
            ", \"tid\": " + std::to_string(tid) + ", \"args\": {\"name\": ";
    str(names_[t.index].c_str());
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
    uint64_t tid = tid_of(s.track);
    head("X", s, tid);
    out_ += ", \"dur\": ";
    dur(s.end - s.start);
    args(s);
    out_ += "},\n";
    if (s.flow == 0) return;
    // API side starts the flow, device side ends it (binding to the enclosing slice).
    out_ += host_category(s.category) ? "{\"ph\": \"s\"" : "{\"ph\": \"f\", \"bp\": \"e\"";
    out_ += ", \"pid\": " + std::to_string(pid_) + ", \"tid\": " + std::to_string(tid) + ", \"ts\": ";
    us(s.start);
    out_ += ", \"cat\": \"flow\", \"name\": \"launch\", \"id\": " + std::to_string(s.flow) + "},\n";
}

void JsonSink::instant(const Slice &s) {
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
    out_ += "{\"ph\": \"i\", \"s\": \"p\", \"pid\": " + std::to_string(pid_) + ", \"tid\": 0, \"ts\": ";
    us(ts);
    out_ += ", \"name\": \"mspti-trace stats\", \"cat\": \"mspti-trace\", \"args\": {\"filtered\": " +
            std::to_string(st.filtered) + ", \"unmatched_ranges\": " + std::to_string(st.unmatched_ranges);
    if (!st.per_kind) out_ += ", \"per_kind_stats_unavailable\": 1";
    for (int k = 1; st.per_kind && k < MSPTI_ACTIVITY_KIND_COUNT; ++k) {
        if (!traced_kind(k)) continue;
        std::string kn = kind_name(static_cast<msptiActivityKind>(k));
        out_ += ", \"dropped." + kn + "\": " + std::to_string(st.kinds[k].dropped);
        out_ += ", \"produced." + kn + "\": " + std::to_string(st.kinds[k].produced);
        out_ += ", \"delivered." + kn + "\": " + std::to_string(st.kinds[k].delivered);
    }
    out_ += "}},\n";
}

void JsonSink::flush() {
    if (out_.empty()) return;
    if (gz_ != nullptr) {
        gzwrite(gz_, out_.data(), static_cast<unsigned>(out_.size()));
        gzflush(gz_, Z_SYNC_FLUSH);  // a file cut short still inflates up to here
    } else if (file_ != nullptr) {
        std::fwrite(out_.data(), 1, out_.size(), file_);
        std::fflush(file_);
    }
    out_.clear();
}

void JsonSink::close() {
    if (closed_ || (gz_ == nullptr && file_ == nullptr)) return;
    closed_ = true;
    // The last event closes the array: a metadata record with no trailing comma.
    out_ += "{\"ph\": \"M\", \"name\": \"mspti_trace_end\", \"pid\": " + std::to_string(pid_) + ", \"args\": {}}\n]}\n";
    flush();
    if (gz_ != nullptr) gzclose(gz_);
    if (file_ != nullptr) std::fclose(file_);
    gz_ = nullptr;
    file_ = nullptr;
}

}  // namespace mspti_trace

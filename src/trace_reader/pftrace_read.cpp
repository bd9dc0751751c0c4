// mspti_pft_read and mspti_pft_free: a .pftrace read in chunks, one whole packet at a time, into
// the decoder; the read ends at a damaged packet and at the last whole one of a file cut short.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <new>
#include <string>
#include <vector>

#include "decoder.h"
#include "pftrace_columns.h"
#include "protobuf_read.h"
#include "proto.h"

namespace {

using mspti_trace::reader::Bad;
using mspti_trace::reader::Decoder;
using mspti_trace::reader::Store;
namespace field = mspti_trace::proto::field;

constexpr size_t kChunk = 8u << 20;  // bytes read at a time
constexpr uint8_t kPacketKey = field::kTracePacket << 3 | mspti_trace::proto::kLength;

// The result handed out: the C struct first, so that its address is the Result's.
struct Result {
    MsptiPftColumns cols;
    Store *store;
};

// Reads the file in chunks, one whole packet at a time; stops at the end, at a packet cut short,
// or at a damaged one (recorded in the store).
void read_file(int fd, uint64_t file_size, Decoder &dec, Store &s, MsptiPftColumns &cols) {
    std::vector<uint8_t> buf(std::min<uint64_t>(kChunk, file_size) + 16);
    size_t len = 0, pos = 0;
    uint64_t base = 0;  // file offset of buf[0]
    bool eof = false;
    auto refill = [&](size_t need) {  // keeps buf[pos..len), reads until need bytes are there or EOF
        if (pos > 0) {
            std::memmove(buf.data(), buf.data() + pos, len - pos);
            len -= pos;
            base += pos;
            pos = 0;
        }
        if (buf.size() < need) buf.resize(need);
        while (!eof && len < buf.size()) {
            const ssize_t n = ::read(fd, buf.data() + len, buf.size() - len);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) {
                if (n < 0) cols.io_errno = errno;
                eof = true;
                break;
            }
            len += static_cast<size_t>(n);
            if (len >= need) break;
        }
    };
    refill(0);
    while (true) {
        if (pos == len) {
            if (eof) return;
            refill(0);
            continue;
        }
        const uint8_t *p = buf.data() + pos, *end = buf.data() + len;
        uint64_t key = 0, n = 0;
        int r = 1;
        if (end - p >= 2 && p[0] == kPacketKey && p[1] < 0x80) {  // the key and a length under 128: one byte each
            key = p[0];
            n = p[1];
            p += 2;
        } else {
            r = mspti_trace::reader::try_varint(p, end, key);
            if (r > 0) r = mspti_trace::reader::try_varint(p, end, n);
        }
        if (r < 0) {
            s.damage_why = "varint too long";
            cols.damage_offset = static_cast<int64_t>(base + pos);
            return;
        }
        if (r == 0) {  // the header runs past what is in the buffer
            if (eof) return;
            refill(len - pos + 32);
            continue;
        }
        if (key != kPacketKey) {
            s.damage_why = "not a Trace.packet field (key " + std::to_string(key) + ")";
            cols.damage_offset = static_cast<int64_t>(base + pos);
            return;
        }
        const size_t head = static_cast<size_t>(p - (buf.data() + pos));
        if (n > file_size - (base + pos + head)) return;  // runs past the end of the file: cut short
        if (n > static_cast<uint64_t>(end - p)) {
            if (eof) return;
            refill(head + n);
            continue;
        }
        try {
            dec.packet(p, p + n);
        } catch (const Bad &b) {
            s.damage_why = b.why;
            cols.damage_offset = static_cast<int64_t>(base + pos);
            return;
        }
        pos += head + n;
    }
}

template <typename T>
const T *ptr(const std::vector<T> &v) {
    return v.empty() ? nullptr : v.data();
}

void publish(Store &s, MsptiPftColumns &c) {
    c.damage_why = s.damage_why.c_str();
    c.n_strings = s.string_offsets.size() - 1;
    c.string_data = s.string_data.data();
    c.string_offsets = s.string_offsets.data();
    c.n_tracks = s.track_uuid.size();
    c.track_uuid = ptr(s.track_uuid);
    c.track_parent = ptr(s.track_parent);
    c.track_has_parent = ptr(s.track_has_parent);
    c.track_kind = ptr(s.track_kind);
    c.track_name = ptr(s.track_name);
    c.n_groups = s.group_track.size();
    c.group_track = ptr(s.group_track);
    c.group_has_track = ptr(s.group_has_track);
    c.n_slices = s.slice_start.size();
    c.n_bad_times = s.n_bad_times;
    c.slice_start = ptr(s.slice_start);
    c.slice_end = ptr(s.slice_end);
    c.slice_group = ptr(s.slice_group);
    c.slice_name = ptr(s.slice_name);
    c.slice_cat = ptr(s.slice_cat);
    c.slice_arg_first = ptr(s.slice_arg_first);
    c.slice_arg_count = ptr(s.slice_arg_count);
    c.slice_bytes = ptr(s.slice_bytes);
    c.slice_bw = ptr(s.slice_bw);
    c.slice_comm = ptr(s.slice_comm);
    c.n_instants = s.instant_name.size();
    c.instant_name = ptr(s.instant_name);
    c.instant_cat = ptr(s.instant_cat);
    c.instant_arg_first = ptr(s.instant_arg_first);
    c.instant_arg_count = ptr(s.instant_arg_count);
    c.n_counters = s.counter_ts.size();
    c.counter_ts = ptr(s.counter_ts);
    c.counter_track = ptr(s.counter_track);
    c.counter_has_track = ptr(s.counter_has_track);
    c.counter_value = ptr(s.counter_value);
    c.counter_has_value = ptr(s.counter_has_value);
    c.n_args = s.arg_key.size();
    c.arg_key = ptr(s.arg_key);
    c.arg_type = ptr(s.arg_type);
    c.arg_int = ptr(s.arg_int);
    c.arg_double = ptr(s.arg_double);
    c.arg_str = ptr(s.arg_str);
}

}  // namespace

extern "C" __attribute__((visibility("default"))) MsptiPftColumns *mspti_pft_read(const char *path,
                                                                                  const char *const *arg_cats,
                                                                                  size_t n_arg_cats,
                                                                                  const char *const *arg_names,
                                                                                  size_t n_arg_names) {
    Result *r = nullptr;
    try {
        r = new Result{};
        r->store = new Store;
        r->cols.damage_offset = -1;
        Decoder dec(*r->store, arg_cats, n_arg_cats, arg_names, n_arg_names);
        const int fd = path != nullptr ? ::open(path, O_RDONLY | O_CLOEXEC) : -1;
        if (fd < 0) {
            r->cols.io_errno = path != nullptr ? errno : EINVAL;
        } else {
            struct stat st {};
            if (::fstat(fd, &st) == 0) {
                r->cols.file_size = static_cast<uint64_t>(st.st_size);
                dec.expect(r->cols.file_size);
                read_file(fd, r->cols.file_size, dec, *r->store, r->cols);
            } else {
                r->cols.io_errno = errno;
            }
            ::close(fd);
        }
        dec.pair();
        publish(*r->store, r->cols);
        return &r->cols;
    } catch (const std::bad_alloc &) {
        if (r != nullptr) delete r->store;
        delete r;
        return nullptr;
    }
}

extern "C" __attribute__((visibility("default"))) void mspti_pft_free(MsptiPftColumns *columns) {
    if (columns == nullptr) return;
    Result *r = reinterpret_cast<Result *>(columns);  // cols is Result's first member
    delete r->store;
    delete r;
}

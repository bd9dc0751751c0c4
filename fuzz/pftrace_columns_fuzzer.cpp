// libFuzzer target: the native pftrace decoder (src/trace_reader) over arbitrary bytes, given to
// it as a file (a memfd: the decoder reads files in chunks). Every column it hands back must stay
// inside its tables: string ids, arg ranges, slice times paired BEGIN before END.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "pftrace_columns.h"

namespace {
void check(bool ok) {
    if (!ok) std::abort();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const int fd = memfd_create("pftrace", MFD_CLOEXEC);
    if (fd < 0) return 0;
    if (size != 0 && write(fd, data, size) != static_cast<ssize_t>(size)) {
        close(fd);
        return 0;
    }
    char path[64];
    std::snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    const char *cats[] = {"hccl", "communication"};
    const char *names[] = {"mspti-trace stats"};
    MsptiPftColumns *c = mspti_pft_read(path, cats, 2, names, 1);
    close(fd);
    if (c == nullptr) return 0;
    check(c->file_size == size);
    check(c->damage_offset < static_cast<int64_t>(size));
    const auto sid_ok = [&](int32_t s) { return s >= -1 && s < static_cast<int64_t>(c->n_strings); };
    for (uint64_t i = 0; i < c->n_strings; ++i) check(c->string_offsets[i] <= c->string_offsets[i + 1]);
    for (uint64_t i = 0; i < c->n_tracks; ++i) check(sid_ok(c->track_name[i]) && c->track_kind[i] <= 2);
    for (uint64_t i = 0; i < c->n_slices; ++i) {
        check(c->slice_start[i] <= c->slice_end[i]);
        check(sid_ok(c->slice_name[i]) && sid_ok(c->slice_cat[i]));
        check(c->slice_arg_count[i] == 0 ||
              (c->slice_arg_first[i] >= 0 && c->slice_arg_first[i] + c->slice_arg_count[i] <= int64_t(c->n_args)));
    }
    for (uint64_t i = 0; i < c->n_instants; ++i) {
        check(sid_ok(c->instant_name[i]) && sid_ok(c->instant_cat[i]));
        check(
            c->instant_arg_count[i] == 0 ||
            (c->instant_arg_first[i] >= 0 && c->instant_arg_first[i] + c->instant_arg_count[i] <= int64_t(c->n_args)));
    }
    for (uint64_t i = 0; i < c->n_args; ++i) {
        check(c->arg_key[i] >= 0 && sid_ok(c->arg_key[i]));
        check(c->arg_type[i] != 4 || (c->arg_str[i] >= 0 && sid_ok(c->arg_str[i])));
    }
    mspti_pft_free(c);
    return 0;
}

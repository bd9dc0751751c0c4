// libFuzzer target: the native pftrace decoder (src/trace_reader) over arbitrary bytes, given to
// it as a file (a memfd: the decoder reads files in chunks). Every column it hands back must stay
// inside its tables: string ids, arg ranges, slice times paired BEGIN before END; and the
// grouping of those slices (mspti_pft_group) must count each one once.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

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
        check(0 <= c->slice_start[i] && c->slice_start[i] <= c->slice_end[i]);
        check(c->slice_name[i] >= 0 && sid_ok(c->slice_name[i]) && c->slice_cat[i] >= 0 && sid_ok(c->slice_cat[i]));
        check(c->slice_group[i] >= 0 && uint64_t(c->slice_group[i]) < c->n_groups);
        check(i == 0 || c->slice_group[i] >= c->slice_group[i - 1]);  // listed group by group
        check(c->slice_comm[i] >= MSPTI_PFT_COMM_NOT_STRING && sid_ok(c->slice_comm[i] < 0 ? -1 : c->slice_comm[i]));
        check(c->slice_arg_count[i] == 0 ||
              (c->slice_arg_first[i] >= 0 && c->slice_arg_first[i] + c->slice_arg_count[i] <= int64_t(c->n_args)));
    }
    // The grouping summary and analyze use, over the slices by (category, name): every slice counted once.
    if (c->n_slices != 0) {
        const size_t n = c->n_slices;
        std::vector<int32_t> ga(n), gb(n);
        std::vector<int64_t> count(n), total(n), lo(n), hi(n), nbytes(n);
        const int64_t groups =
            mspti_pft_group(n, c->slice_cat, c->slice_name, c->slice_start, c->slice_end, c->slice_bytes, nullptr,
                            ga.data(), gb.data(), count.data(), total.data(), lo.data(), hi.data(), nbytes.data());
        check(groups >= 1 && uint64_t(groups) <= n);
        int64_t seen = 0;
        for (int64_t g = 0; g < groups; ++g) {
            check(count[g] >= 1 && 0 <= lo[g] && lo[g] <= hi[g]);
            seen += count[g];
        }
        check(seen == int64_t(n));
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

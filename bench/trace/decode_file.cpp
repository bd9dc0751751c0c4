// Decodes a .pftrace with a given libmspti_trace_reader.so, for callgrind (docs/performance.md,
// "Trace readers"): the decoder's instructions, which the machine's load does not move.
//
//   c++ -O2 -o decode_file bench/trace/decode_file.cpp -ldl
//   valgrind --tool=callgrind --toggle-collect=mspti_pft_read ./decode_file LIB.so FILE.pftrace
//
// Prints the slice, instant and counter counts (the same for two versions of the library that
// agree) and the CPU time of the decode.
#include <dlfcn.h>

#include <cstdint>
#include <cstdio>
#include <ctime>

namespace {
// The leading fields every version of MsptiPftColumns has.
struct Head {
    uint64_t file_size;
    int64_t damage_offset;
    const char *damage_why;
};
using Read = void *(*)(const char *, const char *const *, size_t, const char *const *, size_t);
using Free = void (*)(void *);
}  // namespace

int main(int argc, char **argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: %s LIB.so FILE.pftrace\n", argv[0]);
        return 2;
    }
    void *lib = dlopen(argv[1], RTLD_NOW);
    if (lib == nullptr) {
        std::fprintf(stderr, "%s\n", dlerror());
        return 2;
    }
    const auto read = reinterpret_cast<Read>(dlsym(lib, "mspti_pft_read"));
    const auto release = reinterpret_cast<Free>(dlsym(lib, "mspti_pft_free"));
    if (read == nullptr || release == nullptr) {
        std::fprintf(stderr, "%s: no mspti_pft_read/mspti_pft_free\n", argv[1]);
        return 2;
    }
    const char *cats[] = {"hccl", "communication"};
    const char *names[] = {"mspti-trace stats"};
    timespec t0{}, t1{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
    void *c = read(argv[2], cats, 2, names, 1);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
    if (c == nullptr) {
        std::fprintf(stderr, "out of memory\n");
        return 1;
    }
    const Head *h = static_cast<const Head *>(c);
    std::printf("%s: %llu bytes, damage at %lld, decode CPU %.3f s\n", argv[2],
                static_cast<unsigned long long>(h->file_size), static_cast<long long>(h->damage_offset),
                double(t1.tv_sec - t0.tv_sec) + double(t1.tv_nsec - t0.tv_nsec) / 1e9);
    release(c);
    return 0;
}

#include "libmspti_ext.h"

#include <dlfcn.h>

#include <cstdio>

#include "common/diagnostics.h"

namespace mspti_trace {

const LibmsptiExt &libmspti_ext() {
    static const LibmsptiExt *ext = [] {
        auto *e = new LibmsptiExt;  // never freed: used until the process ends
        e->get_stats = reinterpret_cast<decltype(e->get_stats)>(dlsym(RTLD_DEFAULT, "msptiExtActivityGetStats"));
        e->last_error = reinterpret_cast<decltype(e->last_error)>(dlsym(RTLD_DEFAULT, "msptiExtGetLastError"));
        e->result_string = reinterpret_cast<decltype(e->result_string)>(dlsym(RTLD_DEFAULT, "msptiExtResultString"));
        if (e->get_stats == nullptr)
            std::fprintf(stderr,
                         "mspti-trace: libmspti.so has no msptiExtActivityGetStats: records produced, delivered and "
                         "dropped per kind are unavailable in this trace\n");
        return e;
    }();
    return *ext;
}

const char *last_error_text() {
    const LibmsptiExt &e = libmspti_ext();
    return e.last_error != nullptr ? e.last_error() : "";
}

const char *result_text(msptiResult result) {
    const LibmsptiExt &e = libmspti_ext();
    if (e.result_string != nullptr) return e.result_string(result);
    return mspti::result_name(result);  // msPTI's library names no results
}

}  // namespace mspti_trace

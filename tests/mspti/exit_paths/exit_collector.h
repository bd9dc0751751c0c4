// A minimal Activity API client for the exit-path programs: counts marker records by name.
#pragma once

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "mspti/mspti.h"
#include "mspti/mspti_ext.h"

namespace exit_test {

inline std::mutex g_mutex;
inline std::vector<std::string> g_names;  // of every marker record delivered ("" for range ends)

inline void Request(uint8_t **buffer, size_t *size, size_t *max_records) {
    constexpr size_t kBytes = 1 << 16;
    *buffer = static_cast<uint8_t *>(std::aligned_alloc(8, kBytes));
    *size = *buffer != nullptr ? kBytes : 0;
    *max_records = 0;
}

inline void Complete(uint8_t *buffer, size_t, size_t valid) {
    msptiActivity *record = nullptr;
    std::lock_guard<std::mutex> lock(g_mutex);
    while (msptiActivityGetNextRecord(buffer, valid, &record) == MSPTI_SUCCESS)
        if (record->kind == MSPTI_ACTIVITY_KIND_MARKER) {
            const char *name = reinterpret_cast<msptiActivityMarker *>(record)->name;  // packed: copy first
            g_names.emplace_back(name);
        }
    std::free(buffer);
}

inline size_t Count(const char *name) {
    std::lock_guard<std::mutex> lock(g_mutex);
    size_t n = 0;
    for (const std::string &s : g_names) n += s == name;
    return n;
}

inline size_t Total() {
    std::lock_guard<std::mutex> lock(g_mutex);
    return g_names.size();
}

inline msptiExtActivityStats MarkerStats() {
    msptiExtActivityStats s{};
    msptiExtActivityGetStats(MSPTI_ACTIVITY_KIND_MARKER, &s);
    return s;
}

}  // namespace exit_test

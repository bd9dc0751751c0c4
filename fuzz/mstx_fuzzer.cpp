// libFuzzer target: mstx names and domains through the public API. The input is a program of
// operations (mark, range start/end, domain create/destroy/mark/range, domain enable/disable,
// flush, MARKER on/off) with arbitrary strings, ids and handles; every delivered record's name
// and domain are read, so a name freed or never terminated shows up under ASan.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "mspti/mspti.h"
#include "mstx/ms_tools_ext.h"

namespace {

void Request(uint8_t **buffer, size_t *size, size_t *max_records) {
    constexpr size_t kBytes = 16 * 1024;
    *buffer = static_cast<uint8_t *>(std::aligned_alloc(8, kBytes));
    *size = *buffer != nullptr ? kBytes : 0;
    *max_records = 0;
}

volatile size_t g_sink;
size_t g_markers = 0;  // only the first flush, on the fuzzer's thread, reads it

void Complete(uint8_t *buffer, size_t, size_t valid) {
    msptiActivity *record = nullptr;
    while (msptiActivityGetNextRecord(buffer, valid, &record) == MSPTI_SUCCESS) {
        if (record->kind != MSPTI_ACTIVITY_KIND_MARKER) continue;
        ++g_markers;
        auto *marker = reinterpret_cast<msptiActivityMarker *>(record);
        const char *name = marker->name;
        const char *domain = marker->domain;
        if (name == nullptr || domain == nullptr) std::abort();
        g_sink = std::strlen(name) + std::strlen(domain);
    }
    std::free(buffer);
}

// Reads the input front to back; past its end everything reads as zero.
struct Reader {
    const uint8_t *data;
    size_t size;
    bool done() const { return size == 0; }
    uint8_t byte() {
        if (size == 0) return 0;
        --size;
        return *data++;
    }
    uint64_t u64() {
        uint64_t v = 0;
        for (int i = 0; i < 8; ++i) v = v << 8 | byte();
        return v;
    }
    // Up to 300 bytes (past the 255-character limit); may hold NULs and any byte.
    std::string text() {
        size_t n = byte();
        if (n == 255) n += byte() % 64;
        std::string s;
        while (n-- > 0 && size > 0) s.push_back(static_cast<char>(byte()));
        return s;
    }
};

bool g_started = [] {
    msptiActivityRegisterCallbacks(&Request, &Complete);
    msptiActivityEnable(MSPTI_ACTIVITY_KIND_MARKER);
    // The harness is live only if the mstx header found the library: check once.
    mstxMarkA("harness check", nullptr);
    msptiActivityFlushAll(1);
    if (g_markers == 0) std::abort();
    return true;
}();

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    Reader in{data, size};
    std::vector<mstxRangeId> ranges;
    std::vector<mstxDomainHandle_t> domains;
    auto pick_range = [&]() -> mstxRangeId {
        uint8_t sel = in.byte();
        if (sel < 200 && !ranges.empty()) return ranges[sel % ranges.size()];
        return sel == 255 ? in.u64() : sel - 200;
    };
    auto pick_domain = [&]() -> mstxDomainHandle_t {
        uint8_t sel = in.byte();
        if (sel < 200 && !domains.empty()) {
            // A handle as created (possibly NULL), or one a few bytes off it.
            auto d = reinterpret_cast<uintptr_t>(domains[sel % domains.size()]);
            return reinterpret_cast<mstxDomainHandle_t>(d + (sel & 0x10 ? in.byte() % 16 : 0));
        }
        return sel == 255 ? reinterpret_cast<mstxDomainHandle_t>(static_cast<uintptr_t>(in.u64())) : nullptr;
    };
    while (!in.done()) {
        switch (in.byte() % 13) {
        case 0: mstxMarkA(in.text().c_str(), nullptr); break;
        case 1: mstxMarkA(nullptr, nullptr); break;
        case 2: ranges.push_back(mstxRangeStartA(in.text().c_str(), nullptr)); break;
        case 3: mstxRangeEnd(pick_range()); break;
        case 4: domains.push_back(mstxDomainCreateA(in.text().c_str())); break;
        case 5: mstxDomainDestroy(pick_domain()); break;
        case 6: mstxDomainMarkA(pick_domain(), in.text().c_str(), nullptr); break;
        case 7: {
            mstxDomainHandle_t d = pick_domain();
            ranges.push_back(mstxDomainRangeStartA(d, in.text().c_str(), nullptr));
            break;
        }
        case 8: {
            mstxDomainHandle_t d = pick_domain();
            mstxDomainRangeEnd(d, pick_range());
            break;
        }
        case 9: msptiActivityEnableMarkerDomain(in.text().c_str()); break;
        case 10: msptiActivityDisableMarkerDomain(in.text().c_str()); break;
        case 11: msptiActivityFlushAll(1); break;
        case 12:
            if (in.byte() & 1) {
                msptiActivityEnable(MSPTI_ACTIVITY_KIND_MARKER);
            } else {
                msptiActivityDisable(MSPTI_ACTIVITY_KIND_MARKER);
            }
            break;
        }
    }
    msptiActivityFlushAll(1);
    msptiActivityEnable(MSPTI_ACTIVITY_KIND_MARKER);
    return 0;
}

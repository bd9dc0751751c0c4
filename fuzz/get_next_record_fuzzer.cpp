// libFuzzer target: msptiActivityGetNextRecord over arbitrary bytes. The first byte chooses the
// walk's start (NULL or a record pointer somewhere in the buffer), the next the valid size; the
// rest is the buffer, copied to 8-byte aligned memory as the library's own buffers are.
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "mspti/mspti.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 2) return 0;
    uint8_t start = data[0];
    uint8_t trim = data[1];
    data += 2;
    size -= 2;
    auto *buffer = static_cast<uint8_t *>(std::aligned_alloc(8, (size + 8) / 8 * 8));
    if (buffer == nullptr) return 0;
    std::memcpy(buffer, data, size);
    // Valid bytes: the whole buffer, or fewer (never more: the caller vouches for them).
    size_t valid = size - (size != 0 ? trim % (size + 1) : 0);

    msptiActivity *record = nullptr;
    if (start != 0 && size != 0) record = reinterpret_cast<msptiActivity *>(buffer + start % size);
    size_t steps = 0;
    while (msptiActivityGetNextRecord(buffer, valid, &record) == MSPTI_SUCCESS) {
        auto *at = reinterpret_cast<uint8_t *>(record);
        // Every record handed out lies inside the valid bytes, and the walk moves forward.
        if (at < buffer || at + sizeof(msptiActivity) > buffer + valid) std::abort();
        if (++steps > valid) std::abort();
    }
    std::free(buffer);
    return 0;
}

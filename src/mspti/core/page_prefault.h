// Faults in the pages of a client buffer before records are drained into it, so that the first
// write to each page does not take a page fault on whichever thread drains (often an
// application thread: docs/architecture.md, "Client buffers ahead of need").
#pragma once

#include <cstddef>
#include <cstdint>

namespace mspti {

// At most this many bytes of a buffer are faulted in: the first ones and the last kPrefaultTail.
constexpr size_t kPrefaultMax = size_t{16} << 20;
constexpr size_t kPrefaultTail = size_t{64} << 10;

// Makes the pages of [data, data + size) present and writable (up to kPrefaultMax bytes of them). The buffer is the caller's to
// write (given by the request callback, not yet handed back): its bytes may change.
void prefault_pages(uint8_t *data, size_t size);

}  // namespace mspti

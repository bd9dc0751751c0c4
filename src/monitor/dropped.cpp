// The dropped-record counts behind MonitorStats::dropped. libmspti_monitor runs on any
// msPTI-compatible libmspti.so, and msPTI has no such count: the extensions are optional (libmspti.h).
#include "monitor/internal.h"
#include "monitor/libmspti.h"

namespace mspti::detail {

uint64_t dropped_records(int kind) {
    const Libmspti &lib = libmspti();
    if (lib.ext_dropped == nullptr) return 0;
    uint64_t dropped = 0;
    if (lib.ext_dropped(static_cast<msptiActivityKind>(kind), &dropped) != MSPTI_SUCCESS) return 0;
    return dropped;
}

bool reports_discarded() { return libmspti().ext_report_discarded != nullptr; }

bool report_discarded(int kind, uint64_t count) {
    if (!reports_discarded()) return false;
    libmspti().ext_report_discarded(static_cast<msptiActivityKind>(kind), count);
    return true;
}

}  // namespace mspti::detail

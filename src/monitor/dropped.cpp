// The dropped-record counts behind MonitorStats::dropped. libmspti_monitor runs on any
// msPTI-compatible libmspti.so, and msPTI has no such count: the extension is looked up weakly.
#include "mspti/mspti_ext.h"
#include "monitor/internal.h"

#pragma weak msptiExtActivityGetNumDroppedRecords
#pragma weak msptiExtActivityReportDiscarded

namespace mspti::detail {

uint64_t dropped_records(int kind) {
    if (&msptiExtActivityGetNumDroppedRecords == nullptr) return 0;
    uint64_t dropped = 0;
    if (msptiExtActivityGetNumDroppedRecords(static_cast<msptiActivityKind>(kind), &dropped) != MSPTI_SUCCESS) return 0;
    return dropped;
}

bool reports_discarded() { return &msptiExtActivityReportDiscarded != nullptr; }

bool report_discarded(int kind, uint64_t count) {
    if (!reports_discarded()) return false;
    msptiExtActivityReportDiscarded(static_cast<msptiActivityKind>(kind), count);
    return true;
}

}  // namespace mspti::detail

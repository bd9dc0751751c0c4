// Internal pieces of libmspti_monitor shared between its source files. Not installed.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "common/diagnostics.h"
#include "monitor_binding.h"  // the user API and what the bindings need


namespace mspti::detail {

/** Counters of one monitor; written only by the delivery thread, read by stats(). */
struct Counters {
    std::atomic<uint64_t> delivered{0};
    std::atomic<uint64_t> callback_errors{0};
    std::atomic<uint64_t> unpaired_dropped{0};
    std::atomic<uint64_t> dropped{0};  // collected for the monitor, never handed over (stop bound, exit)
    std::atomic<uint64_t> dropped_taken{0};  // ... of which another monitor took them (libmspti: delivered)
};

/** Sets the calling thread's last error message and returns `result` (libmspti's, in src/mspti/common). */
using mspti::fail;

/**
 * Records of `kind` libmspti dropped since the process started (msptiExtActivityGetNumDroppedRecords),
 * or 0 where libmspti.so does not have that extension.
 */
uint64_t dropped_records(int kind);

/**
 * Tells libmspti that `count` delivered records of `kind` were discarded unprocessed
 * (msptiExtActivityReportDiscarded), so that its dropped count includes them. False where
 * libmspti.so does not have that extension: then only the monitor's own stats count them.
 */
bool report_discarded(int kind, uint64_t count);

/** Whether libmspti.so has msptiExtActivityReportDiscarded. */
bool reports_discarded();


}  // namespace mspti::detail

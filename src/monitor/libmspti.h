// The libmspti.so that libmspti_monitor calls, chosen once per process by the rule of
// docs/install.md ("Which libmspti.so is used"): one already loaded in the process wins, then the
// MSPTI_LIBRARY environment variable, then the one installed beside libmspti_monitor.so.
// libmspti_monitor does not link libmspti, so that msPTI's own library (soname libmspti.so) and ours
// (libmspti.so.0) are never both loaded; every msptiExt* function is optional.
#pragma once

#include <string>

#include "mspti/mspti_activity.h"
#include "mspti/mspti_callback.h"
#include "mspti/mspti_ext.h"

namespace mspti::detail {

/** The C functions of the chosen libmspti.so; the msptiExt* ones are null where it lacks them. */
struct Libmspti {
    bool loaded = false;
    std::string path;  // the library's file
    std::string error;  // why none was loaded (names the path), when !loaded
    decltype(&msptiActivityRegisterCallbacks) register_callbacks = nullptr;
    decltype(&msptiSubscribe) subscribe = nullptr;
    decltype(&msptiUnsubscribe) unsubscribe = nullptr;
    decltype(&msptiActivityEnable) enable = nullptr;
    decltype(&msptiActivityDisable) disable = nullptr;
    decltype(&msptiActivityFlushAll) flush_all = nullptr;
    decltype(&msptiActivityFlushPeriod) flush_period = nullptr;
    decltype(&msptiActivityGetNextRecord) get_next_record = nullptr;
    decltype(&msptiActivityEnableMarkerDomain) enable_marker_domain = nullptr;
    decltype(&msptiActivityDisableMarkerDomain) disable_marker_domain = nullptr;
    decltype(&msptiExtActivityGetNumDroppedRecords) ext_dropped = nullptr;
    decltype(&msptiExtActivityReportDiscarded) ext_report_discarded = nullptr;
    decltype(&msptiExtResultString) ext_result_string = nullptr;
    decltype(&msptiExtGetVersionString) ext_version = nullptr;
    decltype(&msptiExtDeviceGetStats) ext_device_stats = nullptr;
};

/**
 * The chosen library, resolved on first use (or when libmspti_monitor.so is loaded). Where it lacks
 * extensions, one line on stderr says what is unavailable.
 */
const Libmspti &libmspti();

/**
 * The name of a result code ("MSPTI_ERROR_INVALID_PARAMETER"): the chosen library's
 * msptiExtResultString, or the shared table (common/diagnostics.h) where the library lacks it.
 */
const char *result_text(int code);

}  // namespace mspti::detail

// The msptiExt* functions mspti-trace uses, looked up at run time: msPTI's own libmspti.so has none
// of them, and libmspti_trace.so links no libmspti (the launcher preloads the one the rule of
// docs/install.md chooses), so it runs on either library.
#pragma once

#include "mspti/mspti_ext.h"

namespace mspti_trace {

/** The extensions of the preloaded libmspti.so; null where it lacks them. */
struct LibmsptiExt {
    decltype(&msptiExtActivityGetStats) get_stats = nullptr;
    decltype(&msptiExtGetLastError) last_error = nullptr;
    decltype(&msptiExtResultString) result_string = nullptr;
};

/** Looked up once; the first call says on stderr, once, what is unavailable. */
const LibmsptiExt &libmspti_ext();

/** The calling thread's last libmspti error message, or "" where the library keeps none. */
const char *last_error_text();

/** The name of a result code: libmspti's own where it has msptiExtResultString, else the shared table. */
const char *result_text(msptiResult result);

}  // namespace mspti_trace

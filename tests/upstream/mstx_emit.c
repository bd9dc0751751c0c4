/* Markers from Python for msPTI's MstxMonitor: the header-only mstx API (include/mstx), loaded with
 * ctypes. With msPTI's libmspti, the header finds libprofapi's InitInjectionMstx, which hands it on to
 * what libmspti registered with ProfRegisterMstxFunc. */
#include <stdint.h>

#include "mstx/ms_tools_ext.h"

__attribute__((visibility("default"))) void emit_mark(const char *message, void *stream) { mstxMarkA(message, stream); }

__attribute__((visibility("default"))) uint64_t emit_range_start(const char *message, void *stream) {
    return mstxRangeStartA(message, stream);
}

__attribute__((visibility("default"))) void emit_range_end(uint64_t id) { mstxRangeEnd(id); }

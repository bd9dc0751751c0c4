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

/* Domains, for the mspti.mstx stand-in of test_differential_python.py (guide_capture.py). */
__attribute__((visibility("default"))) void *emit_domain_create(const char *name) { return mstxDomainCreateA(name); }

__attribute__((visibility("default"))) void emit_domain_mark(void *domain, const char *message, void *stream) {
    mstxDomainMarkA((mstxDomainHandle_t)domain, message, stream);
}

__attribute__((visibility("default"))) uint64_t emit_domain_range_start(void *domain, const char *message,
                                                                        void *stream) {
    return mstxDomainRangeStartA((mstxDomainHandle_t)domain, message, stream);
}

__attribute__((visibility("default"))) void emit_domain_range_end(void *domain, uint64_t id) {
    mstxDomainRangeEnd((mstxDomainHandle_t)domain, id);
}

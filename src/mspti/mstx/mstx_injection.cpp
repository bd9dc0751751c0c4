// libmspti as an mstx tool: InitInjectionMstx fills the mstx function tables (protocol of
// MindStudio's mstx), found through MSTX_INJECTION_PATH or, with libmspti already loaded,
// through the process's global symbols. The mstx functions are also exported directly, for
// programs built with MSTX_NO_IMPL.
#include "mstx/marker_recorder.h"

#define MSPTI_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

template <typename F>
void fill(mstxFuncTable table, unsigned size, unsigned slot, F function) {
    if (slot < size && table[slot] != nullptr) *table[slot] = reinterpret_cast<mstxFuncPointer>(function);
}

}  // namespace

MSPTI_EXPORT int InitInjectionMstx(mstxGetModuleFuncTableFunc getFuncTable) {
    if (getFuncTable == nullptr) return MSTX_FAIL;
    using namespace mspti::mstx;
    mstxFuncTable table = nullptr;
    unsigned size = 0;
    if (getFuncTable(MSTX_API_MODULE_CORE, &table, &size) != MSTX_SUCCESS || table == nullptr) return MSTX_FAIL;
    fill(table, size, MSTX_API_CORE_MARK_A, &mark);
    fill(table, size, MSTX_API_CORE_RANGE_START_A, &range_start);
    fill(table, size, MSTX_API_CORE_RANGE_END, &range_end);
    table = nullptr;
    size = 0;
    if (getFuncTable(MSTX_API_MODULE_CORE_DOMAIN, &table, &size) == MSTX_SUCCESS && table != nullptr) {
        fill(table, size, MSTX_API_CORE2_DOMAIN_CREATE_A, &domain_create);
        fill(table, size, MSTX_API_CORE2_DOMAIN_DESTROY, &domain_destroy);
        fill(table, size, MSTX_API_CORE2_DOMAIN_MARK_A, &domain_mark);
        fill(table, size, MSTX_API_CORE2_DOMAIN_RANGE_START_A, &domain_range_start);
        fill(table, size, MSTX_API_CORE2_DOMAIN_RANGE_END, &domain_range_end);
    }
    return MSTX_SUCCESS;
}

MSPTI_EXPORT void mstxMarkA(const char *message, aclrtStream stream) { mspti::mstx::mark(message, stream); }
MSPTI_EXPORT mstxRangeId mstxRangeStartA(const char *message, aclrtStream stream) {
    return mspti::mstx::range_start(message, stream);
}
MSPTI_EXPORT void mstxRangeEnd(mstxRangeId id) { mspti::mstx::range_end(id); }
MSPTI_EXPORT mstxDomainHandle_t mstxDomainCreateA(const char *name) { return mspti::mstx::domain_create(name); }
MSPTI_EXPORT void mstxDomainDestroy(mstxDomainHandle_t domain) { mspti::mstx::domain_destroy(domain); }
MSPTI_EXPORT void mstxDomainMarkA(mstxDomainHandle_t domain, const char *message, aclrtStream stream) {
    mspti::mstx::domain_mark(domain, message, stream);
}
MSPTI_EXPORT mstxRangeId mstxDomainRangeStartA(mstxDomainHandle_t domain, const char *message, aclrtStream stream) {
    return mspti::mstx::domain_range_start(domain, message, stream);
}
MSPTI_EXPORT void mstxDomainRangeEnd(mstxDomainHandle_t domain, mstxRangeId id) {
    mspti::mstx::domain_range_end(domain, id);
}
MSPTI_EXPORT void mstxGetToolId(uint64_t *id) {
    if (id != nullptr) *id = MSTX_TOOL_INVALID_ID;
}

// libmsprofiler's aclprof* API: declared so CANN programs link; the virtual NPU profiles through msPTI
// and libprofapi/libascend_hal (prof_reports.h), so each of these reports ACL_ERROR_API_NOT_SUPPORT.
#include "acl/acl_prof.h"
#include "export.h"

extern "C" {

VNPU_EXPORT aclError aclprofInit(const char *, size_t) { return ACL_ERROR_API_NOT_SUPPORT; }
VNPU_EXPORT aclError aclprofFinalize(void) { return ACL_ERROR_API_NOT_SUPPORT; }
VNPU_EXPORT aclprofConfig *aclprofCreateConfig(uint32_t *, uint32_t, aclprofAicoreMetrics, const aclprofAicoreEvents *,
                                               uint64_t) {
    return nullptr;
}
VNPU_EXPORT aclError aclprofDestroyConfig(const aclprofConfig *) { return ACL_ERROR_API_NOT_SUPPORT; }
VNPU_EXPORT aclError aclprofStart(const aclprofConfig *) { return ACL_ERROR_API_NOT_SUPPORT; }
VNPU_EXPORT aclError aclprofStop(const aclprofConfig *) { return ACL_ERROR_API_NOT_SUPPORT; }
VNPU_EXPORT aclError aclprofSetConfig(aclprofConfigType, const char *, size_t) { return ACL_ERROR_API_NOT_SUPPORT; }
VNPU_EXPORT void *aclprofCreateStamp(void) { return nullptr; }
VNPU_EXPORT void aclprofDestroyStamp(void *) {}
VNPU_EXPORT aclError aclprofPush(void *) { return ACL_ERROR_API_NOT_SUPPORT; }
VNPU_EXPORT aclError aclprofPop(void) { return ACL_ERROR_API_NOT_SUPPORT; }
VNPU_EXPORT aclError aclprofRangeStart(void *, uint32_t *) { return ACL_ERROR_API_NOT_SUPPORT; }
VNPU_EXPORT aclError aclprofRangeStop(uint32_t) { return ACL_ERROR_API_NOT_SUPPORT; }
VNPU_EXPORT aclError aclprofMark(void *) { return ACL_ERROR_API_NOT_SUPPORT; }
VNPU_EXPORT aclError aclprofMarkEx(const char *, size_t, aclrtStream) { return ACL_ERROR_API_NOT_SUPPORT; }
VNPU_EXPORT aclError aclprofSetStampTraceMessage(void *, const char *, uint32_t) { return ACL_ERROR_API_NOT_SUPPORT; }
VNPU_EXPORT aclError aclprofGetStepTimestamp(aclprofStepInfo *, aclprofStepTag, aclrtStream) {
    return ACL_ERROR_API_NOT_SUPPORT;
}

}  // extern "C"

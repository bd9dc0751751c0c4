// mstx domains on a stream (after msPTI's sample mspti_mstx_activity_domain): a range in a domain
// with a stream (host and device markers), the same range while the domain is disabled by name
// (nothing), and again after re-enabling it, without a stream (host markers only).
#include "acl/acl.h"
#include "common/helper_mspti.h"
#include "common/util_acl.h"
#include "mstx/ms_tools_ext.h"

int main() {
    // Subscribed before the device is set, as the original.
    sample::InitMspti();
    MSPTI_CALL(msptiActivityEnable(MSPTI_ACTIVITY_KIND_MARKER));

    int32_t deviceId = 0;
    aclrtContext context = nullptr;
    aclrtStream stream = nullptr;
    if (Init(deviceId, &context, &stream) != 0) return 1;

    mstxDomainHandle_t domain = mstxDomainCreateA("domainRange");
    mstxRangeId id = mstxDomainRangeStartA(domain, "range on stream", stream);
    ACL_CALL(aclrtSynchronizeStream(stream));
    mstxDomainRangeEnd(domain, id);

    MSPTI_CALL(msptiActivityDisableMarkerDomain("domainRange"));
    id = mstxDomainRangeStartA(domain, "range while disabled", stream);
    mstxDomainRangeEnd(domain, id);

    MSPTI_CALL(msptiActivityEnableMarkerDomain("domainRange"));
    ACL_CALL(aclrtSetCurrentContext(context));
    id = mstxDomainRangeStartA(domain, "range on host", nullptr);
    mstxDomainRangeEnd(domain, id);
    mstxDomainDestroy(domain);

    ACL_CALL(aclrtSynchronizeStream(stream));
    DeInit(deviceId, context, stream);
    sample::DeInitMspti();
    return 0;
}

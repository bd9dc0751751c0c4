// MSPTI_ERROR_WITHOUT_LD_PRELOAD is decided by symbol resolution: libmspti dlopen'ed RTLD_LOCAL
// behind the runtime is not interposing; the same library preloaded is. Run twice by CTest:
// without LD_PRELOAD (expects 6) and with it (MSPTI_EXPECT_INTERPOSING=1, expects 0).
#include <gtest/gtest.h>
#include <dlfcn.h>

#include <cstdlib>

#include "fake_runtime/fake_runtime.h"
#include "mspti/mspti.h"

namespace {

template <typename Fn>
Fn sym(void *lib, const char *name) {
    return reinterpret_cast<Fn>(dlsym(lib, name));
}

TEST(PreloadCheck, PreloadOnlyKindsAndCallbacksFollowInterposition) {
    const bool expect = std::getenv("MSPTI_EXPECT_INTERPOSING") != nullptr;
    void *lib = dlopen(MSPTI_LIBRARY_PATH, RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(lib, nullptr) << dlerror();
    auto enable = sym<msptiResult (*)(msptiActivityKind)>(lib, "msptiActivityEnable");
    auto subscribe = sym<msptiResult (*)(msptiSubscriberHandle *, msptiCallbackFunc, void *)>(lib, "msptiSubscribe");
    auto enable_cb = sym<msptiResult (*)(uint32_t, msptiSubscriberHandle, msptiCallbackDomain, msptiCallbackId)>(
        lib, "msptiEnableCallback");
    auto enable_domain =
        sym<msptiResult (*)(uint32_t, msptiSubscriberHandle, msptiCallbackDomain)>(lib, "msptiEnableDomain");
    auto interposing = sym<bool (*)()>(lib, "msptiExtIsInterposing");
    ASSERT_TRUE(enable && subscribe && enable_cb && enable_domain && interposing);

    const msptiResult want = expect ? MSPTI_SUCCESS : MSPTI_ERROR_WITHOUT_LD_PRELOAD;
    EXPECT_EQ(interposing(), expect);
    for (auto kind :
         {MSPTI_ACTIVITY_KIND_HCCL, MSPTI_ACTIVITY_KIND_MEMORY, MSPTI_ACTIVITY_KIND_MEMSET, MSPTI_ACTIVITY_KIND_MEMCPY})
        EXPECT_EQ(enable(kind), want) << kind;
    EXPECT_EQ(enable(MSPTI_ACTIVITY_KIND_MARKER), MSPTI_SUCCESS);  // no interposition needed
    EXPECT_EQ(enable(MSPTI_ACTIVITY_KIND_KERNEL), MSPTI_SUCCESS);
    msptiSubscriberHandle h = nullptr;
    ASSERT_EQ(subscribe(&h, nullptr, nullptr), MSPTI_SUCCESS);
    EXPECT_EQ(enable_cb(1, h, MSPTI_CB_DOMAIN_RUNTIME, MSPTI_CBID_RUNTIME_MALLOC), want);
    EXPECT_EQ(enable_domain(1, h, MSPTI_CB_DOMAIN_HCCL), want);
    // The check comes first, before the domain check.
    EXPECT_EQ(enable_domain(1, h, MSPTI_CB_DOMAIN_INVALID), expect ? MSPTI_ERROR_INVALID_PARAMETER : want);
    // The runtime keeps working either way.
    void *p = nullptr;
    EXPECT_EQ(aclrtMalloc(&p, 16, 0), 0);
    EXPECT_EQ(aclrtFree(p), 0);
}

}  // namespace

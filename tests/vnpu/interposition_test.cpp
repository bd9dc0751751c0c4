// An interposer defined in the executable (as LD_PRELOAD would) must see the launch that aclnnAdd makes
// inside libvnpu, and forwarding with dlsym(RTLD_NEXT) must reach the real implementation.
#include <dlfcn.h>

#include <atomic>

#include "aclnnop/aclnn_add.h"
#include "test_support.h"

namespace {
std::atomic<int> g_intercepted{0};
}

extern "C" aclError aclrtLaunchKernelWithHostArgs(aclrtFuncHandle funcHandle, uint32_t numBlocks, aclrtStream stream,
                                                  aclrtLaunchKernelCfg *cfg, void *hostArgs, size_t argsSize,
                                                  aclrtPlaceHolderInfo *placeHolderArray, size_t placeHolderNum) {
    using Real = aclError (*)(aclrtFuncHandle, uint32_t, aclrtStream, aclrtLaunchKernelCfg *, void *, size_t,
                              aclrtPlaceHolderInfo *, size_t);
    static Real real = reinterpret_cast<Real>(dlsym(RTLD_NEXT, "aclrtLaunchKernelWithHostArgs"));
    g_intercepted.fetch_add(1);
    return real(funcHandle, numBlocks, stream, cfg, hostArgs, argsSize, placeHolderArray, placeHolderNum);
}

using vnpu_test::DeviceBuffer;
using vnpu_test::DeviceTest;

TEST_F(DeviceTest, AclnnAddLaunchesThroughTheInterposableSymbol) {
    DeviceBuffer a(std::vector<float>{1, 2});
    DeviceBuffer out(2 * sizeof(float));
    int64_t n = 2;
    int64_t stride = 1;
    aclTensor *ta = aclCreateTensor(&n, 1, ACL_FLOAT, &stride, 0, ACL_FORMAT_ND, &n, 1, a.get());
    aclTensor *to = aclCreateTensor(&n, 1, ACL_FLOAT, &stride, 0, ACL_FORMAT_ND, &n, 1, out.get());
    float alpha = 1.0f;
    aclScalar *s = aclCreateScalar(&alpha, ACL_FLOAT);
    uint64_t ws = 0;
    aclOpExecutor *ex = nullptr;
    ASSERT_EQ(aclnnAddGetWorkspaceSize(ta, ta, s, to, &ws, &ex), ACL_SUCCESS);
    ASSERT_EQ(aclnnAdd(nullptr, ws, ex, stream_), ACL_SUCCESS);
    ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
    EXPECT_EQ(g_intercepted.load(), 1);
    EXPECT_EQ(out.read<float>(), (std::vector<float>{2, 4}));
    aclDestroyTensor(ta);
    aclDestroyTensor(to);
    aclDestroyScalar(s);
}

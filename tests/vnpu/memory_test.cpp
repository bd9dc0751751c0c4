// Memory: allocation checks, every copy kind, 2-D copies, memset, and bad pointers/sizes.
#include <numeric>
#include <thread>

#include "test_support.h"

using vnpu_test::DeviceBuffer;
using vnpu_test::DeviceTest;

TEST_F(DeviceTest, MallocAlignsAndRejectsBadArguments) {
    void *p = nullptr;
    ASSERT_EQ(aclrtMalloc(&p, 100, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u);
    EXPECT_EQ(aclrtFree(p), ACL_SUCCESS);
    EXPECT_EQ(aclrtFree(p), ACL_ERROR_RT_MEMORY_FREE);  // double free is detected
    EXPECT_EQ(aclrtMalloc(&p, 0, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM);
    EXPECT_EQ(aclrtMalloc(nullptr, 8, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM);
    EXPECT_EQ(aclrtFree(nullptr), ACL_ERROR_INVALID_PARAM);
    EXPECT_EQ(aclrtMallocHost(&p, 0), ACL_ERROR_INVALID_PARAM);
    EXPECT_EQ(aclrtFreeHost(nullptr), ACL_ERROR_INVALID_PARAM);
    ASSERT_EQ(aclrtMallocHost(&p, 64), ACL_SUCCESS);
    EXPECT_EQ(aclrtFree(p), ACL_ERROR_RT_MEMORY_FREE);  // host memory is not device memory
    EXPECT_EQ(aclrtFreeHost(p), ACL_SUCCESS);
}

TEST_F(DeviceTest, GetMemInfoAccountsForAllocations) {
    size_t freeBefore = 0;
    size_t total = 0;
    ASSERT_EQ(aclrtGetMemInfo(ACL_HBM_MEM, &freeBefore, &total), ACL_SUCCESS);
    EXPECT_GT(total, 0u);
    void *p = nullptr;
    ASSERT_EQ(aclrtMalloc(&p, 1 << 20, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    size_t freeAfter = 0;
    ASSERT_EQ(aclrtGetMemInfo(ACL_HBM_MEM, &freeAfter, &total), ACL_SUCCESS);
    EXPECT_EQ(freeBefore - freeAfter, size_t{1} << 20);
    aclrtFree(p);
    EXPECT_EQ(aclrtGetMemInfo(ACL_HBM_MEM, nullptr, &total), ACL_ERROR_INVALID_PARAM);
}

TEST_F(DeviceTest, MemcpyMovesDataForEveryKind) {
    std::vector<int32_t> src(256);
    std::iota(src.begin(), src.end(), 7);
    const size_t bytes = src.size() * sizeof(int32_t);
    DeviceBuffer a(bytes);
    DeviceBuffer b(bytes);
    std::vector<int32_t> host(src.size(), 0);
    std::vector<int32_t> hostCopy(src.size(), 0);
    ASSERT_EQ(aclrtMemcpy(a.get(), bytes, src.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
    ASSERT_EQ(aclrtMemcpy(b.get(), bytes, a.get(), bytes, ACL_MEMCPY_DEVICE_TO_DEVICE), ACL_SUCCESS);
    ASSERT_EQ(aclrtMemcpy(host.data(), bytes, b.get(), bytes, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    EXPECT_EQ(host, src);
    ASSERT_EQ(aclrtMemcpy(hostCopy.data(), bytes, host.data(), bytes, ACL_MEMCPY_HOST_TO_HOST), ACL_SUCCESS);
    EXPECT_EQ(hostCopy, src);
    std::vector<int32_t> viaDefault(src.size(), 0);
    ASSERT_EQ(aclrtMemcpy(viaDefault.data(), bytes, a.get(), bytes, ACL_MEMCPY_DEFAULT), ACL_SUCCESS);
    EXPECT_EQ(viaDefault, src);
    ASSERT_EQ(aclrtMemcpy(b.get(), bytes, src.data(), bytes, ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE), ACL_SUCCESS);
    EXPECT_EQ(b.read<int32_t>(), src);
}

TEST_F(DeviceTest, MemcpyAsyncRunsInStreamOrder) {
    std::vector<float> src(1024);
    std::iota(src.begin(), src.end(), 0.5f);
    const size_t bytes = src.size() * sizeof(float);
    void *pinned = nullptr;
    void *pinnedOut = nullptr;
    ASSERT_EQ(aclrtMallocHost(&pinned, bytes), ACL_SUCCESS);
    ASSERT_EQ(aclrtMallocHost(&pinnedOut, bytes), ACL_SUCCESS);
    std::memcpy(pinned, src.data(), bytes);
    DeviceBuffer a(bytes);
    DeviceBuffer b(bytes);
    ASSERT_EQ(aclrtMemcpyAsync(a.get(), bytes, pinned, bytes, ACL_MEMCPY_HOST_TO_DEVICE, stream_), ACL_SUCCESS);
    ASSERT_EQ(aclrtMemcpyAsync(b.get(), bytes, a.get(), bytes, ACL_MEMCPY_DEVICE_TO_DEVICE, stream_), ACL_SUCCESS);
    ASSERT_EQ(aclrtMemsetAsync(a.get(), bytes, 0, bytes, stream_), ACL_SUCCESS);
    ASSERT_EQ(aclrtMemcpyAsync(pinnedOut, bytes, b.get(), bytes, ACL_MEMCPY_DEVICE_TO_HOST, stream_), ACL_SUCCESS);
    ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
    EXPECT_EQ(std::memcmp(pinnedOut, src.data(), bytes), 0);
    EXPECT_EQ(a.read<float>(), std::vector<float>(src.size(), 0.0f));
    EXPECT_EQ(aclrtMemcpyAsync(pinnedOut, bytes, pinned, bytes, ACL_MEMCPY_HOST_TO_HOST, stream_),
              ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    aclrtFreeHost(pinned);
    aclrtFreeHost(pinnedOut);
}

TEST_F(DeviceTest, MemcpyAsyncFromPageableHostMemoryIsCompleteOnReturn) {
    std::vector<uint8_t> src(4096, 0x5a);
    DeviceBuffer a(src.size());
    ASSERT_EQ(aclrtMemcpyAsync(a.get(), src.size(), src.data(), src.size(), ACL_MEMCPY_HOST_TO_DEVICE, stream_),
              ACL_SUCCESS);
    std::fill(src.begin(), src.end(), 0);  // the copy already happened
    EXPECT_EQ(a.read<uint8_t>(), std::vector<uint8_t>(4096, 0x5a));
}

TEST_F(DeviceTest, Memcpy2dCopiesRowsBetweenPitches) {
    const size_t width = 4;
    const size_t height = 3;
    const size_t spitch = 8;
    const size_t dpitch = 6;
    std::vector<uint8_t> src(spitch * height);
    std::iota(src.begin(), src.end(), uint8_t{0});
    DeviceBuffer dev(dpitch * height);
    ASSERT_EQ(aclrtMemset(dev.get(), dev.bytes(), 0xff, dev.bytes()), ACL_SUCCESS);
    ASSERT_EQ(aclrtMemcpy2d(dev.get(), dpitch, src.data(), spitch, width, height, ACL_MEMCPY_HOST_TO_DEVICE),
              ACL_SUCCESS);
    auto out = dev.read<uint8_t>();
    for (size_t r = 0; r < height; ++r) {
        for (size_t c = 0; c < dpitch; ++c) {
            EXPECT_EQ(out[r * dpitch + c], c < width ? src[r * spitch + c] : 0xff) << r << "," << c;
        }
    }
    EXPECT_EQ(aclrtMemcpy2d(dev.get(), 2, src.data(), spitch, width, height, ACL_MEMCPY_HOST_TO_DEVICE),
              ACL_ERROR_INVALID_PARAM);
}

TEST_F(DeviceTest, MemsetSetsBytesAndChecksRanges) {
    DeviceBuffer dev(64);
    ASSERT_EQ(aclrtMemset(dev.get(), 64, 0x1ab, 64), ACL_SUCCESS);
    EXPECT_EQ(dev.read<uint8_t>(), std::vector<uint8_t>(64, 0xab));
    EXPECT_EQ(aclrtMemset(dev.get(), 32, 0, 64), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_EQ(aclrtMemset(dev.get(), 128, 0, 128), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_EQ(aclrtMemset(nullptr, 8, 0, 8), ACL_ERROR_INVALID_PARAM);
    EXPECT_EQ(aclrtMemset(nullptr, 8, 0, 0), ACL_SUCCESS);
    EXPECT_EQ(dev.read<uint8_t>(), std::vector<uint8_t>(64, 0xab));  // failed calls changed nothing
}

TEST_F(DeviceTest, MemcpyRejectsBadPointersSizesAndKinds) {
    DeviceBuffer dev(64);
    ASSERT_EQ(aclrtMemset(dev.get(), 64, 0x11, 64), ACL_SUCCESS);
    std::vector<uint8_t> host(128, 0x22);
    EXPECT_EQ(aclrtMemcpy(dev.get(), 64, host.data(), 128, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_EQ(aclrtMemcpy(dev.get(), 128, host.data(), 128, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_EQ(aclrtMemcpy(host.data(), 128, host.data() + 64, 64, ACL_MEMCPY_DEVICE_TO_HOST),
              ACL_ERROR_RT_PARAM_INVALID);  // the source is not device memory
    EXPECT_EQ(aclrtMemcpy(nullptr, 64, host.data(), 64, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_INVALID_PARAM);
    EXPECT_EQ(aclrtMemcpy(dev.get(), 64, host.data(), 64, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE), ACL_ERROR_INVALID_PARAM);
    EXPECT_EQ(aclrtMemcpy(dev.get(), 64, host.data(), 64, static_cast<aclrtMemcpyKind>(42)), ACL_ERROR_INVALID_PARAM);
    EXPECT_EQ(aclrtMemcpy(dev.get(), 64, nullptr, 0, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
    int bogus = 0;
    EXPECT_EQ(aclrtMemcpyAsync(dev.get(), 64, host.data(), 64, ACL_MEMCPY_HOST_TO_DEVICE, &bogus),
              ACL_ERROR_INVALID_RESOURCE_HANDLE);
    EXPECT_EQ(dev.read<uint8_t>(), std::vector<uint8_t>(64, 0x11));  // nothing was written
}

TEST(Memory, MallocNeedsACurrentDevice) {
    std::thread([] {
        void *p = nullptr;
        EXPECT_EQ(aclrtMalloc(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_RT_CONTEXT_NULL);
        ASSERT_EQ(aclrtMallocHost(&p, 64), ACL_SUCCESS);  // host memory does not
        EXPECT_EQ(aclrtFreeHost(p), ACL_SUCCESS);
    }).join();
}

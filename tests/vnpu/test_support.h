// Helpers shared by the vnpu tests: a device fixture and RAII device buffers.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "acl/acl.h"

namespace vnpu_test {

/// Device 0 set and one created stream; everything released after the test.
class DeviceTest : public ::testing::Test {
protected:
    void SetUp() override {
        ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
        ASSERT_EQ(aclrtCreateStream(&stream_), ACL_SUCCESS);
    }
    void TearDown() override {
        EXPECT_EQ(aclrtDestroyStream(stream_), ACL_SUCCESS);
        EXPECT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
    }
    aclrtStream stream_ = nullptr;
};

/// Device memory holding a copy of `host`, freed at scope exit.
class DeviceBuffer {
public:
    explicit DeviceBuffer(size_t bytes) : bytes_(bytes) {
        EXPECT_EQ(aclrtMalloc(&ptr_, bytes, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    }
    template <class T>
    explicit DeviceBuffer(const std::vector<T> &host) : DeviceBuffer(host.size() * sizeof(T)) {
        EXPECT_EQ(aclrtMemcpy(ptr_, bytes_, host.data(), bytes_, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
    }
    ~DeviceBuffer() { aclrtFree(ptr_); }
    DeviceBuffer(const DeviceBuffer &) = delete;
    DeviceBuffer &operator=(const DeviceBuffer &) = delete;

    void *get() const { return ptr_; }
    size_t bytes() const { return bytes_; }
    template <class T>
    std::vector<T> read() const {
        std::vector<T> host(bytes_ / sizeof(T));
        EXPECT_EQ(aclrtMemcpy(host.data(), bytes_, ptr_, bytes_, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
        return host;
    }

private:
    void *ptr_ = nullptr;
    size_t bytes_;
};

}  // namespace vnpu_test

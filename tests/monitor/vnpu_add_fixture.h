// A test fixture with the virtual NPU's device 0, a stream and two 64-float tensors on it, and
// Add(), which launches one aclnnAdd kernel: the workload of the tests of kernel records.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>

#include "acl/acl.h"
#include "aclnnop/aclnn_add.h"

class VnpuAddFixture : public ::testing::Test {
protected:
    void SetUp() override {
        ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
        ASSERT_EQ(aclrtCreateStream(&stream_), ACL_SUCCESS);
        int32_t id = -1;
        ASSERT_EQ(aclrtStreamGetId(stream_, &id), ACL_SUCCESS);
        stream_id_ = id;
        const int64_t shape[] = {64}, strides[] = {1};
        for (void **p : {&a_, &c_}) ASSERT_EQ(aclrtMalloc(p, 64 * sizeof(float), ACL_MEM_MALLOC_HUGE_FIRST), 0);
        ta_ = aclCreateTensor(shape, 1, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, shape, 1, a_);
        tc_ = aclCreateTensor(shape, 1, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, shape, 1, c_);
        alpha_ = aclCreateScalar(&alpha_value_, ACL_FLOAT);
    }
    void TearDown() override {
        aclDestroyTensor(ta_);
        aclDestroyTensor(tc_);
        aclDestroyScalar(alpha_);
        aclrtFree(a_);
        aclrtFree(c_);
        aclrtDestroyStream(stream_);
        aclrtResetDevice(0);
    }
    /** Launches one aclnnAdd (c = a + a) on the stream. */
    void Add() {
        uint64_t workspace = 0;
        aclOpExecutor *executor = nullptr;
        ASSERT_EQ(aclnnAddGetWorkspaceSize(ta_, ta_, alpha_, tc_, &workspace, &executor), 0);
        ASSERT_EQ(aclnnAdd(nullptr, 0, executor, stream_), 0);
    }
    aclrtStream stream_ = nullptr;
    int64_t stream_id_ = -1;
    void *a_ = nullptr, *c_ = nullptr;
    aclTensor *ta_ = nullptr, *tc_ = nullptr;
    aclScalar *alpha_ = nullptr;
    float alpha_value_ = 1.0f;
};

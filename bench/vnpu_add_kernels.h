// The KERNEL benchmarks' workload: aclnnAdd on 8 floats on device 0 of the virtual NPU, one
// stream. Shared by bench_kernel_overhead (libmspti collecting) and bench_kernel_floor (no libmspti).
#pragma once

#include <cstdint>

#include "acl/acl.h"
#include "aclnnop/aclnn_add.h"

struct AddKernels {
    aclrtStream stream = nullptr;
    void *a = nullptr, *b = nullptr, *c = nullptr;
    aclTensor *ta = nullptr, *tb = nullptr, *tc = nullptr;
    aclScalar *alpha = nullptr;
    float alphaValue = 1.0f;

    AddKernels() {
        aclInit(nullptr);
        aclrtSetDevice(0);
        aclrtCreateStream(&stream);
        const int64_t shape[] = {8};
        const int64_t strides[] = {1};
        for (void **p : {&a, &b, &c}) aclrtMalloc(p, 8 * sizeof(float), ACL_MEM_MALLOC_HUGE_FIRST);
        ta = aclCreateTensor(shape, 1, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, shape, 1, a);
        tb = aclCreateTensor(shape, 1, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, shape, 1, b);
        tc = aclCreateTensor(shape, 1, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, shape, 1, c);
        alpha = aclCreateScalar(&alphaValue, ACL_FLOAT);
    }

    /// Launches one kernel; false if the runtime refused it.
    bool add() {
        uint64_t workspace = 0;
        aclOpExecutor *executor = nullptr;
        if (aclnnAddGetWorkspaceSize(ta, tb, alpha, tc, &workspace, &executor) != 0) return false;
        return aclnnAdd(nullptr, 0, executor, stream) == 0;
    }
};

// The aclnnAdd workload of the original samples: out = self + 1.2 * other on 4x2 floats.
#pragma once

#include <cstdio>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_add.h"
#include "util_acl.h"

namespace sample {

struct AddTensors {
    void *self = nullptr, *other = nullptr, *out = nullptr;
};

inline aclTensor *make_tensor(void *dev) {
    const int64_t shape[] = {4, 2};
    const int64_t strides[] = {2, 1};
    return aclCreateTensor(shape, 2, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, shape, 2, dev);
}

// Initialisation: 3 aclrtMalloc + 3 aclrtMemcpy.
inline int AddSetUp(AddTensors &t) {
    const std::vector<float> self = {0, 1, 2, 3, 4, 5, 6, 7}, other = {1, 1, 1, 2, 2, 2, 3, 3}, out(8, 0.0f);
    const size_t bytes = 8 * sizeof(float);
    ACL_CALL(aclrtMalloc(&t.self, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_CALL(aclrtMalloc(&t.other, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_CALL(aclrtMalloc(&t.out, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_CALL(aclrtMemcpy(t.self, bytes, self.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE));
    ACL_CALL(aclrtMemcpy(t.other, bytes, other.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE));
    ACL_CALL(aclrtMemcpy(t.out, bytes, out.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE));
    return 0;
}

// Execution: aclnnAdd (one launch), synchronise, 1 aclrtMemcpy back.
inline int AddRun(AddTensors &t, aclrtStream stream) {
    aclTensor *self = make_tensor(t.self), *other = make_tensor(t.other), *out = make_tensor(t.out);
    float alphaValue = 1.2f;
    aclScalar *alpha = aclCreateScalar(&alphaValue, ACL_FLOAT);
    uint64_t workspaceSize = 0;
    aclOpExecutor *executor = nullptr;
    ACL_CALL(aclnnAddGetWorkspaceSize(self, other, alpha, out, &workspaceSize, &executor));
    void *workspace = nullptr;
    if (workspaceSize > 0) ACL_CALL(aclrtMalloc(&workspace, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_CALL(aclnnAdd(workspace, workspaceSize, executor, stream));
    ACL_CALL(aclrtSynchronizeStream(stream));
    std::vector<float> result(8);
    ACL_CALL(aclrtMemcpy(result.data(), 8 * sizeof(float), t.out, 8 * sizeof(float), ACL_MEMCPY_DEVICE_TO_HOST));
    for (size_t i = 0; i < result.size(); ++i) std::printf("result[%zu] is: %f\n", i, result[i]);
    if (workspace != nullptr) aclrtFree(workspace);
    aclDestroyTensor(self);
    aclDestroyTensor(other);
    aclDestroyTensor(out);
    aclDestroyScalar(alpha);
    return 0;
}

// Clean-up: 3 aclrtFree.
inline int AddTearDown(AddTensors &t) {
    ACL_CALL(aclrtFree(t.self));
    ACL_CALL(aclrtFree(t.other));
    ACL_CALL(aclrtFree(t.out));
    return 0;
}

}  // namespace sample

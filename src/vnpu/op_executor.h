// The two-phase aclnn pattern: phase 1 checks arguments and builds an OpPlan inside an aclOpExecutor;
// phase 2 launches the plan's kernel through aclrtLaunchKernelWithHostArgs and reports the API span.
#pragma once

#include <atomic>
#include <functional>
#include <memory>

#include "aclnn/acl_meta.h"
#include "aclnn/opdev/op_errno.h"
#include "kernel_launch.h"

namespace vnpu {

enum class AclnnKernel { Add, Axpy, Mul, Relu, MatMul };

struct OpPlan {
    AclnnKernel kernel = AclnnKernel::Add;
    const char *api_name = "";  // the node-level API name, e.g. "aclnnAdd_AxpyAiCore_Axpy"
    std::function<void()> compute;  // runs on the stream worker
};

const KernelFunction &aclnnKernel(AclnnKernel kernel);

/// Phase 1 tail: wraps the plan in a new executor; workspace size is always 0.
aclnnStatus create_executor(OpPlan plan, uint64_t *workspace_size, aclOpExecutor **executor);
/// Phase 2: launches the executor's kernel on `stream`; consumes a non-repeatable executor.
aclnnStatus run_executor(void *workspace, uint64_t workspace_size, aclOpExecutor *executor, aclrtStream stream);

}  // namespace vnpu

struct aclOpExecutor {
    std::shared_ptr<const vnpu::OpPlan> plan;
    std::atomic<bool> repeatable{false};
};

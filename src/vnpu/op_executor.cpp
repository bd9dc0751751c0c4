// aclnn executors and the kernels behind them. The kernel argument block carries a ticket, not a pointer:
// the plan stays in a table until the kernel runs or the launch is dropped, so a launch that fails anywhere
// (even inside an interposer) neither leaks nor double-frees it.
#include "op_executor.h"

#include <cstring>
#include <mutex>
#include <unordered_map>

#include "acl/acl.h"
#include "export.h"
#include "handle_registry.h"
#include "report_spans.h"
#include "runtime.h"

namespace vnpu {
namespace {

struct KernelArgs {
    uint64_t ticket;
};

class PendingPlans {
public:
    uint64_t add(std::shared_ptr<const OpPlan> plan) {
        std::lock_guard<std::mutex> lock(mu_);
        const uint64_t ticket = ++next_;
        plans_.emplace(ticket, std::move(plan));
        return ticket;
    }
    std::shared_ptr<const OpPlan> take(uint64_t ticket) {
        std::lock_guard<std::mutex> lock(mu_);
        auto it = plans_.find(ticket);
        if (it == plans_.end()) {
            return nullptr;
        }
        auto plan = std::move(it->second);
        plans_.erase(it);
        return plan;
    }

private:
    std::mutex mu_;
    uint64_t next_ = 0;
    std::unordered_map<uint64_t, std::shared_ptr<const OpPlan>> plans_;
};

PendingPlans &pending_plans() {
    static auto *plans = new PendingPlans;
    return *plans;
}

HandleRegistry<aclOpExecutor> &executors() {
    static auto *registry = new HandleRegistry<aclOpExecutor>;
    return *registry;
}

uint64_t ticket_of(const void *args) {
    KernelArgs block{};
    std::memcpy(&block, args, sizeof block);
    return block.ticket;
}

void run_plan(const void *args) {
    if (auto plan = pending_plans().take(ticket_of(args))) {
        plan->compute();
    }
}

void release_plan(const void *args) { pending_plans().take(ticket_of(args)); }

// Names as CANN's binaries report them: <op>_<hash>_high_performance_<tiling key>.
const KernelFunction kKernels[] = {
    {"Add_8b24ec7d9b7e4d2fb5c3f7a1d0e96c42_high_performance_210000000", "KERNEL_AIVEC", sizeof(KernelArgs), run_plan,
     release_plan},
    {"Axpy_233851a3505389e43928a8bba133a74d_high_performance_210000000", "KERNEL_AIVEC", sizeof(KernelArgs), run_plan,
     release_plan},
    {"Mul_5f0e1c9a7d3b4e26a8c1b7f2e4d09a13_high_performance_210000000", "KERNEL_AIVEC", sizeof(KernelArgs), run_plan,
     release_plan},
    {"Relu_c41d7e92a0b5f3e86d2a9c17b4e0f5d8_high_performance_210000000", "KERNEL_AIVEC", sizeof(KernelArgs), run_plan,
     release_plan},
    {"MatMulV3_9e3a5c1f7b2d4a68e0c4f1b93d7a2e65_high_performance_210000000", "KERNEL_AICORE", sizeof(KernelArgs),
     run_plan, release_plan},
};

}  // namespace

const KernelFunction &aclnnKernel(AclnnKernel kernel) { return kKernels[static_cast<size_t>(kernel)]; }

const KernelFunction *find_kernel(const void *func_handle) {
    for (const KernelFunction &fn : kKernels) {
        if (&fn == func_handle) {
            return &fn;
        }
    }
    return nullptr;
}

aclnnStatus create_executor(OpPlan plan, uint64_t *workspace_size, aclOpExecutor **executor) {
    if (workspace_size == nullptr || executor == nullptr) {
        return ACLNN_ERR_PARAM_NULLPTR;
    }
    auto created = std::make_shared<aclOpExecutor>();
    created->plan = std::make_shared<const OpPlan>(std::move(plan));
    *executor = static_cast<aclOpExecutor *>(executors().add(std::move(created)));
    *workspace_size = 0;
    return ACLNN_SUCCESS;
}

aclnnStatus run_executor(void *workspace, uint64_t workspace_size, aclOpExecutor *executor, aclrtStream stream) {
    const uint64_t begin_ns = report::now_ns();
    if (executor == nullptr || (workspace == nullptr && workspace_size > 0)) {
        return ACLNN_ERR_PARAM_NULLPTR;
    }
    auto live = executors().find(executor);
    if (!live) {
        return ACLNN_ERR_PARAM_INVALID;  // unknown, or a non-repeatable executor already run
    }
    std::shared_ptr<Stream> target;
    if (resolve_stream(stream, target) != ACL_SUCCESS) {
        return ACLNN_ERR_PARAM_INVALID;
    }
    const OpPlan &plan = *live->plan;
    const KernelArgs args{pending_plans().add(live->plan)};
    // Through the dynamic symbol (default visibility, no -Bsymbolic), so LD_PRELOAD can intercept it.
    aclError rc = aclrtLaunchKernelWithHostArgs(const_cast<KernelFunction *>(&aclnnKernel(plan.kernel)), 1, stream,
                                                nullptr, const_cast<KernelArgs *>(&args), sizeof args, nullptr, 0);
    if (rc != ACL_SUCCESS) {
        pending_plans().take(args.ticket);
        return ACLNN_ERR_RUNTIME_ERROR;
    }
    if (!live->repeatable.load()) {
        executors().remove(executor);
    }
    report::api(cann::ApiLevel::kNode, plan.api_name, begin_ns, report::now_ns());
    return ACLNN_SUCCESS;
}

}  // namespace vnpu

extern "C" {

VNPU_EXPORT aclnnStatus aclSetAclOpExecutorRepeatable(aclOpExecutor *executor) {
    auto live = vnpu::executors().find(executor);
    if (!live) {
        return ACLNN_ERR_INNER_NULLPTR;
    }
    live->repeatable.store(true);
    return ACLNN_SUCCESS;
}

VNPU_EXPORT aclnnStatus aclDestroyAclOpExecutor(aclOpExecutor *executor) {
    if (executor == nullptr) {
        return ACLNN_ERR_INNER_NULLPTR;
    }
    return vnpu::executors().remove(executor) ? ACLNN_SUCCESS : ACLNN_ERR_PARAM_INVALID;
}

}  // extern "C"

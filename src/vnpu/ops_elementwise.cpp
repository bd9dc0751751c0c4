// Elementwise operators: Add (out = self + alpha * other), Mul, Relu, and their in-place forms.
// Each computes in float for fp32/fp16/bf16 (as the vector units do), double for fp64, int64 for integers.
#include <algorithm>
#include <cmath>
#include <vector>

#include "aclnnop/aclnn_add.h"
#include "aclnnop/aclnn_mul.h"
#include "aclnnop/aclnn_relu.h"
#include "broadcast.h"
#include "dtype_access.h"
#include "dtype_rows.h"
#include "export.h"
#include "op_executor.h"

namespace vnpu {
namespace {

enum class BinaryOp { Add, Mul };

int rank_of(aclDataType t) {
    switch (t) {
    case ACL_BOOL: return 0;
    case ACL_UINT8:
    case ACL_INT8: return 1;
    case ACL_INT16: return 2;
    case ACL_INT32: return 3;
    case ACL_INT64: return 4;
    case ACL_FLOAT16:
    case ACL_BF16: return 5;
    case ACL_FLOAT: return 6;
    case ACL_DOUBLE: return 7;
    default: return -1;
    }
}

bool is_elementwise_type(aclDataType t) { return rank_of(t) >= 0; }

/// The common type of two operands (fp16 with bf16 gives fp32).
aclDataType promote(aclDataType a, aclDataType b) {
    if (a == b) {
        return a;
    }
    if ((a == ACL_FLOAT16 && b == ACL_BF16) || (a == ACL_BF16 && b == ACL_FLOAT16)) {
        return ACL_FLOAT;
    }
    if (a == ACL_UINT8 && b == ACL_INT8) {
        return ACL_INT16;
    }
    return rank_of(a) >= rank_of(b) ? a : b;
}

/// Whether a result of type `from` may be written to a tensor of type `to` (no float -> integer, no
/// integer -> bool narrowing of arithmetic results).
bool castable(aclDataType from, aclDataType to) {
    if (is_floating_type(from) && !is_floating_type(to)) {
        return false;
    }
    return !(to == ACL_BOOL && from != ACL_BOOL);
}

// Elements are converted a chunk of a row at a time (type dispatch per chunk, not per element) and
// computed in plain loops the compiler vectorises. In-place forms are safe: a chunk is read whole
// before it is written.
constexpr int64_t kChunk = 2048;

template <class T>
void binary_kernel(BinaryOp op, const TensorView &self, const TensorView &other, const TensorView &out, T alpha) {
    const std::array<std::vector<int64_t>, 3> strides{broadcast_strides(self, out.dims),
                                                      broadcast_strides(other, out.dims), out.strides};
    std::vector<T> a(kChunk);
    std::vector<T> b(kChunk);
    for_each_row<3>(out.dims, strides, {self.offset, other.offset, out.offset},
                    [&](const std::array<int64_t, 3> &at, int64_t n, const std::array<int64_t, 3> &step) {
                        for (int64_t first = 0; first < n; first += kChunk) {
                            const int64_t len = std::min(kChunk, n - first);
                            load_row<T>(self.data, at[0] + first * step[0], step[0], len, self.data_type, a.data());
                            load_row<T>(other.data, at[1] + first * step[1], step[1], len, other.data_type, b.data());
                            T *x = a.data();
                            const T *y = b.data();
                            if (op == BinaryOp::Add) {
                                for (int64_t i = 0; i < len; ++i) x[i] = x[i] + alpha * y[i];
                            } else {
                                for (int64_t i = 0; i < len; ++i) x[i] = x[i] * y[i];
                            }
                            store_row<T>(out.data, at[2] + first * step[2], step[2], len, out.data_type, x);
                        }
                    });
}

template <class T>
void relu_kernel(const TensorView &self, const TensorView &out) {
    const std::array<std::vector<int64_t>, 2> strides{self.strides, out.strides};
    std::vector<T> a(kChunk);
    for_each_row<2>(out.dims, strides, {self.offset, out.offset},
                    [&](const std::array<int64_t, 2> &at, int64_t n, const std::array<int64_t, 2> &step) {
                        for (int64_t first = 0; first < n; first += kChunk) {
                            const int64_t len = std::min(kChunk, n - first);
                            T *x = a.data();
                            load_row<T>(self.data, at[0] + first * step[0], step[0], len, self.data_type, x);
                            for (int64_t i = 0; i < len; ++i) {
                                const T v = x[i];
                                x[i] = v > T{} || v != v ? v : T{};  // NaN stays NaN
                            }
                            store_row<T>(out.data, at[1] + first * step[1], step[1], len, out.data_type, x);
                        }
                    });
}

/// Calls fn with a value of the compute type for `type`: float, double or int64_t.
template <class Fn>
void with_compute_type(aclDataType type, Fn fn) {
    if (type == ACL_DOUBLE) {
        fn(double{});
    } else if (is_floating_type(type)) {
        fn(float{});
    } else {
        fn(int64_t{});
    }
}

aclnnStatus plan_binary(BinaryOp op, const aclTensor *self, const aclTensor *other, const aclScalar *alpha,
                        const aclTensor *out, uint64_t *workspace_size, aclOpExecutor **executor) {
    if (self == nullptr || other == nullptr || out == nullptr || (op == BinaryOp::Add && alpha == nullptr) ||
        workspace_size == nullptr || executor == nullptr) {
        return ACLNN_ERR_PARAM_NULLPTR;
    }
    TensorView a;
    TensorView b;
    TensorView o;
    for (auto [tensor, view] : {std::pair{self, &a}, std::pair{other, &b}, std::pair{out, &o}}) {
        aclnnStatus rc = view_of(tensor, *view);
        if (rc != ACLNN_SUCCESS) {
            return rc;
        }
    }
    double alpha_value = 1.0;
    if (op == BinaryOp::Add) {
        auto live_alpha = find_scalar(alpha);
        if (!live_alpha || !is_elementwise_type(live_alpha->data_type)) {
            return ACLNN_ERR_PARAM_INVALID;
        }
        alpha_value = scalar_as_double(*live_alpha);
    }
    if (!is_elementwise_type(a.data_type) || !is_elementwise_type(b.data_type) || !is_elementwise_type(o.data_type)) {
        return ACLNN_ERR_PARAM_INVALID;
    }
    const aclDataType common = promote(a.data_type, b.data_type);
    std::vector<int64_t> shape;
    if (!castable(common, o.data_type) || !broadcast_shape(a.dims, b.dims, shape) || shape != o.dims) {
        return ACLNN_ERR_PARAM_INVALID;
    }
    if (op == BinaryOp::Add && !is_floating_type(common) && alpha_value != std::floor(alpha_value)) {
        return ACLNN_ERR_PARAM_INVALID;  // a fractional alpha cannot be cast to an integer type
    }
    OpPlan plan;
    if (op == BinaryOp::Add) {
        const bool axpy = alpha_value != 1.0;  // CANN runs Axpy when alpha is not 1
        plan.kernel = axpy ? AclnnKernel::Axpy : AclnnKernel::Add;
        plan.api_name = axpy ? "aclnnAdd_AxpyAiCore_Axpy" : "aclnnAdd_AddAiCore_Add";
    } else {
        plan.kernel = AclnnKernel::Mul;
        plan.api_name = "aclnnMul_MulAiCore_Mul";
    }
    plan.compute = [op, a, b, o, common, alpha_value] {
        with_compute_type(common, [&](auto zero) {
            using T = decltype(zero);
            binary_kernel<T>(op, a, b, o, static_cast<T>(alpha_value));
        });
    };
    return create_executor(std::move(plan), workspace_size, executor);
}

aclnnStatus plan_relu(const aclTensor *self, const aclTensor *out, uint64_t *workspace_size, aclOpExecutor **executor) {
    if (self == nullptr || out == nullptr || workspace_size == nullptr || executor == nullptr) {
        return ACLNN_ERR_PARAM_NULLPTR;
    }
    TensorView a;
    TensorView o;
    aclnnStatus rc = view_of(self, a);
    if (rc == ACLNN_SUCCESS) {
        rc = view_of(out, o);
    }
    if (rc != ACLNN_SUCCESS) {
        return rc;
    }
    const aclDataType t = a.data_type;
    const bool supported = t == ACL_FLOAT || t == ACL_FLOAT16 || t == ACL_BF16 || t == ACL_INT8 || t == ACL_UINT8 ||
                           t == ACL_INT32 || t == ACL_INT64;
    if (!supported || o.data_type != t || a.dims != o.dims) {
        return ACLNN_ERR_PARAM_INVALID;
    }
    OpPlan plan;
    plan.kernel = AclnnKernel::Relu;
    plan.api_name = "aclnnRelu_ReluAiCore_Relu";
    plan.compute = [a, o] { with_compute_type(a.data_type, [&](auto zero) { relu_kernel<decltype(zero)>(a, o); }); };
    return create_executor(std::move(plan), workspace_size, executor);
}

}  // namespace
}  // namespace vnpu

extern "C" {

VNPU_EXPORT aclnnStatus aclnnAddGetWorkspaceSize(const aclTensor *self, const aclTensor *other, const aclScalar *alpha,
                                                 aclTensor *out, uint64_t *workspace_size, aclOpExecutor **executor) {
    return vnpu::plan_binary(vnpu::BinaryOp::Add, self, other, alpha, out, workspace_size, executor);
}

VNPU_EXPORT aclnnStatus aclnnAdd(void *workspace, uint64_t workspace_size, aclOpExecutor *executor,
                                 aclrtStream stream) {
    return vnpu::run_executor(workspace, workspace_size, executor, stream);
}

VNPU_EXPORT aclnnStatus aclnnInplaceAddGetWorkspaceSize(const aclTensor *self_ref, const aclTensor *other,
                                                        const aclScalar *alpha, uint64_t *workspace_size,
                                                        aclOpExecutor **executor) {
    return vnpu::plan_binary(vnpu::BinaryOp::Add, self_ref, other, alpha, self_ref, workspace_size, executor);
}

VNPU_EXPORT aclnnStatus aclnnInplaceAdd(void *workspace, uint64_t workspace_size, aclOpExecutor *executor,
                                        aclrtStream stream) {
    return vnpu::run_executor(workspace, workspace_size, executor, stream);
}

VNPU_EXPORT aclnnStatus aclnnMulGetWorkspaceSize(const aclTensor *self, const aclTensor *other, aclTensor *out,
                                                 uint64_t *workspace_size, aclOpExecutor **executor) {
    return vnpu::plan_binary(vnpu::BinaryOp::Mul, self, other, nullptr, out, workspace_size, executor);
}

VNPU_EXPORT aclnnStatus aclnnMul(void *workspace, uint64_t workspace_size, aclOpExecutor *executor,
                                 aclrtStream stream) {
    return vnpu::run_executor(workspace, workspace_size, executor, stream);
}

VNPU_EXPORT aclnnStatus aclnnInplaceMulGetWorkspaceSize(aclTensor *self_ref, const aclTensor *other,
                                                        uint64_t *workspace_size, aclOpExecutor **executor) {
    return vnpu::plan_binary(vnpu::BinaryOp::Mul, self_ref, other, nullptr, self_ref, workspace_size, executor);
}

VNPU_EXPORT aclnnStatus aclnnInplaceMul(void *workspace, uint64_t workspace_size, aclOpExecutor *executor,
                                        aclrtStream stream) {
    return vnpu::run_executor(workspace, workspace_size, executor, stream);
}

VNPU_EXPORT aclnnStatus aclnnReluGetWorkspaceSize(const aclTensor *self, const aclTensor *out, uint64_t *workspace_size,
                                                  aclOpExecutor **executor) {
    return vnpu::plan_relu(self, out, workspace_size, executor);
}

VNPU_EXPORT aclnnStatus aclnnRelu(void *workspace, uint64_t workspace_size, aclOpExecutor *executor,
                                  const aclrtStream stream) {
    return vnpu::run_executor(workspace, workspace_size, executor, stream);
}

VNPU_EXPORT aclnnStatus aclnnInplaceReluGetWorkspaceSize(aclTensor *self_ref, uint64_t *workspace_size,
                                                         aclOpExecutor **executor) {
    return vnpu::plan_relu(self_ref, self_ref, workspace_size, executor);
}

VNPU_EXPORT aclnnStatus aclnnInplaceRelu(void *workspace, uint64_t workspace_size, aclOpExecutor *executor,
                                         const aclrtStream stream) {
    return vnpu::run_executor(workspace, workspace_size, executor, stream);
}

}  // extern "C"

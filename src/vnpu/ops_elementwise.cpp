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

int rankOf(aclDataType t) {
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

bool isElementwiseType(aclDataType t) { return rankOf(t) >= 0; }

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
    return rankOf(a) >= rankOf(b) ? a : b;
}

/// Whether a result of type `from` may be written to a tensor of type `to` (no float -> integer, no
/// integer -> bool narrowing of arithmetic results).
bool castable(aclDataType from, aclDataType to) {
    if (isFloatingType(from) && !isFloatingType(to)) {
        return false;
    }
    return !(to == ACL_BOOL && from != ACL_BOOL);
}

// Elements are converted a chunk of a row at a time (type dispatch per chunk, not per element) and
// computed in plain loops the compiler vectorises. In-place forms are safe: a chunk is read whole
// before it is written.
constexpr int64_t kChunk = 2048;

template <class T>
void binaryKernel(BinaryOp op, const TensorView &self, const TensorView &other, const TensorView &out, T alpha) {
    const std::array<std::vector<int64_t>, 3> strides{broadcastStrides(self, out.dims),
                                                      broadcastStrides(other, out.dims), out.strides};
    std::vector<T> a(kChunk);
    std::vector<T> b(kChunk);
    forEachRow<3>(out.dims, strides, {self.offset, other.offset, out.offset},
                  [&](const std::array<int64_t, 3> &at, int64_t n, const std::array<int64_t, 3> &step) {
                      for (int64_t first = 0; first < n; first += kChunk) {
                          const int64_t len = std::min(kChunk, n - first);
                          loadRow<T>(self.data, at[0] + first * step[0], step[0], len, self.dataType, a.data());
                          loadRow<T>(other.data, at[1] + first * step[1], step[1], len, other.dataType, b.data());
                          T *x = a.data();
                          const T *y = b.data();
                          if (op == BinaryOp::Add) {
                              for (int64_t i = 0; i < len; ++i) x[i] = x[i] + alpha * y[i];
                          } else {
                              for (int64_t i = 0; i < len; ++i) x[i] = x[i] * y[i];
                          }
                          storeRow<T>(out.data, at[2] + first * step[2], step[2], len, out.dataType, x);
                      }
                  });
}

template <class T>
void reluKernel(const TensorView &self, const TensorView &out) {
    const std::array<std::vector<int64_t>, 2> strides{self.strides, out.strides};
    std::vector<T> a(kChunk);
    forEachRow<2>(out.dims, strides, {self.offset, out.offset},
                  [&](const std::array<int64_t, 2> &at, int64_t n, const std::array<int64_t, 2> &step) {
                      for (int64_t first = 0; first < n; first += kChunk) {
                          const int64_t len = std::min(kChunk, n - first);
                          T *x = a.data();
                          loadRow<T>(self.data, at[0] + first * step[0], step[0], len, self.dataType, x);
                          for (int64_t i = 0; i < len; ++i) {
                              const T v = x[i];
                              x[i] = v > T{} || v != v ? v : T{};  // NaN stays NaN
                          }
                          storeRow<T>(out.data, at[1] + first * step[1], step[1], len, out.dataType, x);
                      }
                  });
}

/// Calls fn with a value of the compute type for `type`: float, double or int64_t.
template <class Fn>
void withComputeType(aclDataType type, Fn fn) {
    if (type == ACL_DOUBLE) {
        fn(double{});
    } else if (isFloatingType(type)) {
        fn(float{});
    } else {
        fn(int64_t{});
    }
}

aclnnStatus planBinary(BinaryOp op, const aclTensor *self, const aclTensor *other, const aclScalar *alpha,
                       const aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
    if (self == nullptr || other == nullptr || out == nullptr || (op == BinaryOp::Add && alpha == nullptr) ||
        workspaceSize == nullptr || executor == nullptr) {
        return ACLNN_ERR_PARAM_NULLPTR;
    }
    TensorView a;
    TensorView b;
    TensorView o;
    for (auto [tensor, view] : {std::pair{self, &a}, std::pair{other, &b}, std::pair{out, &o}}) {
        aclnnStatus rc = viewOf(tensor, *view);
        if (rc != ACLNN_SUCCESS) {
            return rc;
        }
    }
    double alphaValue = 1.0;
    if (op == BinaryOp::Add) {
        auto liveAlpha = findScalar(alpha);
        if (!liveAlpha || !isElementwiseType(liveAlpha->dataType)) {
            return ACLNN_ERR_PARAM_INVALID;
        }
        alphaValue = scalarAsDouble(*liveAlpha);
    }
    if (!isElementwiseType(a.dataType) || !isElementwiseType(b.dataType) || !isElementwiseType(o.dataType)) {
        return ACLNN_ERR_PARAM_INVALID;
    }
    const aclDataType common = promote(a.dataType, b.dataType);
    std::vector<int64_t> shape;
    if (!castable(common, o.dataType) || !broadcastShape(a.dims, b.dims, shape) || shape != o.dims) {
        return ACLNN_ERR_PARAM_INVALID;
    }
    if (op == BinaryOp::Add && !isFloatingType(common) && alphaValue != std::floor(alphaValue)) {
        return ACLNN_ERR_PARAM_INVALID;  // a fractional alpha cannot be cast to an integer type
    }
    OpPlan plan;
    if (op == BinaryOp::Add) {
        const bool axpy = alphaValue != 1.0;  // CANN runs Axpy when alpha is not 1
        plan.kernel = axpy ? AclnnKernel::Axpy : AclnnKernel::Add;
        plan.apiName = axpy ? "aclnnAdd_AxpyAiCore_Axpy" : "aclnnAdd_AddAiCore_Add";
    } else {
        plan.kernel = AclnnKernel::Mul;
        plan.apiName = "aclnnMul_MulAiCore_Mul";
    }
    plan.compute = [op, a, b, o, common, alphaValue] {
        withComputeType(common, [&](auto zero) {
            using T = decltype(zero);
            binaryKernel<T>(op, a, b, o, static_cast<T>(alphaValue));
        });
    };
    return createExecutor(std::move(plan), workspaceSize, executor);
}

aclnnStatus planRelu(const aclTensor *self, const aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
    if (self == nullptr || out == nullptr || workspaceSize == nullptr || executor == nullptr) {
        return ACLNN_ERR_PARAM_NULLPTR;
    }
    TensorView a;
    TensorView o;
    aclnnStatus rc = viewOf(self, a);
    if (rc == ACLNN_SUCCESS) {
        rc = viewOf(out, o);
    }
    if (rc != ACLNN_SUCCESS) {
        return rc;
    }
    const aclDataType t = a.dataType;
    const bool supported = t == ACL_FLOAT || t == ACL_FLOAT16 || t == ACL_BF16 || t == ACL_INT8 || t == ACL_UINT8 ||
                           t == ACL_INT32 || t == ACL_INT64;
    if (!supported || o.dataType != t || a.dims != o.dims) {
        return ACLNN_ERR_PARAM_INVALID;
    }
    OpPlan plan;
    plan.kernel = AclnnKernel::Relu;
    plan.apiName = "aclnnRelu_ReluAiCore_Relu";
    plan.compute = [a, o] {
        withComputeType(a.dataType, [&](auto zero) { reluKernel<decltype(zero)>(a, o); });
    };
    return createExecutor(std::move(plan), workspaceSize, executor);
}

} // namespace
} // namespace vnpu

extern "C" {

VNPU_EXPORT aclnnStatus aclnnAddGetWorkspaceSize(const aclTensor *self, const aclTensor *other,
                                                 const aclScalar *alpha, aclTensor *out, uint64_t *workspaceSize,
                                                 aclOpExecutor **executor) {
    return vnpu::planBinary(vnpu::BinaryOp::Add, self, other, alpha, out, workspaceSize, executor);
}

VNPU_EXPORT aclnnStatus aclnnAdd(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                 aclrtStream stream) {
    return vnpu::runExecutor(workspace, workspaceSize, executor, stream);
}

VNPU_EXPORT aclnnStatus aclnnInplaceAddGetWorkspaceSize(const aclTensor *selfRef, const aclTensor *other,
                                                        const aclScalar *alpha, uint64_t *workspaceSize,
                                                        aclOpExecutor **executor) {
    return vnpu::planBinary(vnpu::BinaryOp::Add, selfRef, other, alpha, selfRef, workspaceSize, executor);
}

VNPU_EXPORT aclnnStatus aclnnInplaceAdd(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                        aclrtStream stream) {
    return vnpu::runExecutor(workspace, workspaceSize, executor, stream);
}

VNPU_EXPORT aclnnStatus aclnnMulGetWorkspaceSize(const aclTensor *self, const aclTensor *other, aclTensor *out,
                                                 uint64_t *workspaceSize, aclOpExecutor **executor) {
    return vnpu::planBinary(vnpu::BinaryOp::Mul, self, other, nullptr, out, workspaceSize, executor);
}

VNPU_EXPORT aclnnStatus aclnnMul(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                 aclrtStream stream) {
    return vnpu::runExecutor(workspace, workspaceSize, executor, stream);
}

VNPU_EXPORT aclnnStatus aclnnInplaceMulGetWorkspaceSize(aclTensor *selfRef, const aclTensor *other,
                                                        uint64_t *workspaceSize, aclOpExecutor **executor) {
    return vnpu::planBinary(vnpu::BinaryOp::Mul, selfRef, other, nullptr, selfRef, workspaceSize, executor);
}

VNPU_EXPORT aclnnStatus aclnnInplaceMul(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                        aclrtStream stream) {
    return vnpu::runExecutor(workspace, workspaceSize, executor, stream);
}

VNPU_EXPORT aclnnStatus aclnnReluGetWorkspaceSize(const aclTensor *self, const aclTensor *out,
                                                  uint64_t *workspaceSize, aclOpExecutor **executor) {
    return vnpu::planRelu(self, out, workspaceSize, executor);
}

VNPU_EXPORT aclnnStatus aclnnRelu(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                  const aclrtStream stream) {
    return vnpu::runExecutor(workspace, workspaceSize, executor, stream);
}

VNPU_EXPORT aclnnStatus aclnnInplaceReluGetWorkspaceSize(aclTensor *selfRef, uint64_t *workspaceSize,
                                                         aclOpExecutor **executor) {
    return vnpu::planRelu(selfRef, selfRef, workspaceSize, executor);
}

VNPU_EXPORT aclnnStatus aclnnInplaceRelu(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                         const aclrtStream stream) {
    return vnpu::runExecutor(workspace, workspaceSize, executor, stream);
}

} // extern "C"

// aclnnMatmul with torch.matmul semantics: 1-D operands are promoted to matrices (and the added dimension
// removed from the result), batch dimensions broadcast. Accumulates in fp32, as the cube unit does.
#include <vector>

#include "aclnnop/aclnn_matmul.h"
#include "broadcast.h"
#include "dtype_access.h"
#include "export.h"
#include "op_executor.h"

namespace vnpu {
namespace {

bool isMatmulType(aclDataType t) { return t == ACL_FLOAT || t == ACL_FLOAT16 || t == ACL_BF16; }

/// A matmul operand as a batch of matrices: batch dims, rows, cols and the matching strides.
struct MatrixOperand {
    TensorView view;
    std::vector<int64_t> batchDims;
    std::vector<int64_t> batchStrides;
    int64_t rows = 1, cols = 1, rowStride = 0, colStride = 0;
};

MatrixOperand asMatrices(const TensorView &v, bool isLeft) {
    MatrixOperand m;
    m.view = v;
    const size_t rank = v.dims.size();
    if (rank == 1) {  // [K] is a row vector on the left, a column vector on the right
        if (isLeft) {
            m.cols = v.dims[0];
            m.colStride = v.strides[0];
        } else {
            m.rows = v.dims[0];
            m.rowStride = v.strides[0];
        }
        return m;
    }
    m.batchDims.assign(v.dims.begin(), v.dims.end() - 2);
    m.batchStrides.assign(v.strides.begin(), v.strides.end() - 2);
    m.rows = v.dims[rank - 2];
    m.cols = v.dims[rank - 1];
    m.rowStride = v.strides[rank - 2];
    m.colStride = v.strides[rank - 1];
    return m;
}

void matmulKernel(const MatrixOperand &a, const MatrixOperand &b, const TensorView &out,
                  const std::vector<int64_t> &batchDims) {
    const TensorView aBatch{a.view.data, a.view.dataType, a.batchDims, a.batchStrides, 0};
    const TensorView bBatch{b.view.data, b.view.dataType, b.batchDims, b.batchStrides, 0};
    TensorView outBatch{out.data, out.dataType, batchDims, {}, 0};
    outBatch.strides.assign(out.strides.begin(), out.strides.begin() + static_cast<long>(batchDims.size()));
    const int64_t M = a.rows;
    const int64_t N = b.cols;
    const int64_t K = a.cols;
    // Output strides of the matrix part (absent dims contribute nothing).
    const size_t outRank = out.dims.size();
    const bool hasM = a.view.dims.size() > 1;
    const bool hasN = b.view.dims.size() > 1;
    const int64_t outRowStride = hasM ? out.strides[outRank - (hasN ? 2 : 1)] : 0;
    const int64_t outColStride = hasN ? out.strides[outRank - 1] : 0;
    const std::array<std::vector<int64_t>, 3> strides{broadcastStrides(aBatch, batchDims),
                                                      broadcastStrides(bBatch, batchDims), outBatch.strides};
    forEachElement<3>(batchDims, strides, {a.view.offset, b.view.offset, out.offset},
                      [&](const std::array<int64_t, 3> &base) {
                          for (int64_t m = 0; m < M; ++m) {
                              for (int64_t n = 0; n < N; ++n) {
                                  float sum = 0.0f;
                                  for (int64_t k = 0; k < K; ++k) {
                                      sum += loadElement<float>(a.view.data, base[0] + m * a.rowStride + k * a.colStride,
                                                                a.view.dataType) *
                                             loadElement<float>(b.view.data, base[1] + k * b.rowStride + n * b.colStride,
                                                                b.view.dataType);
                                  }
                                  storeElement<float>(out.data, base[2] + m * outRowStride + n * outColStride,
                                                      out.dataType, sum);
                              }
                          }
                      });
}

aclnnStatus planMatmul(const aclTensor *self, const aclTensor *mat2, const aclTensor *out, int8_t cubeMathType,
                       uint64_t *workspaceSize, aclOpExecutor **executor) {
    if (self == nullptr || mat2 == nullptr || out == nullptr || workspaceSize == nullptr || executor == nullptr) {
        return ACLNN_ERR_PARAM_NULLPTR;
    }
    TensorView a;
    TensorView b;
    TensorView o;
    for (auto [tensor, view] : {std::pair{self, &a}, std::pair{mat2, &b}, std::pair{out, &o}}) {
        aclnnStatus rc = viewOf(tensor, *view);
        if (rc != ACLNN_SUCCESS) {
            return rc;
        }
    }
    if (!isMatmulType(a.dataType) || !isMatmulType(b.dataType) || !isMatmulType(o.dataType) || cubeMathType < 0 ||
        cubeMathType > 4) {
        return ACLNN_ERR_PARAM_INVALID;
    }
    if (a.dims.empty() || b.dims.empty() || a.dims.size() > 6 || b.dims.size() > 6) {
        return ACLNN_ERR_PARAM_INVALID;
    }
    const MatrixOperand left = asMatrices(a, true);
    const MatrixOperand right = asMatrices(b, false);
    std::vector<int64_t> batchDims;
    if (left.cols != right.rows || !broadcastShape(left.batchDims, right.batchDims, batchDims)) {
        return ACLNN_ERR_PARAM_INVALID;
    }
    std::vector<int64_t> expected = batchDims;
    if (a.dims.size() > 1) {
        expected.push_back(left.rows);
    }
    if (b.dims.size() > 1) {
        expected.push_back(right.cols);
    }
    if (expected != o.dims) {
        return ACLNN_ERR_PARAM_INVALID;
    }
    OpPlan plan;
    plan.kernel = AclnnKernel::MatMul;
    plan.apiName = "aclnnMatmul_MatMulV3AiCore_MatMulV3";
    plan.compute = [left, right, o, batchDims] { matmulKernel(left, right, o, batchDims); };
    return createExecutor(std::move(plan), workspaceSize, executor);
}

} // namespace
} // namespace vnpu

extern "C" {

VNPU_EXPORT aclnnStatus aclnnMatmulGetWorkspaceSize(const aclTensor *self, const aclTensor *mat2, aclTensor *out,
                                                    int8_t cubeMathType, uint64_t *workspaceSize,
                                                    aclOpExecutor **executor) {
    return vnpu::planMatmul(self, mat2, out, cubeMathType, workspaceSize, executor);
}

VNPU_EXPORT aclnnStatus aclnnMatmul(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                    aclrtStream stream) {
    return vnpu::runExecutor(workspace, workspaceSize, executor, stream);
}

} // extern "C"

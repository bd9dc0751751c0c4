// aclnnMatmul with torch.matmul semantics: 1-D operands are promoted to matrices (and the added dimension
// removed from the result), batch dimensions broadcast. Accumulates in fp32, as the cube unit does,
// in OpenBLAS's sgemm.
#include <cblas.h>

#include <algorithm>
#include <vector>

#include "aclnnop/aclnn_matmul.h"
#include "broadcast.h"
#include "dtype_rows.h"
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

/// One operand matrix in fp32 as sgemm takes it: a pointer, its leading dimension and whether it is
/// stored transposed (column by column). fp32 operands whose rows or columns are contiguous are used
/// in place; others are converted into `scratch`, along whichever of their dimensions is contiguous.
struct GemmOperand {
    const float *data = nullptr;
    int ld = 1;
    CBLAS_TRANSPOSE trans = CblasNoTrans;
};

GemmOperand gemmOperand(const MatrixOperand &m, int64_t base, std::vector<float> &scratch) {
    GemmOperand g;
    const bool byColumns = (m.cols == 1 && m.rows > 1) || (m.rowStride == 1 && m.colStride != 1);
    if (m.view.dataType == ACL_FLOAT) {
        const auto *p = static_cast<const float *>(m.view.data) + base;
        if (!byColumns && m.colStride == 1 && m.rowStride >= std::max<int64_t>(1, m.cols)) {
            return {p, static_cast<int>(m.rowStride), CblasNoTrans};
        }
        if (byColumns && m.rowStride == 1 && m.colStride >= std::max<int64_t>(1, m.rows)) {
            return {p, static_cast<int>(m.colStride), CblasTrans};
        }
    }
    scratch.resize(static_cast<size_t>(m.rows * m.cols));
    if (byColumns) {
        for (int64_t c = 0; c < m.cols; ++c) {
            loadRow<float>(m.view.data, base + c * m.colStride, m.rowStride, m.rows, m.view.dataType,
                           scratch.data() + c * m.rows);
        }
        return {scratch.data(), static_cast<int>(std::max<int64_t>(1, m.rows)), CblasTrans};
    }
    for (int64_t r = 0; r < m.rows; ++r) {
        loadRow<float>(m.view.data, base + r * m.rowStride, m.colStride, m.cols, m.view.dataType,
                       scratch.data() + r * m.cols);
    }
    return {scratch.data(), static_cast<int>(std::max<int64_t>(1, m.cols)), CblasNoTrans};
}

// Each matrix of the batch: operands converted to fp32, multiplied by OpenBLAS's sgemm (fp32
// accumulate, as the cube unit), the result converted to the output type.
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
    if (M == 0 || N == 0) {
        return;
    }
    // fp32 output with contiguous rows is written by sgemm in place.
    const bool direct = out.dataType == ACL_FLOAT && (outColStride == 1 || N == 1) && outRowStride >= N;
    std::vector<float> aScratch;
    std::vector<float> bScratch;
    std::vector<float> c(direct ? 0 : static_cast<size_t>(M * N));
    forEachElement<3>(batchDims, strides, {a.view.offset, b.view.offset, out.offset},
                      [&](const std::array<int64_t, 3> &base) {
                          float *dst = direct ? static_cast<float *>(out.data) + base[2] : c.data();
                          const int ldc = static_cast<int>(direct ? std::max<int64_t>(outRowStride, 1) : N);
                          if (K == 0) {
                              for (int64_t m = 0; m < M; ++m) std::fill(dst + m * ldc, dst + m * ldc + N, 0.0f);
                          } else {
                              const GemmOperand ga = gemmOperand(a, base[0], aScratch);
                              const GemmOperand gb = gemmOperand(b, base[1], bScratch);
                              cblas_sgemm(CblasRowMajor, ga.trans, gb.trans, static_cast<int>(M), static_cast<int>(N),
                                          static_cast<int>(K), 1.0f, ga.data, ga.ld, gb.data, gb.ld, 0.0f, dst, ldc);
                          }
                          if (!direct) {
                              for (int64_t m = 0; m < M; ++m) {
                                  storeRow<float>(out.data, base[2] + m * outRowStride, outColStride, N, out.dataType,
                                                  c.data() + m * N);
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

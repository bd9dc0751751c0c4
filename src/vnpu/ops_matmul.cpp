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

bool is_matmul_type(aclDataType t) { return t == ACL_FLOAT || t == ACL_FLOAT16 || t == ACL_BF16; }

/// A matmul operand as a batch of matrices: batch dims, rows, cols and the matching strides.
struct MatrixOperand {
    TensorView view;
    std::vector<int64_t> batch_dims;
    std::vector<int64_t> batch_strides;
    int64_t rows = 1, cols = 1, row_stride = 0, col_stride = 0;
};

MatrixOperand as_matrices(const TensorView &v, bool is_left) {
    MatrixOperand m;
    m.view = v;
    const size_t rank = v.dims.size();
    if (rank == 1) {  // [K] is a row vector on the left, a column vector on the right
        if (is_left) {
            m.cols = v.dims[0];
            m.col_stride = v.strides[0];
        } else {
            m.rows = v.dims[0];
            m.row_stride = v.strides[0];
        }
        return m;
    }
    m.batch_dims.assign(v.dims.begin(), v.dims.end() - 2);
    m.batch_strides.assign(v.strides.begin(), v.strides.end() - 2);
    m.rows = v.dims[rank - 2];
    m.cols = v.dims[rank - 1];
    m.row_stride = v.strides[rank - 2];
    m.col_stride = v.strides[rank - 1];
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

GemmOperand gemm_operand(const MatrixOperand &m, int64_t base, std::vector<float> &scratch) {
    GemmOperand g;
    const bool by_columns = (m.cols == 1 && m.rows > 1) || (m.row_stride == 1 && m.col_stride != 1);
    if (m.view.data_type == ACL_FLOAT) {
        const auto *p = static_cast<const float *>(m.view.data) + base;
        if (!by_columns && m.col_stride == 1 && m.row_stride >= std::max<int64_t>(1, m.cols)) {
            return {p, static_cast<int>(m.row_stride), CblasNoTrans};
        }
        if (by_columns && m.row_stride == 1 && m.col_stride >= std::max<int64_t>(1, m.rows)) {
            return {p, static_cast<int>(m.col_stride), CblasTrans};
        }
    }
    scratch.resize(static_cast<size_t>(m.rows * m.cols));
    if (by_columns) {
        for (int64_t c = 0; c < m.cols; ++c) {
            load_row<float>(m.view.data, base + c * m.col_stride, m.row_stride, m.rows, m.view.data_type,
                            scratch.data() + c * m.rows);
        }
        return {scratch.data(), static_cast<int>(std::max<int64_t>(1, m.rows)), CblasTrans};
    }
    for (int64_t r = 0; r < m.rows; ++r) {
        load_row<float>(m.view.data, base + r * m.row_stride, m.col_stride, m.cols, m.view.data_type,
                        scratch.data() + r * m.cols);
    }
    return {scratch.data(), static_cast<int>(std::max<int64_t>(1, m.cols)), CblasNoTrans};
}

// Each matrix of the batch: operands converted to fp32, multiplied by OpenBLAS's sgemm (fp32
// accumulate, as the cube unit), the result converted to the output type.
void matmul_kernel(const MatrixOperand &a, const MatrixOperand &b, const TensorView &out,
                   const std::vector<int64_t> &batch_dims) {
    const TensorView a_batch{a.view.data, a.view.data_type, a.batch_dims, a.batch_strides, 0};
    const TensorView b_batch{b.view.data, b.view.data_type, b.batch_dims, b.batch_strides, 0};
    TensorView out_batch{out.data, out.data_type, batch_dims, {}, 0};
    out_batch.strides.assign(out.strides.begin(), out.strides.begin() + static_cast<long>(batch_dims.size()));
    const int64_t M = a.rows;
    const int64_t N = b.cols;
    const int64_t K = a.cols;
    // Output strides of the matrix part (absent dims contribute nothing).
    const size_t out_rank = out.dims.size();
    const bool has_m = a.view.dims.size() > 1;
    const bool has_n = b.view.dims.size() > 1;
    const int64_t out_row_stride = has_m ? out.strides[out_rank - (has_n ? 2 : 1)] : 0;
    const int64_t out_col_stride = has_n ? out.strides[out_rank - 1] : 0;
    const std::array<std::vector<int64_t>, 3> strides{broadcast_strides(a_batch, batch_dims),
                                                      broadcast_strides(b_batch, batch_dims), out_batch.strides};
    if (M == 0 || N == 0) {
        return;
    }
    // fp32 output with contiguous rows is written by sgemm in place.
    const bool direct = out.data_type == ACL_FLOAT && (out_col_stride == 1 || N == 1) && out_row_stride >= N;
    std::vector<float> a_scratch;
    std::vector<float> b_scratch;
    std::vector<float> c(direct ? 0 : static_cast<size_t>(M * N));
    for_each_element<3>(batch_dims, strides, {a.view.offset, b.view.offset, out.offset},
                        [&](const std::array<int64_t, 3> &base) {
                            float *dst = direct ? static_cast<float *>(out.data) + base[2] : c.data();
                            const int ldc = static_cast<int>(direct ? std::max<int64_t>(out_row_stride, 1) : N);
                            if (K == 0) {
                                for (int64_t m = 0; m < M; ++m) std::fill(dst + m * ldc, dst + m * ldc + N, 0.0f);
                            } else {
                                const GemmOperand ga = gemm_operand(a, base[0], a_scratch);
                                const GemmOperand gb = gemm_operand(b, base[1], b_scratch);
                                cblas_sgemm(CblasRowMajor, ga.trans, gb.trans, static_cast<int>(M), static_cast<int>(N),
                                            static_cast<int>(K), 1.0f, ga.data, ga.ld, gb.data, gb.ld, 0.0f, dst, ldc);
                            }
                            if (!direct) {
                                for (int64_t m = 0; m < M; ++m) {
                                    store_row<float>(out.data, base[2] + m * out_row_stride, out_col_stride, N,
                                                     out.data_type, c.data() + m * N);
                                }
                            }
                        });
}

aclnnStatus plan_matmul(const aclTensor *self, const aclTensor *mat2, const aclTensor *out, int8_t cube_math_type,
                        uint64_t *workspace_size, aclOpExecutor **executor) {
    if (self == nullptr || mat2 == nullptr || out == nullptr || workspace_size == nullptr || executor == nullptr) {
        return ACLNN_ERR_PARAM_NULLPTR;
    }
    TensorView a;
    TensorView b;
    TensorView o;
    for (auto [tensor, view] : {std::pair{self, &a}, std::pair{mat2, &b}, std::pair{out, &o}}) {
        aclnnStatus rc = view_of(tensor, *view);
        if (rc != ACLNN_SUCCESS) {
            return rc;
        }
    }
    if (!is_matmul_type(a.data_type) || !is_matmul_type(b.data_type) || !is_matmul_type(o.data_type) ||
        cube_math_type < 0 || cube_math_type > 4) {
        return ACLNN_ERR_PARAM_INVALID;
    }
    if (a.dims.empty() || b.dims.empty() || a.dims.size() > 6 || b.dims.size() > 6) {
        return ACLNN_ERR_PARAM_INVALID;
    }
    const MatrixOperand left = as_matrices(a, true);
    const MatrixOperand right = as_matrices(b, false);
    std::vector<int64_t> expected;
    if (!matmul_shape(a.dims, b.dims, expected) || expected != o.dims) {
        return ACLNN_ERR_PARAM_INVALID;
    }
    // The batch dimensions lead the result; a 2-D (or more) operand adds its rows / columns after them.
    const size_t matrix_dims = (a.dims.size() > 1 ? 1 : 0) + (b.dims.size() > 1 ? 1 : 0);
    const std::vector<int64_t> batch_dims(expected.begin(), expected.end() - static_cast<long>(matrix_dims));
    OpPlan plan;
    plan.kernel = AclnnKernel::MatMul;
    plan.api_name = "aclnnMatmul_MatMulV3AiCore_MatMulV3";
    plan.compute = [left, right, o, batch_dims] { matmul_kernel(left, right, o, batch_dims); };
    return create_executor(std::move(plan), workspace_size, executor);
}

}  // namespace
}  // namespace vnpu

extern "C" {

VNPU_EXPORT aclnnStatus aclnnMatmulGetWorkspaceSize(const aclTensor *self, const aclTensor *mat2, aclTensor *out,
                                                    int8_t cube_math_type, uint64_t *workspace_size,
                                                    aclOpExecutor **executor) {
    return vnpu::plan_matmul(self, mat2, out, cube_math_type, workspace_size, executor);
}

VNPU_EXPORT aclnnStatus aclnnMatmul(void *workspace, uint64_t workspace_size, aclOpExecutor *executor,
                                    aclrtStream stream) {
    return vnpu::run_executor(workspace, workspace_size, executor, stream);
}

}  // extern "C"

// Result shapes of the operators: NumPy broadcasting and torch.matmul's shape rule. Header-only and
// free of the runtime's types, so that the kernels (broadcast.h, ops_matmul.cpp) and the language
// facade (src/vnpu_facade) share one implementation.
#pragma once

#include <cstdint>
#include <vector>

namespace vnpu {

/// NumPy-style broadcast of two shapes into `out`; false if incompatible.
inline bool broadcast_shape(const std::vector<int64_t> &a, const std::vector<int64_t> &b, std::vector<int64_t> &out) {
    const size_t rank = a.size() > b.size() ? a.size() : b.size();
    out.assign(rank, 1);
    for (size_t i = 0; i < rank; ++i) {
        const int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
        const int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
        if (da != db && da != 1 && db != 1) {
            return false;
        }
        out[i] = da == 1 ? db : da;
    }
    return true;
}

/// The shape of a @ b under torch.matmul's rule into `out`: a 1-D left operand is a row vector and a
/// 1-D right operand a column vector (both dimensions dropped from the result), leading (batch)
/// dimensions broadcast. False if either operand is 0-D or the shapes do not fit.
inline bool matmul_shape(const std::vector<int64_t> &a, const std::vector<int64_t> &b, std::vector<int64_t> &out) {
    if (a.empty() || b.empty()) {
        return false;
    }
    const int64_t a_cols = a.back();
    const int64_t b_rows = b.size() == 1 ? b[0] : b[b.size() - 2];
    if (a_cols != b_rows) {
        return false;
    }
    const std::vector<int64_t> a_batch(a.begin(), a.end() - (a.size() > 1 ? 2 : 1));
    const std::vector<int64_t> b_batch(b.begin(), b.end() - (b.size() > 1 ? 2 : 1));
    if (!broadcast_shape(a_batch, b_batch, out)) {
        return false;
    }
    if (a.size() > 1) {
        out.push_back(a[a.size() - 2]);
    }
    if (b.size() > 1) {
        out.push_back(b.back());
    }
    return true;
}

}  // namespace vnpu

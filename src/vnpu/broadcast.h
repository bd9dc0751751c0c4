// Broadcast strides and a strided element walk shared by the elementwise kernels (the shapes: shape.h).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "shape.h"
#include "tensor.h"

namespace vnpu {

/// Strides of `view` laid over `out_dims` (right-aligned), 0 along broadcast dimensions.
inline std::vector<int64_t> broadcast_strides(const TensorView &view, const std::vector<int64_t> &out_dims) {
    std::vector<int64_t> strides(out_dims.size(), 0);
    const size_t lead = out_dims.size() - view.dims.size();
    for (size_t i = 0; i < view.dims.size(); ++i) {
        strides[lead + i] = view.dims[i] == 1 ? 0 : view.strides[i];
    }
    return strides;
}

/// Calls fn(offsets) for every element of `dims` in row-major order, with each operand's element offset.
template <size_t N, class Fn>
void for_each_element(const std::vector<int64_t> &dims, const std::array<std::vector<int64_t>, N> &strides,
                      std::array<int64_t, N> offsets, Fn fn) {
    int64_t total = 1;
    for (int64_t d : dims) {
        total *= d;
    }
    std::vector<int64_t> index(dims.size(), 0);
    for (int64_t n = 0; n < total; ++n) {
        fn(offsets);
        for (size_t d = dims.size(); d-- > 0;) {
            for (size_t k = 0; k < N; ++k) {
                offsets[k] += strides[k][d];
            }
            if (++index[d] < dims[d]) {
                break;
            }
            for (size_t k = 0; k < N; ++k) {
                offsets[k] -= strides[k][d] * dims[d];
            }
            index[d] = 0;
        }
    }
}

/// Calls fn(offsets, n, steps) for every row (run along the last dimension) of `dims` in row-major
/// order: each operand's offset of the row's first element, the row length and each operand's stride
/// along the row. A scalar (no dimensions) is one row of one element.
template <size_t N, class Fn>
void for_each_row(const std::vector<int64_t> &dims, const std::array<std::vector<int64_t>, N> &strides,
                  std::array<int64_t, N> offsets, Fn fn) {
    std::array<int64_t, N> steps{};
    if (dims.empty()) {
        fn(offsets, int64_t{1}, steps);
        return;
    }
    const size_t last = dims.size() - 1;
    std::array<std::vector<int64_t>, N> outer_strides;
    for (size_t k = 0; k < N; ++k) {
        steps[k] = strides[k][last];
        outer_strides[k].assign(strides[k].begin(), strides[k].begin() + static_cast<long>(last));
    }
    const std::vector<int64_t> outer(dims.begin(), dims.begin() + static_cast<long>(last));
    const int64_t n = dims[last];
    for_each_element<N>(outer, outer_strides, offsets, [&](const std::array<int64_t, N> &at) { fn(at, n, steps); });
}

}  // namespace vnpu

// The operators' shape rules (src/vnpu/shape.h), which the kernels and every language binding share.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "../../src/vnpu/shape.h"

namespace {

using Shape = std::vector<int64_t>;

Shape broadcast(const Shape &a, const Shape &b, bool *ok = nullptr) {
    Shape out{-7};
    bool fits = vnpu::broadcast_shape(a, b, out);
    if (ok != nullptr) *ok = fits;
    return out;
}

Shape matmul(const Shape &a, const Shape &b, bool *ok = nullptr) {
    Shape out{-7};
    bool fits = vnpu::matmul_shape(a, b, out);
    if (ok != nullptr) *ok = fits;
    return out;
}

TEST(ShapeRules, BroadcastFollowsNumPy) {
    EXPECT_EQ(broadcast({2, 1, 4}, {3, 1}), (Shape{2, 3, 4}));
    EXPECT_EQ(broadcast({}, {5}), (Shape{5}));
    EXPECT_EQ(broadcast({}, {}), (Shape{}));
    EXPECT_EQ(broadcast({0, 1}, {1, 3}), (Shape{0, 3}));
    bool ok = true;
    broadcast({2, 3}, {4}, &ok);
    EXPECT_FALSE(ok);
}

TEST(ShapeRules, MatmulFollowsTorch) {
    EXPECT_EQ(matmul({3, 4}, {4, 5}), (Shape{3, 5}));
    EXPECT_EQ(matmul({4}, {4}), (Shape{}));  // vector . vector: a scalar
    EXPECT_EQ(matmul({4}, {2, 4, 5}), (Shape{2, 5}));  // row vector, batched right
    EXPECT_EQ(matmul({2, 3, 4}, {4}), (Shape{2, 3}));  // column vector
    EXPECT_EQ(matmul({2, 1, 3, 4}, {5, 4, 6}), (Shape{2, 5, 3, 6}));  // batch dimensions broadcast
    bool ok = true;
    matmul({3, 4}, {5, 6}, &ok);
    EXPECT_FALSE(ok);
    matmul({}, {4}, &ok);
    EXPECT_FALSE(ok);
    matmul({2, 3, 4}, {3, 4, 5}, &ok);  // batches 2 and 3 do not broadcast
    EXPECT_FALSE(ok);
}

}  // namespace

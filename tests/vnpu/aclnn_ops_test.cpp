// aclnn operators: results in fp32 and fp16 against references computed here, and argument checks.
#include <cmath>
#include <numeric>

#include "aclnn/opdev/op_errno.h"
#include "aclnnop/aclnn_add.h"
#include "aclnnop/aclnn_matmul.h"
#include "aclnnop/aclnn_mul.h"
#include "aclnnop/aclnn_relu.h"
#include "test_support.h"

using vnpu_test::DeviceBuffer;
using vnpu_test::DeviceTest;

namespace {

aclTensor *makeTensor(const std::vector<int64_t> &shape, aclDataType type, void *data) {
    std::vector<int64_t> strides(shape.size(), 1);
    for (size_t i = shape.size(); i-- > 1;) {
        strides[i - 1] = strides[i] * shape[i];
    }
    return aclCreateTensor(shape.data(), shape.size(), type, strides.data(), 0, ACL_FORMAT_ND, shape.data(),
                           shape.size(), data);
}

std::vector<uint16_t> toHalf(const std::vector<float> &values) {
    std::vector<uint16_t> out;
    for (float v : values) {
        out.push_back(aclFloatToFloat16(v));
    }
    return out;
}

std::vector<float> fromHalf(const std::vector<uint16_t> &values) {
    std::vector<float> out;
    for (uint16_t v : values) {
        out.push_back(aclFloat16ToFloat(v));
    }
    return out;
}

float roundToHalf(float v) { return aclFloat16ToFloat(aclFloatToFloat16(v)); }

class AclnnTest : public DeviceTest {
protected:
    /// Runs phase 2 of an executor and waits for it.
    template <class Phase2>
    void run(Phase2 phase2, aclOpExecutor *executor, uint64_t workspaceSize) {
        EXPECT_EQ(workspaceSize, 0u);
        ASSERT_EQ(phase2(nullptr, workspaceSize, executor, stream_), ACL_SUCCESS);
        ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
    }
};

}  // namespace

TEST(Half, ConvertsWithRoundToNearestEven) {
    EXPECT_EQ(aclFloatToFloat16(1.0f), 0x3c00);
    EXPECT_EQ(aclFloatToFloat16(-2.0f), 0xc000);
    EXPECT_EQ(aclFloatToFloat16(65504.0f), 0x7bff);
    EXPECT_EQ(aclFloatToFloat16(65520.0f), 0x7c00);  // rounds up to infinity
    EXPECT_EQ(aclFloatToFloat16(5.960464477539063e-08f), 0x0001);  // smallest subnormal
    EXPECT_EQ(aclFloatToFloat16(1.0f + 1.0f / 2048.0f), 0x3c00);  // tie to even
    EXPECT_EQ(aclFloatToFloat16(1.0f + 3.0f / 2048.0f), 0x3c02);
    EXPECT_FLOAT_EQ(aclFloat16ToFloat(0x0001), 5.960464477539063e-08f);
    EXPECT_FLOAT_EQ(aclFloat16ToFloat(0x3555), 0.333251953125f);
    EXPECT_TRUE(std::isnan(aclFloat16ToFloat(aclFloatToFloat16(NAN))));
    EXPECT_TRUE(std::isinf(aclFloat16ToFloat(0xfc00)));
    EXPECT_EQ(aclDataTypeSize(ACL_FLOAT16), 2u);
    EXPECT_EQ(aclDataTypeSize(ACL_INT64), 8u);
}

TEST_F(AclnnTest, AddWithAlphaGivesTheSampleResultInFp32) {
    std::vector<float> self(8);
    std::iota(self.begin(), self.end(), 0.0f);
    const std::vector<float> other{1, 1, 1, 2, 2, 2, 3, 3};
    DeviceBuffer a(self);
    DeviceBuffer b(other);
    DeviceBuffer out(8 * sizeof(float));
    aclTensor *ta = makeTensor({4, 2}, ACL_FLOAT, a.get());
    aclTensor *tb = makeTensor({4, 2}, ACL_FLOAT, b.get());
    aclTensor *to = makeTensor({4, 2}, ACL_FLOAT, out.get());
    float alphaValue = 1.2f;
    aclScalar *alpha = aclCreateScalar(&alphaValue, ACL_FLOAT);
    uint64_t ws = 1;
    aclOpExecutor *executor = nullptr;
    ASSERT_EQ(aclnnAddGetWorkspaceSize(ta, tb, alpha, to, &ws, &executor), ACL_SUCCESS);
    run(aclnnAdd, executor, ws);
    const std::vector<float> expected{1.2f, 2.2f, 3.2f, 5.4f, 6.4f, 7.4f, 9.6f, 10.6f};
    auto result = out.read<float>();
    for (size_t i = 0; i < 8; ++i) {
        EXPECT_FLOAT_EQ(result[i], self[i] + alphaValue * other[i]);
        EXPECT_NEAR(result[i], expected[i], 1e-5);
    }
    EXPECT_EQ(aclnnAdd(nullptr, 0, executor, stream_), ACLNN_ERR_PARAM_INVALID);  // consumed by phase 2
    aclDestroyTensor(ta);
    aclDestroyTensor(tb);
    aclDestroyTensor(to);
    aclDestroyScalar(alpha);
}

TEST_F(AclnnTest, AddBroadcastsInFp16) {
    const std::vector<float> self{0.5f, -1.25f, 3.0f, 100.0f, 0.1f, -7.5f};  // 2x3
    const std::vector<float> other{1.5f, 0.25f, -2.0f};  // 3
    DeviceBuffer a(toHalf(self));
    DeviceBuffer b(toHalf(other));
    DeviceBuffer out(6 * 2);
    aclTensor *ta = makeTensor({2, 3}, ACL_FLOAT16, a.get());
    aclTensor *tb = makeTensor({3}, ACL_FLOAT16, b.get());
    aclTensor *to = makeTensor({2, 3}, ACL_FLOAT16, out.get());
    uint16_t alphaHalf = aclFloatToFloat16(2.0f);
    aclScalar *alpha = aclCreateScalar(&alphaHalf, ACL_FLOAT16);
    uint64_t ws = 0;
    aclOpExecutor *executor = nullptr;
    ASSERT_EQ(aclnnAddGetWorkspaceSize(ta, tb, alpha, to, &ws, &executor), ACL_SUCCESS);
    run(aclnnAdd, executor, ws);
    auto result = fromHalf(out.read<uint16_t>());
    for (size_t i = 0; i < 6; ++i) {
        const float expected = roundToHalf(roundToHalf(self[i]) + 2.0f * roundToHalf(other[i % 3]));
        EXPECT_EQ(result[i], expected) << i;
    }
    aclDestroyTensor(ta);
    aclDestroyTensor(tb);
    aclDestroyTensor(to);
    aclDestroyScalar(alpha);
}

TEST_F(AclnnTest, MulMultipliesInFp32AndFp16) {
    const std::vector<float> x{1.5f, -2.0f, 0.0f, 3.25f, 1e3f, -0.5f, 7.0f, 2.0f};
    const std::vector<float> y{2.0f, 4.0f, 9.0f, -1.0f, 0.001f, -0.5f, 0.125f, 8.0f};
    for (aclDataType type : {ACL_FLOAT, ACL_FLOAT16}) {
        const bool half = type == ACL_FLOAT16;
        DeviceBuffer a = half ? DeviceBuffer(toHalf(x)) : DeviceBuffer(x);
        DeviceBuffer b = half ? DeviceBuffer(toHalf(y)) : DeviceBuffer(y);
        DeviceBuffer out(8 * aclDataTypeSize(type));
        aclTensor *ta = makeTensor({2, 4}, type, a.get());
        aclTensor *tb = makeTensor({2, 4}, type, b.get());
        aclTensor *to = makeTensor({2, 4}, type, out.get());
        uint64_t ws = 0;
        aclOpExecutor *executor = nullptr;
        ASSERT_EQ(aclnnMulGetWorkspaceSize(ta, tb, to, &ws, &executor), ACL_SUCCESS);
        run(aclnnMul, executor, ws);
        auto result = half ? fromHalf(out.read<uint16_t>()) : out.read<float>();
        for (size_t i = 0; i < 8; ++i) {
            const float expected = half ? roundToHalf(roundToHalf(x[i]) * roundToHalf(y[i])) : x[i] * y[i];
            EXPECT_EQ(result[i], expected) << i;
        }
        aclDestroyTensor(ta);
        aclDestroyTensor(tb);
        aclDestroyTensor(to);
    }
}

TEST_F(AclnnTest, ReluClampsNegativesInFp32AndFp16) {
    const std::vector<float> x{-3.0f, -0.0f, 0.5f, 2.0f, -1e-3f, 65000.0f};
    for (aclDataType type : {ACL_FLOAT, ACL_FLOAT16}) {
        const bool half = type == ACL_FLOAT16;
        DeviceBuffer a = half ? DeviceBuffer(toHalf(x)) : DeviceBuffer(x);
        DeviceBuffer out(x.size() * aclDataTypeSize(type));
        aclTensor *ta = makeTensor({6}, type, a.get());
        aclTensor *to = makeTensor({6}, type, out.get());
        uint64_t ws = 0;
        aclOpExecutor *executor = nullptr;
        ASSERT_EQ(aclnnReluGetWorkspaceSize(ta, to, &ws, &executor), ACL_SUCCESS);
        run(aclnnRelu, executor, ws);
        auto result = half ? fromHalf(out.read<uint16_t>()) : out.read<float>();
        for (size_t i = 0; i < x.size(); ++i) {
            const float in = half ? roundToHalf(x[i]) : x[i];
            EXPECT_EQ(result[i], in > 0 ? in : 0.0f) << i;
        }
        aclDestroyTensor(ta);
        aclDestroyTensor(to);
    }
}

TEST_F(AclnnTest, MatmulMatchesReferenceInFp32AndFp16IncludingBatches) {
    const int64_t B = 2, M = 3, K = 5, N = 4;
    std::vector<float> x(B * M * K);
    std::vector<float> y(K * N);
    for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(static_cast<int>(i % 7) - 3) * 0.5f;
    for (size_t i = 0; i < y.size(); ++i) y[i] = static_cast<float>(static_cast<int>(i % 5) - 2) * 0.25f;
    for (aclDataType type : {ACL_FLOAT, ACL_FLOAT16}) {
        const bool half = type == ACL_FLOAT16;
        DeviceBuffer a = half ? DeviceBuffer(toHalf(x)) : DeviceBuffer(x);
        DeviceBuffer b = half ? DeviceBuffer(toHalf(y)) : DeviceBuffer(y);
        DeviceBuffer out(static_cast<size_t>(B * M * N) * aclDataTypeSize(type));
        aclTensor *ta = makeTensor({B, M, K}, type, a.get());
        aclTensor *tb = makeTensor({K, N}, type, b.get());  // broadcast over the batch
        aclTensor *to = makeTensor({B, M, N}, type, out.get());
        uint64_t ws = 0;
        aclOpExecutor *executor = nullptr;
        ASSERT_EQ(aclnnMatmulGetWorkspaceSize(ta, tb, to, 1, &ws, &executor), ACL_SUCCESS);
        run(aclnnMatmul, executor, ws);
        auto result = half ? fromHalf(out.read<uint16_t>()) : out.read<float>();
        for (int64_t bi = 0; bi < B; ++bi) {
            for (int64_t m = 0; m < M; ++m) {
                for (int64_t n = 0; n < N; ++n) {
                    double ref = 0;
                    for (int64_t k = 0; k < K; ++k) {
                        ref += static_cast<double>(x[static_cast<size_t>((bi * M + m) * K + k)]) *
                               y[static_cast<size_t>(k * N + n)];
                    }
                    EXPECT_NEAR(result[static_cast<size_t>((bi * M + m) * N + n)], ref, half ? 1e-2 : 1e-5);
                }
            }
        }
        aclDestroyTensor(ta);
        aclDestroyTensor(tb);
        aclDestroyTensor(to);
    }
}

TEST_F(AclnnTest, MatmulOfVectorAndMatrixDropsTheVectorDimension) {
    const std::vector<float> v{1, 2, 3};
    const std::vector<float> m{1, 0, 0, 1, 1, 1};  // 3x2
    DeviceBuffer a(v);
    DeviceBuffer b(m);
    DeviceBuffer out(2 * sizeof(float));
    aclTensor *ta = makeTensor({3}, ACL_FLOAT, a.get());
    aclTensor *tb = makeTensor({3, 2}, ACL_FLOAT, b.get());
    aclTensor *to = makeTensor({2}, ACL_FLOAT, out.get());
    uint64_t ws = 0;
    aclOpExecutor *executor = nullptr;
    ASSERT_EQ(aclnnMatmulGetWorkspaceSize(ta, tb, to, 0, &ws, &executor), ACL_SUCCESS);
    run(aclnnMatmul, executor, ws);
    EXPECT_EQ(out.read<float>(), (std::vector<float>{4, 5}));
    aclDestroyTensor(ta);
    aclDestroyTensor(tb);
    aclDestroyTensor(to);
}

TEST_F(AclnnTest, OperatorsRejectBadArgumentsAndWriteNothing) {
    DeviceBuffer a(std::vector<float>(8, 1.0f));
    DeviceBuffer out(std::vector<float>(8, -9.0f));
    aclTensor *ta = makeTensor({2, 4}, ACL_FLOAT, a.get());
    aclTensor *to = makeTensor({2, 4}, ACL_FLOAT, out.get());
    aclTensor *wrongShape = makeTensor({4, 2}, ACL_FLOAT, out.get());
    aclTensor *complex = makeTensor({2, 4}, ACL_COMPLEX64, out.get());
    std::vector<float> hostData(8, 0.0f);
    aclTensor *hostBacked = makeTensor({2, 4}, ACL_FLOAT, hostData.data());
    aclTensor *tooBig = makeTensor({4, 4}, ACL_FLOAT, a.get());
    float one = 1.0f;
    aclScalar *alpha = aclCreateScalar(&one, ACL_FLOAT);
    uint64_t ws = 0;
    aclOpExecutor *executor = nullptr;
    EXPECT_EQ(aclnnAddGetWorkspaceSize(nullptr, ta, alpha, to, &ws, &executor), ACLNN_ERR_PARAM_NULLPTR);
    EXPECT_EQ(aclnnAddGetWorkspaceSize(ta, ta, nullptr, to, &ws, &executor), ACLNN_ERR_PARAM_NULLPTR);
    EXPECT_EQ(aclnnAddGetWorkspaceSize(ta, ta, alpha, wrongShape, &ws, &executor), ACLNN_ERR_PARAM_INVALID);
    EXPECT_EQ(aclnnMulGetWorkspaceSize(ta, complex, to, &ws, &executor), ACLNN_ERR_PARAM_INVALID);
    EXPECT_EQ(aclnnMulGetWorkspaceSize(ta, hostBacked, to, &ws, &executor), ACLNN_ERR_PARAM_INVALID);
    EXPECT_EQ(aclnnReluGetWorkspaceSize(tooBig, tooBig, &ws, &executor), ACLNN_ERR_PARAM_INVALID);
    EXPECT_EQ(aclnnReluGetWorkspaceSize(ta, wrongShape, &ws, &executor), ACLNN_ERR_PARAM_INVALID);
    EXPECT_EQ(aclnnMatmulGetWorkspaceSize(ta, ta, to, 0, &ws, &executor), ACLNN_ERR_PARAM_INVALID);  // K mismatch
    EXPECT_EQ(aclnnMatmulGetWorkspaceSize(ta, wrongShape, to, 9, &ws, &executor), ACLNN_ERR_PARAM_INVALID);
    EXPECT_EQ(aclnnAdd(nullptr, 0, nullptr, stream_), ACLNN_ERR_PARAM_NULLPTR);
    ASSERT_EQ(aclnnMulGetWorkspaceSize(ta, ta, to, &ws, &executor), ACL_SUCCESS);
    int bogusStream = 0;
    EXPECT_EQ(aclnnMul(nullptr, 0, executor, &bogusStream), ACLNN_ERR_PARAM_INVALID);
    EXPECT_EQ(aclDestroyAclOpExecutor(executor), ACL_SUCCESS);  // still valid after the failed phase 2
    EXPECT_EQ(aclDestroyAclOpExecutor(nullptr), ACLNN_ERR_INNER_NULLPTR);
    ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
    EXPECT_EQ(out.read<float>(), std::vector<float>(8, -9.0f));
    int bogusTensor = 0;
    EXPECT_EQ(aclDestroyTensor(reinterpret_cast<aclTensor *>(&bogusTensor)), ACLNN_ERR_PARAM_INVALID);
    EXPECT_EQ(aclCreateScalar(nullptr, ACL_FLOAT), nullptr);
    for (aclTensor *t : {ta, to, wrongShape, complex, hostBacked, tooBig}) {
        EXPECT_EQ(aclDestroyTensor(t), ACL_SUCCESS);
    }
    aclDestroyScalar(alpha);
}

TEST_F(AclnnTest, RepeatableExecutorRunsTwice) {
    DeviceBuffer a(std::vector<float>{1, 2});
    DeviceBuffer out(2 * sizeof(float));
    aclTensor *ta = makeTensor({2}, ACL_FLOAT, a.get());
    aclTensor *to = makeTensor({2}, ACL_FLOAT, out.get());
    float one = 1.0f;
    aclScalar *alpha = aclCreateScalar(&one, ACL_FLOAT);
    uint64_t ws = 0;
    aclOpExecutor *executor = nullptr;
    ASSERT_EQ(aclnnInplaceAddGetWorkspaceSize(ta, ta, alpha, &ws, &executor), ACL_SUCCESS);  // a += a
    ASSERT_EQ(aclSetAclOpExecutorRepeatable(executor), ACL_SUCCESS);
    run(aclnnInplaceAdd, executor, ws);
    run(aclnnInplaceAdd, executor, ws);
    EXPECT_EQ(a.read<float>(), (std::vector<float>{4, 8}));
    EXPECT_EQ(aclDestroyAclOpExecutor(executor), ACL_SUCCESS);
    aclDestroyTensor(ta);
    aclDestroyTensor(to);
    aclDestroyScalar(alpha);
}

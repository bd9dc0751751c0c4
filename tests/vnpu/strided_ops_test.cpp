// Matmul (OpenBLAS) and the elementwise kernels (row-wise conversion) on every operand layout:
// transposed and strided views, broadcasts, vectors, bf16; against references computed here.
#include <cmath>

#include "aclnn/opdev/op_errno.h"
#include "aclnnop/aclnn_add.h"
#include "aclnnop/aclnn_matmul.h"
#include "aclnnop/aclnn_relu.h"
#include "test_support.h"

using vnpu_test::DeviceBuffer;
using vnpu_test::DeviceTest;

namespace {

aclTensor *view(const std::vector<int64_t> &shape, const std::vector<int64_t> &strides, aclDataType type, void *data,
                int64_t storage) {
    return aclCreateTensor(shape.data(), shape.size(), type, strides.data(), 0, ACL_FORMAT_ND, &storage, 1, data);
}

// Host values stored as `type` (fp32, fp16 or bf16 bits) and read back as the float they stand for.
struct Encoded {
    std::vector<uint8_t> bytes;
    std::vector<float> values;
};

uint16_t toBf16(float v) {
    uint32_t bits;
    std::memcpy(&bits, &v, 4);
    return static_cast<uint16_t>((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
}

float fromBf16(uint16_t b) {
    uint32_t bits = static_cast<uint32_t>(b) << 16;
    float v;
    std::memcpy(&v, &bits, 4);
    return v;
}

Encoded encode(const std::vector<float> &values, aclDataType type) {
    Encoded e;
    for (float v : values) {
        if (type == ACL_FLOAT) {
            e.values.push_back(v);
            const auto *p = reinterpret_cast<const uint8_t *>(&v);
            e.bytes.insert(e.bytes.end(), p, p + 4);
        } else {
            const uint16_t h = type == ACL_FLOAT16 ? aclFloatToFloat16(v) : toBf16(v);
            e.values.push_back(type == ACL_FLOAT16 ? aclFloat16ToFloat(h) : fromBf16(h));
            const auto *p = reinterpret_cast<const uint8_t *>(&h);
            e.bytes.insert(e.bytes.end(), p, p + 2);
        }
    }
    return e;
}

float decode(const std::vector<uint8_t> &bytes, size_t i, aclDataType type) {
    if (type == ACL_FLOAT) {
        float v;
        std::memcpy(&v, bytes.data() + 4 * i, 4);
        return v;
    }
    uint16_t h;
    std::memcpy(&h, bytes.data() + 2 * i, 2);
    return type == ACL_FLOAT16 ? aclFloat16ToFloat(h) : fromBf16(h);
}

std::vector<float> pattern(size_t n, int seed) {
    std::vector<float> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = static_cast<float>(static_cast<int>((i * 7 + seed) % 11) - 5) * 0.125f;
    return v;
}

class StridedOps : public DeviceTest {
protected:
    void run(aclnnStatus (*phase2)(void *, uint64_t, aclOpExecutor *, aclrtStream), aclOpExecutor *executor) {
        ASSERT_EQ(phase2(nullptr, 0, executor, stream_), ACL_SUCCESS);
        ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
    }
};

}  // namespace

// out[M,N] = a[M,K] @ b[K,N] with a and/or b stored transposed and the output written transposed.
TEST_F(StridedOps, MatmulOfTransposedOperandsInEveryType) {
    const int64_t M = 37, K = 29, N = 41;
    for (aclDataType type : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
        for (int layout = 0; layout < 8; ++layout) {
            const bool aT = (layout & 1) != 0, bT = (layout & 2) != 0, outT = (layout & 4) != 0;
            const size_t elem = type == ACL_FLOAT ? 4 : 2;
            Encoded a = encode(pattern(M * K, 1), type);  // stored row-major, or column-major if aT
            Encoded b = encode(pattern(K * N, 3), type);
            DeviceBuffer da(a.bytes), db(b.bytes), dout(static_cast<size_t>(M * N) * elem);
            aclTensor *ta =
                view({M, K}, aT ? std::vector<int64_t>{1, M} : std::vector<int64_t>{K, 1}, type, da.get(), M * K);
            aclTensor *tb =
                view({K, N}, bT ? std::vector<int64_t>{1, K} : std::vector<int64_t>{N, 1}, type, db.get(), K * N);
            aclTensor *to =
                view({M, N}, outT ? std::vector<int64_t>{1, M} : std::vector<int64_t>{N, 1}, type, dout.get(), M * N);
            uint64_t ws = 0;
            aclOpExecutor *executor = nullptr;
            ASSERT_EQ(aclnnMatmulGetWorkspaceSize(ta, tb, to, 1, &ws, &executor), ACL_SUCCESS);
            run(aclnnMatmul, executor);
            const std::vector<uint8_t> out = dout.read<uint8_t>();
            for (int64_t m = 0; m < M; ++m) {
                for (int64_t n = 0; n < N; ++n) {
                    double ref = 0;
                    for (int64_t k = 0; k < K; ++k) {
                        ref += static_cast<double>(a.values[static_cast<size_t>(aT ? k * M + m : m * K + k)]) *
                               b.values[static_cast<size_t>(bT ? n * K + k : k * N + n)];
                    }
                    const float got = decode(out, static_cast<size_t>(outT ? n * M + m : m * N + n), type);
                    // Products of these values are exact in fp32; only the final rounding differs.
                    const double tol = type == ACL_FLOAT ? 1e-5 : (type == ACL_FLOAT16 ? 4e-3 : 3e-2) * std::fabs(ref);
                    ASSERT_NEAR(got, ref, tol + 1e-6)
                        << "type " << type << " layout " << layout << " at " << m << "," << n;
                }
            }
            aclDestroyTensor(ta);
            aclDestroyTensor(tb);
            aclDestroyTensor(to);
        }
    }
}

TEST_F(StridedOps, MatmulOfVectorsAndEmptyInnerDimension) {
    const std::vector<float> v{1, 2, 3};
    const std::vector<float> m{1, 0, 0, 1, 1, 1};  // 3x2
    DeviceBuffer dv(v), dm(m), dout(2 * sizeof(float)), dscalar(sizeof(float));
    aclTensor *tv = view({3}, {1}, ACL_FLOAT, dv.get(), 3);
    aclTensor *tmT = view({2, 3}, {1, 2}, ACL_FLOAT, dm.get(), 6);  // m transposed: [2,3]
    aclTensor *to = view({2}, {1}, ACL_FLOAT, dout.get(), 2);
    aclTensor *ts = view({}, {}, ACL_FLOAT, dscalar.get(), 1);
    uint64_t ws = 0;
    aclOpExecutor *executor = nullptr;
    ASSERT_EQ(aclnnMatmulGetWorkspaceSize(tmT, tv, to, 0, &ws, &executor), ACL_SUCCESS);  // matrix @ vector
    run(aclnnMatmul, executor);
    EXPECT_EQ(dout.read<float>(), (std::vector<float>{4, 5}));
    ASSERT_EQ(aclnnMatmulGetWorkspaceSize(tv, tv, ts, 0, &ws, &executor), ACL_SUCCESS);  // vector @ vector
    run(aclnnMatmul, executor);
    EXPECT_EQ(dscalar.read<float>(), (std::vector<float>{14}));
    // K = 0: the result is zeros.
    DeviceBuffer d4(std::vector<float>{7, 7, 7, 7});
    aclTensor *a0 = view({2, 0}, {1, 1}, ACL_FLOAT, dv.get(), 1);
    aclTensor *b0 = view({0, 2}, {2, 1}, ACL_FLOAT, dv.get(), 1);
    aclTensor *o4 = view({2, 2}, {2, 1}, ACL_FLOAT, d4.get(), 4);
    ASSERT_EQ(aclnnMatmulGetWorkspaceSize(a0, b0, o4, 0, &ws, &executor), ACL_SUCCESS);
    run(aclnnMatmul, executor);
    EXPECT_EQ(d4.read<float>(), (std::vector<float>{0, 0, 0, 0}));
    for (aclTensor *t : {tv, tmT, to, ts, a0, b0, o4}) aclDestroyTensor(t);
}

// Add with alpha, on a transposed fp16 operand broadcast against a bf16 row, into a strided fp32
// output: exactly the float arithmetic of the per-element definition, element by element.
TEST_F(StridedOps, AddOfStridedAndBroadcastOperandsIsExact) {
    const int64_t R = 5, C = 3000;  // rows longer than one conversion chunk
    Encoded a = encode(pattern(R * C, 2), ACL_FLOAT16);  // stored column-major
    Encoded b = encode(pattern(C, 5), ACL_BF16);
    DeviceBuffer da(a.bytes), db(b.bytes), dout(std::vector<float>(static_cast<size_t>(R * C * 2), 0.0f));
    aclTensor *ta = view({R, C}, {1, R}, ACL_FLOAT16, da.get(), R * C);
    aclTensor *tb = view({C}, {1}, ACL_BF16, db.get(), C);
    aclTensor *to = view({R, C}, {2 * C, 2}, ACL_FLOAT, dout.get(), 2 * R * C);  // every other element
    const float alphaValue = 0.75f;
    aclScalar *alpha = aclCreateScalar(const_cast<float *>(&alphaValue), ACL_FLOAT);
    uint64_t ws = 0;
    aclOpExecutor *executor = nullptr;
    ASSERT_EQ(aclnnAddGetWorkspaceSize(ta, tb, alpha, to, &ws, &executor), ACL_SUCCESS);
    run(aclnnAdd, executor);
    const std::vector<float> out = dout.read<float>();
    for (int64_t r = 0; r < R; ++r) {
        for (int64_t c = 0; c < C; ++c) {
            const float expected =
                a.values[static_cast<size_t>(c * R + r)] + alphaValue * b.values[static_cast<size_t>(c)];
            ASSERT_EQ(out[static_cast<size_t>(r * 2 * C + 2 * c)], expected) << r << "," << c;
            ASSERT_EQ(out[static_cast<size_t>(r * 2 * C + 2 * c + 1)], 0.0f);  // untouched
        }
    }
    // In place, on int32: x = relu(x) keeps NaN-free integers exact.
    std::vector<int32_t> ints{-3, 4, 0, -1, 9, 2};
    DeviceBuffer di(ints);
    aclTensor *ti = view({2, 3}, {3, 1}, ACL_INT32, di.get(), 6);
    ASSERT_EQ(aclnnInplaceReluGetWorkspaceSize(ti, &ws, &executor), ACL_SUCCESS);
    run(aclnnInplaceRelu, executor);
    EXPECT_EQ(di.read<int32_t>(), (std::vector<int32_t>{0, 4, 0, 0, 9, 2}));
    for (aclTensor *t : {ta, tb, to, ti}) aclDestroyTensor(t);
    aclDestroyScalar(alpha);
}

// fp16 rows are converted with F16C where the CPU has it: bit for bit the scalar conversions, over
// every binary16 value and a spread of binary32 values (subnormals, rounding ties, overflow, NaN).
TEST_F(StridedOps, Fp16RowConversionsMatchTheScalarOnesBitForBit) {
    std::vector<uint16_t> halves(1u << 16);
    for (uint32_t i = 0; i < halves.size(); ++i) halves[i] = static_cast<uint16_t>(i);
    std::vector<float> floats;
    for (uint64_t bits = 0; bits <= 0xffffffffull; bits += 4093) {
        float f;
        const auto b = static_cast<uint32_t>(bits);
        std::memcpy(&f, &b, 4);
        floats.push_back(f);
    }
    for (float f : {65504.0f, 65520.0f, 65519.99f, 5.9604645e-8f, 2.9802322e-8f, 1.0009765625f, 1.00048828125f})
        floats.push_back(f);
    const float zero = 0.0f;
    aclScalar *one = aclCreateScalar(const_cast<float *>(&zero), ACL_FLOAT);  // alpha 0: out = self + 0 * other
    uint64_t ws = 0;
    aclOpExecutor *executor = nullptr;
    {  // binary16 -> float: fp16 self, fp32 other, fp32 out
        const int64_t n = static_cast<int64_t>(halves.size());
        DeviceBuffer dh(halves), dz(std::vector<float>(halves.size(), 0.0f)), dout(halves.size() * 4);
        aclTensor *th = view({n}, {1}, ACL_FLOAT16, dh.get(), n);
        aclTensor *tz = view({n}, {1}, ACL_FLOAT, dz.get(), n);
        aclTensor *to = view({n}, {1}, ACL_FLOAT, dout.get(), n);
        ASSERT_EQ(aclnnAddGetWorkspaceSize(th, tz, one, to, &ws, &executor), ACL_SUCCESS);
        run(aclnnAdd, executor);
        const std::vector<uint32_t> got = dout.read<uint32_t>();
        for (size_t i = 0; i < halves.size(); ++i) {
            const float expected = aclFloat16ToFloat(halves[i]) + 0.0f * 0.0f;
            uint32_t bits;
            std::memcpy(&bits, &expected, 4);
            ASSERT_EQ(got[i], bits) << "half 0x" << std::hex << halves[i];
        }
        for (aclTensor *t : {th, tz, to}) aclDestroyTensor(t);
    }
    {  // float -> binary16: fp32 self and other, fp16 out
        const int64_t n = static_cast<int64_t>(floats.size());
        DeviceBuffer df(floats), dz(std::vector<float>(floats.size(), 0.0f)), dout(floats.size() * 2);
        aclTensor *tf = view({n}, {1}, ACL_FLOAT, df.get(), n);
        aclTensor *tz = view({n}, {1}, ACL_FLOAT, dz.get(), n);
        aclTensor *to = view({n}, {1}, ACL_FLOAT16, dout.get(), n);
        ASSERT_EQ(aclnnAddGetWorkspaceSize(tf, tz, one, to, &ws, &executor), ACL_SUCCESS);
        run(aclnnAdd, executor);
        const std::vector<uint16_t> got = dout.read<uint16_t>();
        for (size_t i = 0; i < floats.size(); ++i) {
            ASSERT_EQ(got[i], aclFloatToFloat16(floats[i] + 0.0f * 0.0f)) << "float " << floats[i];
        }
        for (aclTensor *t : {tf, tz, to}) aclDestroyTensor(t);
    }
    aclDestroyScalar(one);
}

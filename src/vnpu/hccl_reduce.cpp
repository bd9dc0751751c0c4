#include "hccl_reduce.h"

#include <cstring>

#include "half.h"

namespace vnpu::hccl {
namespace {

template <class T>
T apply(HcclReduceOp op, T a, T b) {
    switch (op) {
    case HCCL_REDUCE_SUM: return static_cast<T>(a + b);
    case HCCL_REDUCE_PROD: return static_cast<T>(a * b);
    case HCCL_REDUCE_MAX: return a > b ? a : b;
    default: return a < b ? a : b;
    }
}

template <class T>
void reduce_native(void *acc, const void *in, uint64_t count, HcclReduceOp op) {
    auto *a = static_cast<unsigned char *>(acc);
    const auto *b = static_cast<const unsigned char *>(in);
    for (uint64_t i = 0; i < count; ++i) {
        T x;
        T y;
        std::memcpy(&x, a + i * sizeof(T), sizeof(T));
        std::memcpy(&y, b + i * sizeof(T), sizeof(T));
        x = apply(op, x, y);
        std::memcpy(a + i * sizeof(T), &x, sizeof(T));
    }
}

// 16-bit floats are reduced in fp32 and rounded back after each step, as a pairwise device reduction does.
template <float (*ToFloat)(uint16_t), uint16_t (*FromFloat)(float)>
void reduce_half(void *acc, const void *in, uint64_t count, HcclReduceOp op) {
    auto *a = static_cast<unsigned char *>(acc);
    const auto *b = static_cast<const unsigned char *>(in);
    for (uint64_t i = 0; i < count; ++i) {
        uint16_t x;
        uint16_t y;
        std::memcpy(&x, a + i * 2, 2);
        std::memcpy(&y, b + i * 2, 2);
        x = FromFloat(apply(op, ToFloat(x), ToFloat(y)));
        std::memcpy(a + i * 2, &x, 2);
    }
}

}  // namespace

size_t data_type_size(HcclDataType type) {
    switch (type) {
    case HCCL_DATA_TYPE_INT8:
    case HCCL_DATA_TYPE_UINT8:
    case HCCL_DATA_TYPE_HIF8:
    case HCCL_DATA_TYPE_FP8E4M3:
    case HCCL_DATA_TYPE_FP8E5M2:
    case HCCL_DATA_TYPE_FP8E8M0: return 1;
    case HCCL_DATA_TYPE_INT16:
    case HCCL_DATA_TYPE_UINT16:
    case HCCL_DATA_TYPE_FP16:
    case HCCL_DATA_TYPE_BFP16: return 2;
    case HCCL_DATA_TYPE_INT32:
    case HCCL_DATA_TYPE_UINT32:
    case HCCL_DATA_TYPE_FP32: return 4;
    case HCCL_DATA_TYPE_INT64:
    case HCCL_DATA_TYPE_UINT64:
    case HCCL_DATA_TYPE_FP64: return 8;
    case HCCL_DATA_TYPE_INT128: return 16;
    default: return 0;
    }
}

bool reducible(HcclDataType type) {
    return data_type_size(type) != 0 && type != HCCL_DATA_TYPE_INT128 && type != HCCL_DATA_TYPE_HIF8 &&
           type != HCCL_DATA_TYPE_FP8E4M3 && type != HCCL_DATA_TYPE_FP8E5M2 && type != HCCL_DATA_TYPE_FP8E8M0;
}

void reduce_into(void *acc, const void *in, uint64_t count, HcclDataType type, HcclReduceOp op) {
    switch (type) {
    case HCCL_DATA_TYPE_INT8: reduce_native<int8_t>(acc, in, count, op); break;
    case HCCL_DATA_TYPE_UINT8: reduce_native<uint8_t>(acc, in, count, op); break;
    case HCCL_DATA_TYPE_INT16: reduce_native<int16_t>(acc, in, count, op); break;
    case HCCL_DATA_TYPE_UINT16: reduce_native<uint16_t>(acc, in, count, op); break;
    case HCCL_DATA_TYPE_INT32: reduce_native<int32_t>(acc, in, count, op); break;
    case HCCL_DATA_TYPE_UINT32: reduce_native<uint32_t>(acc, in, count, op); break;
    case HCCL_DATA_TYPE_INT64: reduce_native<int64_t>(acc, in, count, op); break;
    case HCCL_DATA_TYPE_UINT64: reduce_native<uint64_t>(acc, in, count, op); break;
    case HCCL_DATA_TYPE_FP32: reduce_native<float>(acc, in, count, op); break;
    case HCCL_DATA_TYPE_FP64: reduce_native<double>(acc, in, count, op); break;
    case HCCL_DATA_TYPE_FP16: reduce_half<half_to_float, float_to_half>(acc, in, count, op); break;
    case HCCL_DATA_TYPE_BFP16: reduce_half<bf16_to_float, float_to_bf16>(acc, in, count, op); break;
    default: break;
    }
}

}  // namespace vnpu::hccl

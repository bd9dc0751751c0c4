// Conversions written from the IEEE-754 layouts: binary32 = 1/8/23, binary16 = 1/5/10, bfloat16 = 1/8/7.
#include "half.h"

#include <cstring>

#include "acl/acl_base.h"
#include "export.h"

namespace vnpu {
namespace {

uint32_t bits_of(float value) {
    uint32_t bits = 0;
    std::memcpy(&bits, &value, sizeof bits);
    return bits;
}

float float_of(uint32_t bits) {
    float value = 0;
    std::memcpy(&value, &bits, sizeof value);
    return value;
}

}  // namespace

uint16_t float_to_half(float value) {
    const uint32_t bits = bits_of(value);
    const auto sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
    const uint32_t exponent = (bits >> 23) & 0xffu;
    uint32_t mantissa = bits & 0x7fffffu;

    if (exponent == 0xff) {  // Inf or NaN (keep NaNs quiet and non-zero)
        return static_cast<uint16_t>(sign | 0x7c00u | (mantissa != 0 ? 0x200u | (mantissa >> 13) : 0u));
    }
    const int half_exponent = static_cast<int>(exponent) - 127 + 15;
    if (half_exponent >= 31) {
        return static_cast<uint16_t>(sign | 0x7c00u);  // overflow to infinity
    }
    if (half_exponent <= 0) {  // subnormal half or zero
        if (half_exponent < -10) {
            return sign;
        }
        mantissa |= 0x800000u;  // implicit leading one
        const int shift = 14 - half_exponent;
        uint32_t half = mantissa >> shift;
        const uint32_t remainder = mantissa & ((1u << shift) - 1);
        const uint32_t halfway = 1u << (shift - 1);
        if (remainder > halfway || (remainder == halfway && (half & 1u) != 0)) {
            ++half;
        }
        return static_cast<uint16_t>(sign | half);
    }
    uint32_t half = (static_cast<uint32_t>(half_exponent) << 10) | (mantissa >> 13);
    const uint32_t remainder = mantissa & 0x1fffu;
    if (remainder > 0x1000u || (remainder == 0x1000u && (half & 1u) != 0)) {
        ++half;  // may carry into the exponent, correctly rounding up to infinity
    }
    return static_cast<uint16_t>(sign | half);
}

const float *half_to_float_table() {
    static const float *const table = [] {
        static float values[1u << 16];
        for (uint32_t bits = 0; bits < (1u << 16); ++bits) {
            values[bits] = half_to_float(static_cast<uint16_t>(bits));
        }
        return values;
    }();
    return table;
}

float half_to_float(uint16_t bits) {
    const uint32_t sign = static_cast<uint32_t>(bits & 0x8000u) << 16;
    const uint32_t exponent = (bits >> 10) & 0x1fu;
    uint32_t mantissa = bits & 0x3ffu;
    if (exponent == 0x1f) {
        return float_of(sign | 0x7f800000u | (mantissa << 13));
    }
    if (exponent == 0) {
        if (mantissa == 0) {
            return float_of(sign);
        }
        int e = -1;  // normalise the subnormal
        do {
            ++e;
            mantissa <<= 1;
        } while ((mantissa & 0x400u) == 0);
        return float_of(sign | (static_cast<uint32_t>(127 - 15 - e) << 23) | ((mantissa & 0x3ffu) << 13));
    }
    return float_of(sign | ((exponent - 15 + 127) << 23) | (mantissa << 13));
}

uint16_t float_to_bf16(float value) {
    const uint32_t bits = bits_of(value);
    if ((bits & 0x7fffffffu) > 0x7f800000u) {
        return static_cast<uint16_t>((bits >> 16) | 0x40u);  // quiet NaN
    }
    const uint32_t rounding = 0x7fffu + ((bits >> 16) & 1u);
    return static_cast<uint16_t>((bits + rounding) >> 16);
}

float bf16_to_float(uint16_t bits) { return float_of(static_cast<uint32_t>(bits) << 16); }

}  // namespace vnpu

extern "C" {

VNPU_EXPORT aclFloat16 aclFloatToFloat16(float value) { return vnpu::float_to_half(value); }

VNPU_EXPORT float aclFloat16ToFloat(aclFloat16 value) { return vnpu::half_to_float(value); }

VNPU_EXPORT size_t aclDataTypeSize(aclDataType data_type) {
    switch (data_type) {
    case ACL_INT8:
    case ACL_UINT8:
    case ACL_BOOL:
    case ACL_HIFLOAT8:
    case ACL_FLOAT8_E5M2:
    case ACL_FLOAT8_E4M3FN:
    case ACL_FLOAT8_E8M0: return 1;
    case ACL_FLOAT16:
    case ACL_BF16:
    case ACL_INT16:
    case ACL_UINT16: return 2;
    case ACL_FLOAT:
    case ACL_INT32:
    case ACL_UINT32:
    case ACL_COMPLEX32: return 4;
    case ACL_INT64:
    case ACL_UINT64:
    case ACL_DOUBLE:
    case ACL_COMPLEX64: return 8;
    case ACL_COMPLEX128: return 16;
    default: return 0;
    }
}

}  // extern "C"

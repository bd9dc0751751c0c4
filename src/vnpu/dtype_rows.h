// Rows of tensor elements converted to and from a compute type (float, double or int64_t) in one
// call: the element type is dispatched once per row, so the loops inside are plain conversions
// that the compiler vectorises (load_element/store_element dispatch once per element).
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "dtype_access.h"
#include "half.h"

namespace vnpu {
namespace rows {

template <class Raw>
inline Raw raw_at(const unsigned char *p, int64_t i) {
    Raw value;
    std::memcpy(&value, p + i * static_cast<int64_t>(sizeof(Raw)), sizeof(Raw));
    return value;
}

template <class Raw>
inline void raw_to(unsigned char *p, int64_t i, Raw value) {
    std::memcpy(p + i * static_cast<int64_t>(sizeof(Raw)), &value, sizeof(Raw));
}

template <class Raw, class T, class Conv>
inline void load(const void *base, int64_t offset, int64_t stride, int64_t n, T *dst, Conv conv) {
    const auto *p = static_cast<const unsigned char *>(base) + offset * static_cast<int64_t>(sizeof(Raw));
    if (stride == 1) {
        for (int64_t i = 0; i < n; ++i) dst[i] = conv(raw_at<Raw>(p, i));
    } else if (stride == 0) {  // a broadcast operand
        const T value = conv(raw_at<Raw>(p, 0));
        for (int64_t i = 0; i < n; ++i) dst[i] = value;
    } else {
        for (int64_t i = 0; i < n; ++i) dst[i] = conv(raw_at<Raw>(p, i * stride));
    }
}

template <class Raw, class T, class Conv>
inline void store(void *base, int64_t offset, int64_t stride, int64_t n, const T *src, Conv conv) {
    auto *p = static_cast<unsigned char *>(base) + offset * static_cast<int64_t>(sizeof(Raw));
    if (stride == 1) {
        for (int64_t i = 0; i < n; ++i) raw_to<Raw>(p, i, conv(src[i]));
    } else {
        for (int64_t i = 0; i < n; ++i) raw_to<Raw>(p, i * stride, conv(src[i]));
    }
}

inline float bf16_as_float(uint16_t bits) {
    const uint32_t wide = static_cast<uint32_t>(bits) << 16;
    float value;
    std::memcpy(&value, &wide, sizeof value);
    return value;
}

}  // namespace rows

/// dst[i] = element (offset + i * stride) of `base` (of `type`) as T, for i < n. As load_element.
template <class T>
void load_row(const void *base, int64_t offset, int64_t stride, int64_t n, aclDataType type, T *dst) {
    using rows::load;
    switch (type) {
    case ACL_FLOAT: load<float>(base, offset, stride, n, dst, [](float v) { return static_cast<T>(v); }); break;
    case ACL_FLOAT16: {
        if constexpr (std::is_same_v<T, float>) {
            if (stride == 1) {
                half_to_float_row(static_cast<const unsigned char *>(base) + offset * 2, dst, n);
                break;
            }
        }
        const float *table = half_to_float_table();
        load<uint16_t>(base, offset, stride, n, dst, [table](uint16_t v) { return static_cast<T>(table[v]); });
        break;
    }
    case ACL_BF16:
        load<uint16_t>(base, offset, stride, n, dst, [](uint16_t v) { return static_cast<T>(rows::bf16_as_float(v)); });
        break;
    case ACL_DOUBLE: load<double>(base, offset, stride, n, dst, [](double v) { return static_cast<T>(v); }); break;
    case ACL_INT8: load<int8_t>(base, offset, stride, n, dst, [](int8_t v) { return static_cast<T>(v); }); break;
    case ACL_UINT8: load<uint8_t>(base, offset, stride, n, dst, [](uint8_t v) { return static_cast<T>(v); }); break;
    case ACL_BOOL:
        load<uint8_t>(base, offset, stride, n, dst, [](uint8_t v) { return static_cast<T>(v != 0 ? 1 : 0); });
        break;
    case ACL_INT16: load<int16_t>(base, offset, stride, n, dst, [](int16_t v) { return static_cast<T>(v); }); break;
    case ACL_INT32: load<int32_t>(base, offset, stride, n, dst, [](int32_t v) { return static_cast<T>(v); }); break;
    case ACL_INT64: load<int64_t>(base, offset, stride, n, dst, [](int64_t v) { return static_cast<T>(v); }); break;
    default:
        for (int64_t i = 0; i < n; ++i) dst[i] = T{};
        break;
    }
}

/// Element (offset + i * stride) of `base` (of `type`) = src[i] converted, for i < n. As store_element.
template <class T>
void store_row(void *base, int64_t offset, int64_t stride, int64_t n, aclDataType type, const T *src) {
    using rows::store;
    switch (type) {
    case ACL_FLOAT: store<float>(base, offset, stride, n, src, [](T v) { return static_cast<float>(v); }); break;
    case ACL_FLOAT16:
        if constexpr (std::is_same_v<T, float>) {
            if (stride == 1) {
                float_to_half_row(src, static_cast<unsigned char *>(base) + offset * 2, n);
                break;
            }
        }
        store<uint16_t>(base, offset, stride, n, src, [](T v) { return float_to_half(static_cast<float>(v)); });
        break;
    case ACL_BF16:
        store<uint16_t>(base, offset, stride, n, src, [](T v) { return float_to_bf16(static_cast<float>(v)); });
        break;
    case ACL_DOUBLE: store<double>(base, offset, stride, n, src, [](T v) { return static_cast<double>(v); }); break;
    case ACL_INT8: store<int8_t>(base, offset, stride, n, src, [](T v) { return static_cast<int8_t>(v); }); break;
    case ACL_UINT8: store<uint8_t>(base, offset, stride, n, src, [](T v) { return static_cast<uint8_t>(v); }); break;
    case ACL_BOOL:
        store<uint8_t>(base, offset, stride, n, src, [](T v) { return static_cast<uint8_t>(v != T{} ? 1 : 0); });
        break;
    case ACL_INT16: store<int16_t>(base, offset, stride, n, src, [](T v) { return static_cast<int16_t>(v); }); break;
    case ACL_INT32: store<int32_t>(base, offset, stride, n, src, [](T v) { return static_cast<int32_t>(v); }); break;
    case ACL_INT64: store<int64_t>(base, offset, stride, n, src, [](T v) { return static_cast<int64_t>(v); }); break;
    default: break;
    }
}

}  // namespace vnpu

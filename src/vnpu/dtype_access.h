// Reading and writing one tensor element of any supported aclDataType as a compute type (float, double
// or int64_t), so that each kernel is written once.
#pragma once

#include <cstdint>
#include <cstring>

#include "acl/acl_base.h"
#include "half.h"

namespace vnpu {

inline bool is_floating_type(aclDataType t) {
    return t == ACL_FLOAT || t == ACL_FLOAT16 || t == ACL_BF16 || t == ACL_DOUBLE;
}

inline bool is_integral_type(aclDataType t) {
    return t == ACL_INT8 || t == ACL_UINT8 || t == ACL_INT16 || t == ACL_INT32 || t == ACL_INT64 || t == ACL_BOOL;
}

template <class Raw>
inline Raw read_raw(const void *base, int64_t index) {
    Raw value;
    std::memcpy(&value, static_cast<const unsigned char *>(base) + index * static_cast<int64_t>(sizeof(Raw)),
                sizeof(Raw));
    return value;
}

template <class Raw>
inline void write_raw(void *base, int64_t index, Raw value) {
    std::memcpy(static_cast<unsigned char *>(base) + index * static_cast<int64_t>(sizeof(Raw)), &value, sizeof(Raw));
}

/// Element `index` (in elements) of `base`, converted to T.
template <class T>
inline T load_element(const void *base, int64_t index, aclDataType type) {
    switch (type) {
    case ACL_FLOAT: return static_cast<T>(read_raw<float>(base, index));
    case ACL_FLOAT16: return static_cast<T>(half_to_float(read_raw<uint16_t>(base, index)));
    case ACL_BF16: return static_cast<T>(bf16_to_float(read_raw<uint16_t>(base, index)));
    case ACL_DOUBLE: return static_cast<T>(read_raw<double>(base, index));
    case ACL_INT8: return static_cast<T>(read_raw<int8_t>(base, index));
    case ACL_UINT8: return static_cast<T>(read_raw<uint8_t>(base, index));
    case ACL_BOOL: return static_cast<T>(read_raw<uint8_t>(base, index) != 0 ? 1 : 0);
    case ACL_INT16: return static_cast<T>(read_raw<int16_t>(base, index));
    case ACL_INT32: return static_cast<T>(read_raw<int32_t>(base, index));
    case ACL_INT64: return static_cast<T>(read_raw<int64_t>(base, index));
    default: return T{};
    }
}

/// Stores value (of compute type T) into element `index` of `base`, converting to `type`.
template <class T>
inline void store_element(void *base, int64_t index, aclDataType type, T value) {
    switch (type) {
    case ACL_FLOAT: write_raw<float>(base, index, static_cast<float>(value)); break;
    case ACL_FLOAT16: write_raw<uint16_t>(base, index, float_to_half(static_cast<float>(value))); break;
    case ACL_BF16: write_raw<uint16_t>(base, index, float_to_bf16(static_cast<float>(value))); break;
    case ACL_DOUBLE: write_raw<double>(base, index, static_cast<double>(value)); break;
    case ACL_INT8: write_raw<int8_t>(base, index, static_cast<int8_t>(value)); break;
    case ACL_UINT8: write_raw<uint8_t>(base, index, static_cast<uint8_t>(value)); break;
    case ACL_BOOL: write_raw<uint8_t>(base, index, value != T{} ? 1 : 0); break;
    case ACL_INT16: write_raw<int16_t>(base, index, static_cast<int16_t>(value)); break;
    case ACL_INT32: write_raw<int32_t>(base, index, static_cast<int32_t>(value)); break;
    case ACL_INT64: write_raw<int64_t>(base, index, static_cast<int64_t>(value)); break;
    default: break;
    }
}

}  // namespace vnpu

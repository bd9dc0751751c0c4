// IEEE binary16 and bfloat16 conversions (round to nearest even), used by the fp16/bf16 kernels.
#pragma once

#include <cstdint>

namespace vnpu {

uint16_t floatToHalf(float value);
float halfToFloat(uint16_t bits);
uint16_t floatToBf16(float value);
float bf16ToFloat(uint16_t bits);

/// halfToFloat of every binary16 bit pattern, indexed by the bits (for loops that convert many
/// elements: a table lookup instead of the branches of halfToFloat).
const float *halfToFloatTable();

/// dst[i] = halfToFloat of the i-th binary16 at `src` (unaligned), for i < n; vectorised where it can be.
void halfToFloatRow(const void *src, float *dst, int64_t n);

/// The i-th binary16 at `dst` (unaligned) = floatToHalf(src[i]), for i < n; vectorised where it can be.
void floatToHalfRow(const float *src, void *dst, int64_t n);

} // namespace vnpu

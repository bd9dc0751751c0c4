// IEEE binary16 and bfloat16 conversions (round to nearest even), used by the fp16/bf16 kernels.
#pragma once

#include <cstdint>

namespace vnpu {

uint16_t float_to_half(float value);
float half_to_float(uint16_t bits);
uint16_t float_to_bf16(float value);
float bf16_to_float(uint16_t bits);

/// half_to_float of every binary16 bit pattern, indexed by the bits (for loops that convert many
/// elements: a table lookup instead of the branches of half_to_float).
const float *half_to_float_table();

/// dst[i] = half_to_float of the i-th binary16 at `src` (unaligned), for i < n; vectorised where it can be.
void half_to_float_row(const void *src, float *dst, int64_t n);

/// The i-th binary16 at `dst` (unaligned) = float_to_half(src[i]), for i < n; vectorised where it can be.
void float_to_half_row(const float *src, void *dst, int64_t n);

}  // namespace vnpu

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

} // namespace vnpu

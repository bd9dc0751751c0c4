// Contiguous binary16 <-> binary32 conversion of whole rows: F16C instructions where the CPU has
// them (8 values per instruction, round to nearest even as float_to_half), else the scalar code.
#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "half.h"

namespace vnpu {
namespace {

uint16_t half_at(const unsigned char *p, int64_t i) {
    uint16_t bits;
    std::memcpy(&bits, p + 2 * i, 2);
    return bits;
}

#if defined(__x86_64__)
bool has_f16c() {
    static const bool has = __builtin_cpu_supports("avx") && __builtin_cpu_supports("f16c");
    return has;
}

__attribute__((target("avx,f16c"))) int64_t half_to_float_f16c(const unsigned char *src, float *dst, int64_t n) {
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i *>(src + 2 * i));
        _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(h));
    }
    return i;
}

__attribute__((target("avx,f16c"))) int64_t float_to_half_f16c(const float *src, unsigned char *dst, int64_t n) {
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m128i h = _mm256_cvtps_ph(_mm256_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        _mm_storeu_si128(reinterpret_cast<__m128i *>(dst + 2 * i), h);
    }
    return i;
}
#endif

}  // namespace

void half_to_float_row(const void *src, float *dst, int64_t n) {
    const auto *p = static_cast<const unsigned char *>(src);
    int64_t done = 0;
#if defined(__x86_64__)
    if (has_f16c()) {
        done = half_to_float_f16c(p, dst, n);
    }
#endif
    const float *table = half_to_float_table();
    for (int64_t i = done; i < n; ++i) {
        dst[i] = table[half_at(p, i)];
    }
}

void float_to_half_row(const float *src, void *dst, int64_t n) {
    auto *p = static_cast<unsigned char *>(dst);
    int64_t done = 0;
#if defined(__x86_64__)
    if (has_f16c()) {
        done = float_to_half_f16c(src, p, n);
    }
#endif
    for (int64_t i = done; i < n; ++i) {
        const uint16_t bits = float_to_half(src[i]);
        std::memcpy(p + 2 * i, &bits, 2);
    }
}

}  // namespace vnpu

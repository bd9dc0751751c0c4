#include "stable_names.h"

#include <cstdio>

namespace mspti_trace {

namespace {

// Length of the valid UTF-8 sequence at p[0, n), or 0 if it is not one (RFC 3629: no
// overlongs, no surrogates, nothing above U+10FFFF).
size_t utf8_sequence(const unsigned char *p, size_t n) {
    unsigned char c = p[0];
    if (c < 0x80) return 1;
    size_t len;
    unsigned char lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) {
        len = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        if (c == 0xE0) lo = 0xA0;
        if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        if (c == 0xF0) lo = 0x90;
        if (c == 0xF4) hi = 0x8F;
    } else {
        return 0;
    }
    if (n < len || p[1] < lo || p[1] > hi) return 0;
    for (size_t i = 2; i < len; ++i)
        if (p[i] < 0x80 || p[i] > 0xBF) return 0;
    return len;
}

}  // namespace

std::string StableNames::escape_invalid_utf8(std::string_view text) {
    const auto *p = reinterpret_cast<const unsigned char *>(text.data());
    std::string out;
    size_t i = 0, copied = 0;
    while (i < text.size()) {
        size_t len = utf8_sequence(p + i, text.size() - i);
        if (len != 0) {
            i += len;
            continue;
        }
        out.append(text.data() + copied, i - copied);
        char escaped[5];
        std::snprintf(escaped, sizeof(escaped), "\\x%02X", p[i]);
        out.append(escaped, 4);
        copied = ++i;
    }
    if (copied == 0) return std::string(text);
    out.append(text.data() + copied, text.size() - copied);
    return out;
}

const char *StableNames::keep_slow(const char *text) {
    std::string_view view(text);
    auto it = kept_.find(view);
    if (it == kept_.end()) {
        const std::string &original = storage_.emplace_back(view);
        const char *copy = original.c_str();
        std::string escaped = escape_invalid_utf8(view);
        if (escaped.size() != view.size()) {
            ++escaped_;
            copy = storage_.emplace_back(std::move(escaped)).c_str();
        }
        it = kept_.emplace(std::string_view(original), copy).first;
    }
    seen_[slot(text)] = Seen{text, it->first.data(), it->second};
    return it->second;
}

}  // namespace mspti_trace

// sscanf_s / vsscanf_s: C's sscanf with buffer sizes for %s, %c and %[ (libboundscheck's contract).
// Our own scanner, so that every string store is checked against its size before it is written.
#include "securec.h"

#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <sys/types.h>

namespace {

enum class Len { none, hh, h, l, ll, j, z, t, L };

struct Args {
    va_list ap;
};

// Why a scan stopped: input ran out, input did not match, or a bad argument or format.
enum class Stop { none, input, matching, error };

class Scanner {
public:
    Scanner(const char *in, const char *fmt, Args &args) : in_(in), fmt_(fmt), args_(args) {}

    int run() {
        Stop stop = Stop::none;
        while (*fmt_ != '\0' && stop == Stop::none) {
            const unsigned char f = static_cast<unsigned char>(*fmt_);
            if (std::isspace(f)) {
                skip_ws();
                ++fmt_;
            } else if (f != '%') {
                stop = literal(*fmt_++);
            } else {
                ++fmt_;
                stop = conversion();
            }
        }
        if (stop == Stop::error || (stop == Stop::input && converted_ == 0)) {
            return -1;
        }
        return assigned_;
    }

private:
    void skip_ws() {
        while (std::isspace(static_cast<unsigned char>(*in_))) {
            ++in_;
        }
    }

    Stop literal(char c) {
        if (*in_ == '\0') {
            return Stop::input;
        }
        if (*in_ != c) {
            return Stop::matching;
        }
        ++in_;
        return Stop::none;
    }

    Len length() {
        switch (*fmt_) {
        case 'h':
            ++fmt_;
            if (*fmt_ == 'h') {
                ++fmt_;
                return Len::hh;
            }
            return Len::h;
        case 'l':
            ++fmt_;
            if (*fmt_ == 'l') {
                ++fmt_;
                return Len::ll;
            }
            return Len::l;
        case 'j': ++fmt_; return Len::j;
        case 'z': ++fmt_; return Len::z;
        case 't': ++fmt_; return Len::t;
        case 'L': ++fmt_; return Len::L;
        case 'q': ++fmt_; return Len::ll;
        default: return Len::none;
        }
    }

    Stop conversion() {
        bool suppress = false;
        if (*fmt_ == '*') {
            suppress = true;
            ++fmt_;
        }
        size_t width = 0;
        while (std::isdigit(static_cast<unsigned char>(*fmt_))) {
            width = width * 10 + static_cast<size_t>(*fmt_++ - '0');
        }
        const Len len = length();
        const char conv = *fmt_;
        if (conv == '\0') {
            return Stop::error;
        }
        ++fmt_;
        if (conv != 'c' && conv != '[' && conv != 'n') {
            skip_ws();
        }
        if (conv == '%') {
            return literal('%');
        }
        if (conv == 'n') {
            return suppress ? Stop::none : store_count(len);
        }
        if (*in_ == '\0') {
            return Stop::input;
        }
        switch (conv) {
        case 'd': return integer(suppress, width, len, 10, true);
        case 'i': return integer(suppress, width, len, 0, true);
        case 'u': return integer(suppress, width, len, 10, false);
        case 'o': return integer(suppress, width, len, 8, false);
        case 'x':
        case 'X': return integer(suppress, width, len, 16, false);
        case 'p': return integer(suppress, width, Len::none, 16, false, true);
        case 'f':
        case 'e':
        case 'g':
        case 'a':
        case 'E':
        case 'G':
        case 'F':
        case 'A': return floating(suppress, width, len);
        case 's': return string(suppress, width);
        case 'c': return chars(suppress, width == 0 ? 1 : width);
        case '[': return scanset(suppress, width);
        default: return Stop::error;  // unknown conversion: a format error
        }
    }

    // Copies the next field (at most width characters, 0: no limit) for strto*; returns its length.
    size_t field(size_t width, char (&tmp)[512]) const {
        size_t n = 0;
        const size_t limit = width == 0 || width > sizeof(tmp) - 1 ? sizeof(tmp) - 1 : width;
        while (n < limit && in_[n] != '\0' && !std::isspace(static_cast<unsigned char>(in_[n]))) {
            tmp[n] = in_[n];
            ++n;
        }
        tmp[n] = '\0';
        return n;
    }

    template <typename T>
    Stop put(T value) {
        T *p = va_arg(args_.ap, T *);
        if (p == nullptr) {
            return Stop::error;
        }
        *p = value;
        ++assigned_;
        return Stop::none;
    }

    Stop integer(bool suppress, size_t width, Len len, int base, bool is_signed, bool pointer = false) {
        char tmp[512];
        field(width, tmp);
        char *end = nullptr;
        long long s = 0;
        unsigned long long u = 0;
        if (is_signed) {
            s = std::strtoll(tmp, &end, base);
        } else {
            u = std::strtoull(tmp, &end, base);
        }
        if (end == tmp) {
            return Stop::matching;
        }
        in_ += end - tmp;
        ++converted_;
        if (suppress) {
            return Stop::none;
        }
        if (pointer) {
            return put<void *>(reinterpret_cast<void *>(static_cast<uintptr_t>(u)));
        }
        if (is_signed) {
            switch (len) {
            case Len::hh: return put<signed char>(static_cast<signed char>(s));
            case Len::h: return put<short>(static_cast<short>(s));
            case Len::l: return put<long>(static_cast<long>(s));
            case Len::ll:
            case Len::L: return put<long long>(s);
            case Len::j: return put<intmax_t>(static_cast<intmax_t>(s));
            case Len::z: return put<ssize_t>(static_cast<ssize_t>(s));
            case Len::t: return put<ptrdiff_t>(static_cast<ptrdiff_t>(s));
            default: return put<int>(static_cast<int>(s));
            }
        }
        switch (len) {
        case Len::hh: return put<unsigned char>(static_cast<unsigned char>(u));
        case Len::h: return put<unsigned short>(static_cast<unsigned short>(u));
        case Len::l: return put<unsigned long>(static_cast<unsigned long>(u));
        case Len::ll:
        case Len::L: return put<unsigned long long>(u);
        case Len::j: return put<uintmax_t>(static_cast<uintmax_t>(u));
        case Len::z: return put<size_t>(static_cast<size_t>(u));
        case Len::t: return put<ptrdiff_t>(static_cast<ptrdiff_t>(u));
        default: return put<unsigned>(static_cast<unsigned>(u));
        }
    }

    Stop floating(bool suppress, size_t width, Len len) {
        char tmp[512];
        field(width, tmp);
        char *end = nullptr;
        const long double v = std::strtold(tmp, &end);
        if (end == tmp) {
            return Stop::matching;
        }
        in_ += end - tmp;
        ++converted_;
        if (suppress) {
            return Stop::none;
        }
        switch (len) {
        case Len::l: return put<double>(static_cast<double>(v));
        case Len::L: return put<long double>(v);
        default: return put<float>(static_cast<float>(v));
        }
    }

    Stop store_count(Len len) {
        const auto n = static_cast<long long>(in_ - start_);
        switch (len) {
        case Len::hh: return put_uncounted<signed char>(static_cast<signed char>(n));
        case Len::h: return put_uncounted<short>(static_cast<short>(n));
        case Len::l: return put_uncounted<long>(static_cast<long>(n));
        case Len::ll: return put_uncounted<long long>(n);
        case Len::z: return put_uncounted<size_t>(static_cast<size_t>(n));
        default: return put_uncounted<int>(static_cast<int>(n));
        }
    }

    template <typename T>
    Stop put_uncounted(T value) {
        const Stop s = put<T>(value);
        if (s == Stop::none) {
            --assigned_;  // %n is not a field
        }
        return s;
    }

    // The (buffer, size) pair of %s, %c and %[; null when suppressed. Error: NULL buffer.
    bool buffer(bool suppress, char *&buf, size_t &size) {
        buf = nullptr;
        size = 0;
        if (suppress) {
            return true;
        }
        buf = va_arg(args_.ap, char *);
        size = va_arg(args_.ap, unsigned int);
        return buf != nullptr;
    }

    // Stores n characters at buf (and a '\0' when terminate); a field that does not fit clears
    // the buffer and is a matching failure.
    Stop store(bool suppress, char *buf, size_t size, size_t n, bool terminate) {
        ++converted_;
        if (suppress) {
            in_ += n;
            return Stop::none;
        }
        if (n + (terminate ? 1 : 0) > size) {
            if (size > 0) {
                buf[0] = '\0';
            }
            return Stop::matching;
        }
        std::memcpy(buf, in_, n);
        if (terminate) {
            buf[n] = '\0';
        }
        in_ += n;
        ++assigned_;
        return Stop::none;
    }

    Stop string(bool suppress, size_t width) {
        char *buf;
        size_t size;
        if (!buffer(suppress, buf, size)) {
            return Stop::error;
        }
        size_t n = 0;
        while (in_[n] != '\0' && !std::isspace(static_cast<unsigned char>(in_[n])) && (width == 0 || n < width)) {
            ++n;
        }
        return store(suppress, buf, size, n, true);
    }

    Stop chars(bool suppress, size_t width) {
        char *buf;
        size_t size;
        if (!buffer(suppress, buf, size)) {
            return Stop::error;
        }
        if (strnlen(in_, width) < width) {
            return Stop::input;  // fewer characters than the width asks for
        }
        return store(suppress, buf, size, width, false);
    }

    Stop scanset(bool suppress, size_t width) {
        bool set[256] = {};
        bool negate = false;
        if (*fmt_ == '^') {
            negate = true;
            ++fmt_;
        }
        const char *first = fmt_;
        while (*fmt_ != '\0' && (*fmt_ != ']' || fmt_ == first)) {
            const auto lo = static_cast<unsigned char>(*fmt_);
            if (fmt_[1] == '-' && fmt_[2] != ']' && fmt_[2] != '\0') {
                const auto hi = static_cast<unsigned char>(fmt_[2]);
                for (unsigned c = lo; c <= hi; ++c) {
                    set[c] = true;
                }
                fmt_ += 3;
            } else {
                set[lo] = true;
                ++fmt_;
            }
        }
        if (*fmt_ != ']') {
            return Stop::error;  // unterminated scan set
        }
        ++fmt_;
        char *buf;
        size_t size;
        if (!buffer(suppress, buf, size)) {
            return Stop::error;
        }
        size_t n = 0;
        while (in_[n] != '\0' && set[static_cast<unsigned char>(in_[n])] != negate && (width == 0 || n < width)) {
            ++n;
        }
        if (n == 0) {
            return Stop::matching;
        }
        return store(suppress, buf, size, n, true);
    }

    const char *in_;
    const char *start_ = in_;
    const char *fmt_;
    Args &args_;
    int assigned_ = 0;
    int converted_ = 0;
};

}  // namespace

extern "C" {

int vsscanf_s(const char *buffer, const char *format, va_list argList) {
    if (buffer == nullptr || format == nullptr) {
        return -1;
    }
    Args args;
    va_copy(args.ap, argList);
    const int n = Scanner(buffer, format, args).run();
    va_end(args.ap);
    return n;
}

int sscanf_s(const char *buffer, const char *format, ...) {
    va_list args;
    va_start(args, format);
    const int n = vsscanf_s(buffer, format, args);
    va_end(args);
    return n;
}

}  // extern "C"

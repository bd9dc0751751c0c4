// An ABI description of a C function type: return and parameter classes with their sizes
// ("i4" integer or enum of 4 bytes, "p" pointer, "d8" floating point), e.g. "i4(p,i8,p,i8,i4)".
// Enough to catch a parameter that is missing, extra, reordered or of another size.
#pragma once

#include <string>
#include <type_traits>

namespace abi {

template <typename T>
std::string cls() {
    if constexpr (std::is_void_v<T>) {
        return "v";
    } else if constexpr (std::is_pointer_v<T>) {
        return "p";
    } else if constexpr (std::is_enum_v<T>) {
        return cls<std::underlying_type_t<T>>();
    } else if constexpr (std::is_floating_point_v<T>) {
        return "d" + std::to_string(sizeof(T));
    } else if constexpr (std::is_integral_v<T>) {
        return "i" + std::to_string(sizeof(T));  // signedness does not change how it is passed
    } else {
        return "s" + std::to_string(sizeof(T));
    }
}

template <typename F>
struct Signature;

template <typename R, typename... A>
struct Signature<R(A...)> {
    static std::string text() {
        std::string s = cls<R>() + "(";
        ((s += cls<A>() + ","), ...);
        if (s.back() == ',') s.pop_back();
        return s + ")";
    }
};

}  // namespace abi

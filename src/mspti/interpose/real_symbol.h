// The real definition of an interposed entry point, resolved with dlsym(RTLD_NEXT) on first use.
// A constant-initialised atomic: one relaxed load per call once resolved, no guard variable.
#pragma once

#include <atomic>

#include "interpose/interposition.h"

namespace mspti::interpose {

template <typename Fn>
class RealSymbol {
public:
    explicit constexpr RealSymbol(const char *name) : name_(name) {}

    // The real function, or nullptr if no library behind libmspti defines it (reported once).
    Fn get() {
        Fn fn = fn_.load(std::memory_order_acquire);
        return __builtin_expect(fn != nullptr, 1) ? fn : resolve();
    }

private:
    Fn resolve() {
        // Not cached when missing: the runtime may be dlopen'ed later.
        Fn fn = reinterpret_cast<Fn>(next_symbol(name_));
        if (fn == nullptr) {
            report_missing(name_);
            return nullptr;
        }
        fn_.store(fn, std::memory_order_release);
        return fn;
    }

    const char *name_;
    std::atomic<Fn> fn_{nullptr};
};

}  // namespace mspti::interpose

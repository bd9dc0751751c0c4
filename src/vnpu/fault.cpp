// VNPU_FAULT_RANK, VNPU_FAULT_KERNEL_US, VNPU_FAULT_COLLECTIVE_US, VNPU_FAULT_PHASE and
// VNPU_FAULT_PHASE_US (docs/faults.md).
#include "fault.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <initializer_list>

#include "export.h"

namespace vnpu::fault {
namespace {

constexpr unsigned long long kMaxUs = 60ULL * 1000 * 1000;  // one minute: beyond that it is a hang, not a fault

[[noreturn]] void refuse(const char *name, const char *value, const char *why) {
    std::fprintf(stderr, "vnpu: %s=%s: %s\n", name, value, why);
    std::fflush(stderr);
    std::_Exit(2);  // a test that asked for a fault must not run without it
}

unsigned long long number(const char *name, unsigned long long max) {
    const char *text = std::getenv(name);
    if (text == nullptr || *text == '\0') return 0;
    char *end = nullptr;
    errno = 0;
    unsigned long long v = std::strtoull(text, &end, 10);
    if (*text == '-' || errno != 0 || end == nullptr || *end != '\0' || v > max) {
        char why[96];
        std::snprintf(why, sizeof why, "not a whole number in 0..%llu", max);
        refuse(name, text, why);
    }
    return v;
}

// The process's rank as launchers give it (vnpu.run/torchrun, then Open MPI), or -1.
long long own_rank() {
    for (const char *name : {"RANK", "OMPI_COMM_WORLD_RANK"}) {
        const char *text = std::getenv(name);
        if (text != nullptr && *text != '\0') return std::strtoll(text, nullptr, 10);
    }
    return -1;
}

Settings parse() {
    Settings s;
    const unsigned long long kernel = number("VNPU_FAULT_KERNEL_US", kMaxUs);
    const unsigned long long collective = number("VNPU_FAULT_COLLECTIVE_US", kMaxUs);
    const unsigned long long phase = number("VNPU_FAULT_PHASE_US", kMaxUs);
    const char *phase_name = std::getenv("VNPU_FAULT_PHASE");
    if (phase_name != nullptr && *phase_name == '\0') phase_name = nullptr;
    if ((phase_name != nullptr) != (phase != 0)) {
        refuse("VNPU_FAULT_PHASE", phase_name != nullptr ? phase_name : "",
               "goes with VNPU_FAULT_PHASE_US (the range name and the microseconds it is slowed by)");
    }
    if (kernel == 0 && collective == 0 && phase == 0) return s;
    // Without VNPU_FAULT_RANK every process is slowed; with it, only that rank.
    const char *rank_text = std::getenv("VNPU_FAULT_RANK");
    if (rank_text != nullptr && *rank_text != '\0') {
        const long long wanted = static_cast<long long>(number("VNPU_FAULT_RANK", 1ULL << 31));
        if (wanted != own_rank()) return s;
    }
    s.kernel_ns = kernel * 1000;
    s.collective_ns = collective * 1000;
    s.phase_ns = phase * 1000;
    s.phase = phase_name;
    return s;
}

}  // namespace

const Settings g_settings = parse();

void delay(uint64_t ns) {
    // Simulated slowness on this thread (not a wait for anything); EINTR resumes the rest.
    timespec left{static_cast<time_t>(ns / 1000000000ULL), static_cast<long>(ns % 1000000000ULL)};
    while (nanosleep(&left, &left) != 0 && errno == EINTR) {}
}

}  // namespace vnpu::fault

extern "C" {

/// Called by libprofapi after the mstx tool started a range that came through it (only while
/// VNPU_FAULT_PHASE is set): a range named as the phase is slowed here, so its time lies inside the range.
VNPU_EXPORT void vnpuFaultRangeStarted(const char *message) {
    const vnpu::fault::Settings &s = vnpu::fault::g_settings;
    if (s.phase_ns != 0 && message != nullptr && std::strcmp(message, s.phase) == 0) vnpu::fault::delay(s.phase_ns);
}

}  // extern "C"

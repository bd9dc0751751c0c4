// Marker domains: handles returned by mstxDomainCreateA, and the per-name enable switches
// of msptiActivityEnable/DisableMarkerDomain ("default" = the non-domain mstx API).
#pragma once

#include <atomic>

#include "mstx/ms_tools_ext.h"

// The opaque type behind mstxDomainHandle_t. Handles live in a fixed table and are never freed.
struct mstxDomainRegistration_st {
    std::atomic<bool> enabled{true};
    std::atomic<bool> destroyed{false};
    const char *name = nullptr;  // interned
};

namespace mspti::mstx {

constexpr const char *kDefaultDomain = "default";
constexpr size_t kMaxDomains = 4096;

// Whether the "default" domain (mstxMarkA, mstxRangeStartA, mstxRangeEnd) is enabled.
inline constinit std::atomic<bool> g_default_enabled{true};
inline bool default_domain_enabled() { return g_default_enabled.load(std::memory_order_relaxed); }

// Whether a default-domain mark is recorded: the default domain and the MARKER kind both on. One
// byte, so that every mstxMarkA tests one switch, not two; kept equal to the two by
// refresh_default_marks() after either changes.
inline constinit std::atomic<bool> g_default_marks_on{false};
inline bool default_marks_on() { return g_default_marks_on.load(std::memory_order_relaxed); }

// Sets g_default_marks_on from the two switches it stands for. Call after changing either;
// lock-free, so it is safe where they may change (a signal handler included).
void refresh_default_marks();

// Valid name: non-NULL and shorter than 255 characters.
bool is_valid_name(const char *text);

// The domain called `name` (created if new, revived if destroyed); nullptr for an invalid
// name, "default", or a full table.
mstxDomainHandle_t create_domain(const char *name);
void destroy_domain(mstxDomainHandle_t domain);

// The handle if it is one of ours, else nullptr (never dereferences a foreign pointer).
mstxDomainRegistration_st *checked(mstxDomainHandle_t domain);

// Switches by exact name, remembered for domains created later. Name must be valid.
void set_domain_enabled(const char *name, bool enabled);

// fork(): holds the domain lock across the fork (see core/fork_guard.h).
void domains_fork_prepare();
void domains_fork_release();

}  // namespace mspti::mstx

#include "mstx/marker_domains.h"

#include <cstdint>
#include <cstring>
#include <mutex>
#include <set>
#include <string>

#include "common/diagnostics.h"
#include "core/activity_engine.h"
#include "core/string_table.h"

namespace mspti::mstx {
namespace {

mstxDomainRegistration_st g_domains[kMaxDomains];
std::atomic<size_t> g_domain_count{0};

std::mutex &domain_mutex() {
    static std::mutex *m = new std::mutex();
    return *m;
}

std::set<std::string> &disabled_names() {
    static auto *names = new std::set<std::string>();
    return *names;
}

mstxDomainRegistration_st *find_locked(const char *name) {
    size_t count = g_domain_count.load(std::memory_order_relaxed);
    for (size_t i = 0; i < count; ++i)
        if (std::strcmp(g_domains[i].name, name) == 0) return &g_domains[i];
    return nullptr;
}

}  // namespace

bool is_valid_name(const char *text) { return text != nullptr && strnlen(text, 255) < 255; }

mstxDomainHandle_t create_domain(const char *name) {
    if (!is_valid_name(name)) {
        fail(MSPTI_ERROR_INVALID_PARAMETER, "mstxDomainCreateA: name is %s",
             name == nullptr ? "NULL" : "255 characters or longer");
        return nullptr;
    }
    if (std::strcmp(name, kDefaultDomain) == 0) {
        fail(MSPTI_ERROR_INVALID_PARAMETER, "mstxDomainCreateA: \"default\" is reserved for the non-domain API");
        return nullptr;
    }
    std::lock_guard<std::mutex> lock(domain_mutex());
    if (mstxDomainRegistration_st *existing = find_locked(name)) {
        existing->destroyed.store(false, std::memory_order_relaxed);
        return existing;
    }
    size_t count = g_domain_count.load(std::memory_order_relaxed);
    if (count == kMaxDomains) {
        fail(MSPTI_ERROR_MAX_LIMIT_REACHED, "mstxDomainCreateA: %zu domains exist already", kMaxDomains);
        return nullptr;
    }
    mstxDomainRegistration_st &domain = g_domains[count];
    domain.name = intern(name);
    domain.enabled.store(disabled_names().count(name) == 0, std::memory_order_relaxed);
    domain.destroyed.store(false, std::memory_order_relaxed);
    g_domain_count.store(count + 1, std::memory_order_release);
    return &domain;
}

mstxDomainRegistration_st *checked(mstxDomainHandle_t domain) {
    auto address = reinterpret_cast<uintptr_t>(domain);
    auto first = reinterpret_cast<uintptr_t>(&g_domains[0]);
    if (address < first) return nullptr;
    uintptr_t offset = address - first;
    if (offset % sizeof(mstxDomainRegistration_st) != 0) return nullptr;
    if (offset / sizeof(mstxDomainRegistration_st) >= g_domain_count.load(std::memory_order_acquire)) return nullptr;
    return domain;
}

void destroy_domain(mstxDomainHandle_t domain) {
    mstxDomainRegistration_st *d = checked(domain);
    if (d == nullptr) {
        fail(MSPTI_ERROR_INVALID_PARAMETER, "mstxDomainDestroy: %p is not a domain handle",
             static_cast<void *>(domain));
        return;
    }
    d->destroyed.store(true, std::memory_order_relaxed);
}

void set_domain_enabled(const char *name, bool enabled) {
    std::lock_guard<std::mutex> lock(domain_mutex());
    if (enabled) {
        disabled_names().erase(name);
    } else {
        disabled_names().insert(name);
    }
    if (std::strcmp(name, kDefaultDomain) == 0) {
        g_default_enabled.store(enabled);
        refresh_default_marks();
    }
    if (mstxDomainRegistration_st *d = find_locked(name)) d->enabled.store(enabled, std::memory_order_relaxed);
}

void refresh_default_marks() {
    // Two callers may race (the domain switch and the kind switch, from different threads): each
    // stores what it read, then reads again, and stores again if that changed. All of it is
    // sequentially consistent, so the last store of all is followed by a read of the switches'
    // final values, and a caller only stops when that read agrees with what it stored.
    auto wanted = [] { return g_default_enabled.load() && ActivityEngine::enabled_now(MSPTI_ACTIVITY_KIND_MARKER); };
    for (bool on = wanted();;) {
        g_default_marks_on.store(on);
        const bool now = wanted();
        if (now == on) return;
        on = now;
    }
}

void domains_fork_prepare() { domain_mutex().lock(); }

void domains_fork_release() { domain_mutex().unlock(); }

}  // namespace mspti::mstx

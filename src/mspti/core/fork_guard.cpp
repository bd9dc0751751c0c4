#include "core/fork_guard.h"

#include <pthread.h>

#include "callback/subscriber.h"
#include "core/activity_engine.h"
#include "core/clock.h"
#include "core/marker_names.h"
#include "core/string_table.h"
#include "device/cann_collector.h"
#include "mstx/marker_domains.h"

namespace mspti::fork_guard {
namespace {

// Locks are taken in the order the library nests them (subscriber and device attach before
// the engine, marker domains before the string table) and released in reverse.
void prepare() {
    callback::fork_prepare();
    device::fork_prepare();
    mstx::domains_fork_prepare();
    strings_fork_prepare();
    ActivityEngine::instance().fork_prepare();
    names::fork_prepare();
    clock::fork_prepare();
}

void parent() {
    clock::fork_parent();
    names::fork_release();
    ActivityEngine::instance().fork_parent();
    strings_fork_release();
    mstx::domains_fork_release();
    device::fork_parent();
    callback::fork_release();
}

void child() {
    clock::fork_child();
    names::fork_release();
    ActivityEngine::instance().fork_child();
    strings_fork_release();
    mstx::domains_fork_release();
    device::fork_child();
    callback::fork_release();
}

}  // namespace

void install() {
    static const bool installed = (pthread_atfork(&prepare, &parent, &child), true);
    (void)installed;
}

namespace {
// At load: a process that forks before its first mspti call must be covered too.
[[maybe_unused]] const bool g_installed = (install(), true);
}  // namespace

}  // namespace mspti::fork_guard

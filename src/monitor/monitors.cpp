// The public monitor classes: argument checks, then the session does the work.
#include <cstdlib>
#include <memory>
#include <utility>

#include "monitor/convert.h"
#include "monitor/libmspti.h"
#include "monitor/session.h"

namespace mspti {

using detail::fail;
using detail::Session;

namespace {

MsptiResult null_callback(const detail::MonitorCore &core, const char *method) {
    return fail(MsptiResult::MSPTI_ERROR_INVALID_PARAMETER, "%s.%s: the callback is NULL (nothing was started)",
                core.name, method);
}

template <typename Callback>
MsptiResult start_records(detail::MonitorCore &core, Callback *cb, std::unique_ptr<Callback> owned) {
    auto sub = std::make_shared<detail::RecordSubscription<Callback>>(core.kind, core.name, core.counters, cb,
                                                                      std::move(owned));
    return Session::instance().start(core, std::move(sub));
}

MsptiResult start_batch_on(detail::MonitorCore &core, BatchCallback *cb) {
    if (cb == nullptr) return null_callback(core, "start_batch");
    auto sub = std::make_shared<detail::Subscription>(core.kind, core.name, core.counters, cb);
    return Session::instance().start(core, std::move(sub));
}

template <typename Interface, typename Value>
MsptiResult start_function(detail::MonitorCore &core, std::function<void(const Value &)> f) {
    if (!f) return null_callback(core, "start");
    auto owned = std::make_unique<detail::FunctionCallback<Interface, Value>>(std::move(f));
    Interface *raw = owned.get();
    return start_records<Interface>(core, raw, std::move(owned));
}

}  // namespace

namespace detail {
struct MonitorAccess {
    static MonitorCore &core(Monitor &m) { return *m.core_; }
};
}  // namespace detail

MsptiResult start_record_run(Monitor &monitor, RecordRunCallback *callback) {
    detail::MonitorCore &core = detail::MonitorAccess::core(monitor);
    if (callback == nullptr) return null_callback(core, "start");
    auto sub = std::make_shared<detail::RunSubscription>(core.kind, core.name, core.counters, callback);
    return Session::instance().start(core, std::move(sub));
}

void set_delivery_thread_hooks(DeliveryThreadHooks *hooks) { Session::instance().set_hooks(hooks); }

void free_kept_buffer(void *buffer) { std::free(buffer); }  // the pool's buffers come from malloc

// ---- Monitor --------------------------------------------------------------------------------

Monitor::Monitor(MsptiActivityKind kind)
    : core_(std::make_unique<detail::MonitorCore>(static_cast<int>(kind),
                                                  detail::monitor_name(static_cast<int>(kind)))) {}

Monitor::~Monitor() { stop(); }

MsptiResult Monitor::stop() { return Session::instance().stop(*core_); }

MsptiResult Monitor::flush_all() { return Session::instance().flush_all(); }

MsptiResult Monitor::flush_period(uint32_t time_ms) { return Session::instance().flush_period(time_ms); }

MsptiResult Monitor::set_buffer_size(int64_t megabytes) { return Session::instance().set_buffer_size(megabytes); }

bool Monitor::any_running() { return Session::instance().any_running(); }

MsptiResult Monitor::set_stop_timeout(int64_t milliseconds) {
    return Session::instance().set_stop_timeout(milliseconds);
}

int64_t Monitor::stop_timeout() const { return Session::instance().stop_timeout(); }

MsptiResult Monitor::stop_all() { return Session::instance().stop_all(); }

bool Monitor::is_running() const { return core_->running.load(std::memory_order_acquire); }

MonitorStats Monitor::stats() const {
    MonitorStats s;
    s.delivered = core_->counters->delivered.load(std::memory_order_relaxed);
    s.callback_errors = core_->counters->callback_errors.load(std::memory_order_relaxed);
    s.unpaired_dropped = core_->counters->unpaired_dropped.load(std::memory_order_relaxed);
    // libmspti's drops of the kind since the monitor was created: they include the records this
    // monitor discarded that no other monitor took (reported with msptiExtActivityReportDiscarded).
    // Its discards of records another monitor took are delivered for libmspti: added here.
    const uint64_t lib = detail::dropped_records(core_->kind);
    s.dropped = lib > core_->dropped_at_creation ? lib - core_->dropped_at_creation : 0;
    s.dropped += detail::reports_discarded() ? core_->counters->dropped_taken.load(std::memory_order_relaxed)
                                             : core_->counters->dropped.load(std::memory_order_relaxed);
    return s;
}

// ---- KernelMonitor and the other monitors that deliver one record per call --------------------

#include "monitor_kinds.inc"  // generated from schema/records.py

// ---- MstxMonitor ------------------------------------------------------------------------------

// The range-pairing table lives as long as the monitor: the original package keeps open halves
// across stop() and start() too, so a range open across a restart pairs after it.
MstxMonitor::MstxMonitor() : Monitor(MsptiActivityKind::MSPTI_ACTIVITY_KIND_MARKER) {
    core_->open_ranges = std::make_shared<detail::OpenRangeTable>(kMaxOpenRanges);
}

MsptiResult MstxMonitor::start(MarkCallback *mark, RangeCallback *range) {
    auto sub = std::make_shared<detail::MstxSubscription>(core_->name, core_->counters, mark, range, nullptr, nullptr,
                                                          core_->open_ranges);
    return Session::instance().start(*core_, std::move(sub));
}

MsptiResult MstxMonitor::start_batch(BatchCallback *callback) { return start_batch_on(*core_, callback); }

MsptiResult MstxMonitor::start(std::function<void(const MarkerData &)> mark,
                               std::function<void(const RangeMarkerData &)> range) {
    std::unique_ptr<MarkCallback> owned_mark;
    std::unique_ptr<RangeCallback> owned_range;
    if (mark) owned_mark = std::make_unique<detail::FunctionCallback<MarkCallback, MarkerData>>(std::move(mark));
    if (range)
        owned_range = std::make_unique<detail::FunctionCallback<RangeCallback, RangeMarkerData>>(std::move(range));
    MarkCallback *m = owned_mark.get();
    RangeCallback *r = owned_range.get();
    auto sub = std::make_shared<detail::MstxSubscription>(core_->name, core_->counters, m, r, std::move(owned_mark),
                                                          std::move(owned_range), core_->open_ranges);
    return Session::instance().start(*core_, std::move(sub));
}

namespace {
MsptiResult domain_call(const std::string &name, const char *method, bool enable) {
    if (name.empty())
        return fail(MsptiResult::MSPTI_ERROR_INVALID_PARAMETER, "MstxMonitor.%s: the domain name is empty", method);
    if (name.size() >= 255)
        return fail(MsptiResult::MSPTI_ERROR_INVALID_PARAMETER,
                    "MstxMonitor.%s: the domain name \"%.32s...\" has %zu characters; it must have fewer than 255",
                    method, name.c_str(), name.size());
    const detail::Libmspti &lib = detail::libmspti();
    if (!lib.loaded) return fail(MsptiResult::MSPTI_ERROR_INNER, "MstxMonitor.%s: %s", method, lib.error.c_str());
    msptiResult r = (enable ? lib.enable_marker_domain : lib.disable_marker_domain)(name.c_str());
    if (r != MSPTI_SUCCESS)
        return fail(static_cast<MsptiResult>(r), "MstxMonitor.%s(\"%s\"): msPTI returned %d (%s)", method, name.c_str(),
                    static_cast<int>(r), detail::result_text(r));
    return MsptiResult::MSPTI_SUCCESS;
}
}  // namespace

MsptiResult MstxMonitor::enable_domain(const std::string &name) { return domain_call(name, "enable_domain", true); }

MsptiResult MstxMonitor::disable_domain(const std::string &name) { return domain_call(name, "disable_domain", false); }

}  // namespace mspti

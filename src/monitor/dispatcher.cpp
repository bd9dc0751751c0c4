#include "monitor/dispatcher.h"

#include <algorithm>
#include <array>

#include "monitor/convert.h"
#include "monitor/libmspti.h"

namespace mspti::detail {

namespace {

// The run callback running (record_run_live()) and where its tally goes (record_run_tally()).
struct RunInProgress {
    const Subscription *sub = nullptr;
    bool tallied = false;
    uint64_t handed = 0, passed = 0, errors = 0;
};
thread_local RunInProgress *t_run = nullptr;

// Whether a subscription of the list may still be called.
bool any_live(const SubList &subs) {
    bool live = false;
    for (const auto &s : subs) live = s->live() || live;  // live() also leaves detached ones
    return live;
}

// Enters every subscription of a list for one run of records, and leaves them after it (also
// when the thread is unwound), so that a stop() waiting in wait_idle() is released.
class RunScope {
public:
    explicit RunScope(const SubList &subs) : subs_(subs) {
        for (const auto &s : subs_) s->enter();
    }
    ~RunScope() {
        for (const auto &s : subs_) s->exit();
    }
    RunScope(const RunScope &) = delete;
    RunScope &operator=(const RunScope &) = delete;

private:
    const SubList &subs_;
};

// After one record (or run) some subscriptions skipped as dropped: those whose records another
// subscription took settle them as "taken" (libmspti counts such records as delivered).
void settle(const SubList &subs, uint64_t taken) {
    for (const auto &sp : subs) sp->settle(taken);
}

/** What happened to the records of one run. */
struct RunOutcome {
    uint64_t lost = 0;  // no subscription took them and one dropped them: reported to libmspti
    uint64_t taken = 0;  // a per-record subscription took them
};

// Hands each record of a run to every per-record subscription of its kind: `prepare(i)` once per
// record some subscription may take (the conversion), then `hand(sub)` per subscription, which
// calls it or, when it is not live, skips the record (Subscription::call()) and returns false.
// Records no subscription took (nor a batch or run one: those before `taken_upto`) while one of
// them dropped them (a stop that ran out of time, or the process exiting) are lost: the monitor
// layer discarded them.
template <typename Prepare, typename Hand>
RunOutcome deliver_each(const SubList &subs, size_t count, bool dropped_elsewhere, size_t taken_upto, Prepare &&prepare,
                        Hand &&hand) {
    RunOutcome out;
    for (size_t i = 0; i < count; ++i) {
        bool took = false;
        bool dropped = dropped_elsewhere;
        if (any_live(subs)) {
            prepare(i);
            for (const auto &sp : subs) {
                if (hand(*sp))
                    took = true;
                else
                    dropped = sp->dropping() || dropped;
            }
        } else {
            for (const auto &sp : subs) dropped = sp->skip(1) || dropped;
        }
        const bool elsewhere = i < taken_upto;  // a batch or run subscription took it
        if (took) ++out.taken;
        if (!took && !elsewhere && dropped) ++out.lost;
        if (dropped) settle(subs, took || elsewhere ? 1 : 0);
    }
    return out;
}

// The per-record subscriptions of the run's kind: MARKER's pair ranges (MstxSubscription), the
// simple kinds' get one converted record per call (generated from the schema).
RunOutcome deliver_records(int kind, const uint8_t *first, size_t count, size_t stride, const SubList &subs,
                           bool dropped_elsewhere, size_t taken_upto) {
    RunOutcome out;
    if (kind == MSPTI_ACTIVITY_KIND_MARKER) {
        MarkerData marker;
        out = deliver_each(
            subs, count, dropped_elsewhere, taken_upto,
            [&](size_t i) { convert(*reinterpret_cast<const msptiActivityMarker *>(first + i * stride), marker); },
            [&](Subscription &s) {
                return static_cast<MstxSubscription &>(s).on_marker(marker);  // a start half waits for its end
            });
        return out;
    }
    visit_simple_kind(kind, [&]<typename CRecord, typename Value, typename Callback>() {
        Value value;
        out = deliver_each(
            subs, count, dropped_elsewhere, taken_upto,
            [&](size_t i) { convert(*reinterpret_cast<const CRecord *>(first + i * stride), value); },
            [&](Subscription &s) {
                auto &r = static_cast<RecordSubscription<Callback> &>(s);
                return r.call([&] { r.callback()->on_record(value); }, 1);
            });
    });
    return out;
}

// One run subscription's call for a run; returns how many of its first records it took (handed
// over or passed over). The rest it skips, as dropped when it was let go of by a stop out of time.
size_t deliver_by_run(Subscription &s, const RecordBatch &run, bool &dropped) {
    s.enter();
    struct Exit {
        Subscription &s;
        ~Exit() {
            t_run = nullptr;
            s.exit();
        }
    } exit{s};
    if (!s.live()) {
        dropped = s.skip(run.count) || dropped;
        return 0;
    }
    RunInProgress tally;
    tally.sub = &s;
    t_run = &tally;
    // invoke(), not call(): live() was just asked, and a second "no" would count the run as
    // handed over below (no tally) though its callback never ran.
    s.invoke([&] { static_cast<RunSubscription &>(s).run_callback()->on_run(run); }, 0);
    t_run = nullptr;
    // Without a tally (say its adapter failed before it) the whole run counts as handed over.
    const uint64_t done = tally.tallied ? std::min<uint64_t>(tally.handed + tally.passed, run.count) : run.count;
    s.add_delivered(tally.tallied ? std::min<uint64_t>(tally.handed, done) : run.count);
    s.add_errors(tally.errors);
    if (done < run.count) dropped = s.skip(run.count - done) || dropped;
    s.publish();
    return static_cast<size_t>(done);
}

// One run of records of one kind; returns the records lost (see deliver_each()).
uint64_t deliver_run(int kind, const uint8_t *first, size_t count, size_t stride, const Registry &reg) {
    if (kind <= 0 || kind >= Registry::kKinds || stride == 0) return 0;
    RecordBatch batch;
    batch.kind = static_cast<MsptiActivityKind>(kind);
    batch.data = first;
    batch.count = count;
    batch.stride = stride;
    bool taken = false;  // a batch subscription took the whole run
    bool dropped = false;  // a subscription dropped records of it (a stop out of time, or exit)
    for (const auto &s : reg.batch[kind]) {
        s->enter();
        struct Exit {
            Subscription &s;
            ~Exit() { s.exit(); }
        } exit{*s};
        if (s->call([&] { s->batch()->on_batch(batch); }, count))
            taken = true;
        else
            dropped = s->dropping() || dropped;
        s->publish();
    }
    // Each run subscription takes the records up to where it was let go of (all, normally).
    size_t by_runs = 0;
    for (const auto &s : reg.run[kind]) by_runs = std::max(by_runs, deliver_by_run(*s, batch, dropped));
    const size_t taken_upto = taken ? count : by_runs;  // records [0, taken_upto) reached a callback
    const SubList &subs = reg.record[kind];
    RunOutcome out;
    if (subs.empty()) {
        out.lost = dropped ? count - taken_upto : 0;
    } else {
        RunScope scope(subs);
        out = deliver_records(kind, first, count, stride, subs, dropped, taken_upto);
        for (const auto &s : subs) s->publish();
    }
    // Subscriptions that dropped records another one took: those are delivered for libmspti.
    if (dropped) {
        settle(reg.batch[kind], taken ? count : std::max<uint64_t>(taken_upto, out.taken));
        settle(reg.run[kind], taken ? count : out.taken);
    }
    return out.lost;
}

}  // namespace

void dispatch_buffer(uint8_t *data, size_t valid, uint64_t seq, const Registry &reg) {
    if (valid == 0) return;
    for (const auto *lists : {&reg.batch, &reg.run, &reg.record})
        for (const SubList &list : *lists)
            for (const auto &s : list) s->set_buffer(seq);
    std::array<uint64_t, Registry::kKinds> discarded{};
    msptiActivity *record = nullptr;
    const uint8_t *run = nullptr;
    size_t count = 0;
    size_t stride = 0;
    int run_kind = 0;
    while (libmspti().get_next_record(data, valid, &record) == MSPTI_SUCCESS) {
        const auto *bytes = reinterpret_cast<const uint8_t *>(record);
        const int kind = static_cast<int>(record->kind);
        if (count != 0 && kind == run_kind && bytes == run + count * stride) {
            ++count;
            continue;
        }
        if (count != 0) discarded[run_kind] += deliver_run(run_kind, run, count, stride, reg);
        run = bytes;
        count = 1;
        run_kind = kind;
        stride = record_size(kind);
    }
    if (count != 0) discarded[run_kind] += deliver_run(run_kind, run, count, stride, reg);
    for (int k = 0; k < Registry::kKinds; ++k)
        if (discarded[k] != 0) report_discarded(k, discarded[k]);
}

}  // namespace mspti::detail

namespace mspti {

bool record_run_live() {
    const detail::RunInProgress *r = detail::t_run;
    return r != nullptr && !r->sub->detached() && !detail::delivery_cut().load(std::memory_order_relaxed);
}

void record_run_tally(uint64_t handed, uint64_t passed, uint64_t errors) {
    detail::RunInProgress *r = detail::t_run;
    if (r == nullptr) return;
    r->tallied = true;
    r->handed = handed;
    r->passed = passed;
    r->errors = errors;
}

}  // namespace mspti

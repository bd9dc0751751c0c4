// The timeline's track layout and nesting rules (docs/trace.md, "Nesting and order"), with a sink
// that records what it is given and replays it the way Perfetto does.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "config.h"
#include "flow_links.h"
#include "nearly_sorted.h"
#include "sink.h"
#include "timeline.h"

namespace mspti_trace {
namespace {

struct Event {
    enum Type { kBegin, kEnd, kInstant, kCounter } type;
    uint32_t track;
    uint64_t ts;
    std::string name;
    size_t order;
};

class RecordingSink : public Sink {
public:
    bool open(const std::string &, std::string &) override { return true; }
    void track(const Track &t) override { tracks[t.index] = t; }
    void begin(const Slice &s) override {
        events.push_back({Event::kBegin, s.track, s.start, s.name, events.size()});
        for (uint32_t i = 0; i < s.nflows; ++i) flows[s.flow + i].push_back(std::string(s.name) + "/" + s.category);
    }
    void end(uint32_t track, uint64_t ts) override { events.push_back({Event::kEnd, track, ts, "", events.size()}); }
    void instant(const Slice &s) override {
        events.push_back({Event::kInstant, s.track, s.start, s.name, events.size()});
    }
    void counter(uint32_t track, const char *, uint64_t ts, int64_t v) override {
        events.push_back({Event::kCounter, track, ts, std::to_string(v), events.size()});
    }
    void stats(const Stats &, uint64_t, bool) override {}
    void flush() override {}
    void close() override {}

    // Pairs BEGIN/END per track after a stable sort by timestamp; returns "name@start-end" per
    // track, or an error.
    std::map<uint32_t, std::vector<std::string>> replay(std::string &error) const {
        std::map<uint32_t, std::vector<Event>> per;
        for (const Event &e : events)
            if (e.type == Event::kBegin || e.type == Event::kEnd) per[e.track].push_back(e);
        std::map<uint32_t, std::vector<std::string>> out;
        for (auto &[track, evs] : per) {
            std::stable_sort(evs.begin(), evs.end(), [](const Event &a, const Event &b) { return a.ts < b.ts; });
            std::vector<Event> stack;
            for (const Event &e : evs) {
                if (e.type == Event::kBegin) {
                    stack.push_back(e);
                    continue;
                }
                if (stack.empty()) {
                    error = "END without BEGIN on track " + std::to_string(track);
                    return out;
                }
                out[track].push_back(stack.back().name + "@" + std::to_string(stack.back().ts) + "-" +
                                     std::to_string(e.ts));
                stack.pop_back();
            }
            if (!stack.empty()) error = "BEGIN without END on track " + std::to_string(track);
        }
        return out;
    }

    std::map<uint32_t, Track> tracks;
    std::vector<Event> events;
    std::map<uint64_t, std::vector<std::string>> flows;  // flow id -> "name/category" of its slices
};

Record api(const char *name, uint32_t tid, uint64_t start, uint64_t end, uint64_t seq) {
    msptiActivityApi a{};
    a.kind = MSPTI_ACTIVITY_KIND_API;
    a.start = start;
    a.end = end;
    a.pt.processId = 1;
    a.pt.threadId = tid;
    a.correlationId = seq + 1;
    a.name = name;
    Record r;
    r.assign(reinterpret_cast<const msptiActivity *>(&a), seq);
    return r;
}

Record kernel(const char *name, uint32_t stream, uint64_t start, uint64_t end, uint64_t seq) {
    msptiActivityKernel k{};
    k.kind = MSPTI_ACTIVITY_KIND_KERNEL;
    k.start = start;
    k.end = end;
    k.ds.deviceId = 0;
    k.ds.streamId = stream;
    k.correlationId = seq + 1;
    k.type = "KERNEL_AIVEC";
    k.name = name;
    Record r;
    r.assign(reinterpret_cast<const msptiActivity *>(&k), seq);
    return r;
}

Record marker(msptiActivityFlag flag, uint64_t id, uint64_t ts, const char *name, uint64_t seq) {
    msptiActivityMarker m{};
    m.kind = MSPTI_ACTIVITY_KIND_MARKER;
    m.flag = flag;
    m.sourceKind = MSPTI_ACTIVITY_SOURCE_KIND_HOST;
    m.timestamp = ts;
    m.id = id;
    m.objectId.pt.processId = 1;
    m.objectId.pt.threadId = 7;
    m.name = name;
    m.domain = "default";
    Record r;
    r.assign(reinterpret_cast<const msptiActivity *>(&m), seq);
    return r;
}

class TimelineTest : public ::testing::Test {
protected:
    Config config;
    RecordingSink sink;
    Stats stats{};
    Timeline timeline{config, 1, sink};

    void window(std::initializer_list<Record> records, bool final = false) {
        for (const Record &r : records) timeline.add(r);
        timeline.end_window(stats, 0, final);
    }
    uint32_t track_named(const std::string &name) const {
        for (const auto &[index, t] : sink.tracks)
            if (t.name == name) return index;
        return 0;
    }
};

TEST_F(TimelineTest, ParentArrivingAfterItsChildrenStaysOnTheThreadTrack) {
    // A call stack: children end (and arrive) first; the parent comes in the next window.
    window({api("child1", 7, 110, 120, 0), api("child2", 7, 130, 140, 1)});
    window({api("parent", 7, 100, 200, 2), api("next", 7, 210, 220, 3)}, true);
    std::string error;
    auto slices = sink.replay(error);
    ASSERT_EQ(error, "");
    ASSERT_EQ(slices.size(), 1u);  // no lane was needed
    EXPECT_EQ(slices.begin()->second,
              (std::vector<std::string>{"child1@110-120", "child2@130-140", "parent@100-200", "next@210-220"}));
}

TEST_F(TimelineTest, SlicesThatOverlapWithoutNestingGoToALane) {
    window({kernel("a", 3, 100, 200, 0), kernel("b", 3, 150, 250, 1), kernel("c", 3, 260, 270, 2)}, true);
    std::string error;
    auto slices = sink.replay(error);
    ASSERT_EQ(error, "");
    uint32_t stream = track_named("stream 3"), lane = track_named("stream 3 \xC2\xB7 lane 2");
    ASSERT_NE(lane, 0u);
    EXPECT_EQ(sink.tracks[lane].parent, sink.tracks[stream].parent);  // a sibling under the device
    EXPECT_EQ(slices[stream], (std::vector<std::string>{"a@100-200", "c@260-270"}));
    EXPECT_EQ(slices[lane], (std::vector<std::string>{"b@150-250"}));
}

TEST_F(TimelineTest, LateSliceOverlappingAnEarlierOneWithoutNestingGoesToALane) {
    window({api("x", 7, 100, 150, 0), api("y", 7, 300, 310, 1)});
    window({api("late", 7, 120, 200, 2)}, true);  // starts inside x, ends after it
    std::string error;
    auto slices = sink.replay(error);
    ASSERT_EQ(error, "");
    EXPECT_NE(track_named("trace_workload 7 \xC2\xB7 lane 2") + track_named("thread 7 \xC2\xB7 lane 2"), 0u);
}

TEST_F(TimelineTest, RangesPairAcrossWindowsAndEnclosePriorSlices) {
    window({marker(MSPTI_ACTIVITY_FLAG_MARKER_START, 5, 100, "step", 0), api("call", 7, 110, 120, 1)});
    window({marker(MSPTI_ACTIVITY_FLAG_MARKER_END, 5, 300, "", 2)}, true);
    std::string error;
    auto slices = sink.replay(error);
    ASSERT_EQ(error, "");
    ASSERT_EQ(slices.size(), 1u);
    EXPECT_EQ(slices.begin()->second, (std::vector<std::string>{"call@110-120", "step@100-300"}));
}

TEST_F(TimelineTest, EndBeforeStartIsPairedAndUnendedRangesBecomeInstants) {
    window({marker(MSPTI_ACTIVITY_FLAG_MARKER_END, 9, 300, "", 0)});
    window({marker(MSPTI_ACTIVITY_FLAG_MARKER_START, 9, 100, "early", 1),
            marker(MSPTI_ACTIVITY_FLAG_MARKER_START, 10, 400, "open", 2)},
           true);
    std::string error;
    auto slices = sink.replay(error);
    ASSERT_EQ(error, "");
    EXPECT_EQ(slices.begin()->second, (std::vector<std::string>{"early@100-300"}));
    bool instant = std::any_of(sink.events.begin(), sink.events.end(),
                               [](const Event &e) { return e.type == Event::kInstant && e.name == "open (no end)"; });
    EXPECT_TRUE(instant);
    EXPECT_EQ(timeline.unmatched_ranges(), 1u);
}

TEST_F(TimelineTest, DeviceRangeTakesItsHostHalfName) {
    Record device_start = marker(MSPTI_ACTIVITY_FLAG_MARKER_START_WITH_DEVICE, 5, 150, "", 1);
    device_start.u.marker.sourceKind = MSPTI_ACTIVITY_SOURCE_KIND_DEVICE;
    device_start.u.marker.objectId.ds.deviceId = 0;
    device_start.u.marker.objectId.ds.streamId = 3;
    Record device_end = device_start;
    device_end.u.marker.flag = MSPTI_ACTIVITY_FLAG_MARKER_END_WITH_DEVICE;
    device_end.u.marker.timestamp = device_end.start = device_end.end = 300;
    device_end.seq = 3;
    window({marker(MSPTI_ACTIVITY_FLAG_MARKER_START_WITH_DEVICE, 5, 100, "forward", 0), device_start});
    window({marker(MSPTI_ACTIVITY_FLAG_MARKER_END_WITH_DEVICE, 5, 200, "", 2), device_end}, true);
    std::string error;
    auto slices = sink.replay(error);
    ASSERT_EQ(error, "");
    EXPECT_EQ(slices[track_named("stream 3")], (std::vector<std::string>{"forward@150-300"}));
    EXPECT_EQ(timeline.unmatched_ranges(), 0u);
}

// Write failures (docs/trace.md, "Write failures"): a window that cannot be written loses the
// records whose slices it holds. A range half waiting for its other half is written with it, in
// a later window: the window it came in does not hold it.
class FailingSink : public RecordingSink {
public:
    bool fail = false;
    void flush() override {
        if (fail) window_lost_ = true;
        fail = false;
    }
};

class WindowLossTest : public ::testing::Test {
protected:
    Config config;
    FailingSink sink;
    Stats stats{};
    Timeline timeline{config, 1, sink};
    uint64_t lost[MSPTI_ACTIVITY_KIND_COUNT] = {};
    uint64_t written[MSPTI_ACTIVITY_KIND_COUNT] = {};

    // As the writer does: the records handed over by kind, the window, then its loss.
    void window(std::initializer_list<Record> records, bool fail, bool final = false) {
        uint64_t came[MSPTI_ACTIVITY_KIND_COUNT] = {};
        for (const Record &r : records) {
            timeline.add(r);
            ++came[r.kind()];
        }
        sink.set_window_records(came);
        sink.fail = fail;
        timeline.end_window(stats, 0, final);
        bool was_lost = sink.take_window_lost();
        for (int k = 0; k < MSPTI_ACTIVITY_KIND_COUNT; ++k) (was_lost ? lost : written)[k] += sink.window_records(k);
    }
};

TEST_F(WindowLossTest, RangeHalvesWaitingForTheirOtherHalfAreNotLostWithTheirWindow) {
    // Two ranges start in a window that fails, with one API call: only the call is in that window.
    window({marker(MSPTI_ACTIVITY_FLAG_MARKER_START, 1, 100, "outer", 0), api("call", 7, 110, 120, 1),
            marker(MSPTI_ACTIVITY_FLAG_MARKER_START, 2, 150, "inner", 2)},
           true);
    window({marker(MSPTI_ACTIVITY_FLAG_MARKER_END, 2, 300, "", 3),
            marker(MSPTI_ACTIVITY_FLAG_MARKER_END, 1, 400, "", 4)},
           false);
    // An end that comes before its start, in a failing window; then a start that never ends, in
    // another failing window: written at the end as "(no end)".
    window({marker(MSPTI_ACTIVITY_FLAG_MARKER_END, 9, 700, "", 5)}, true);
    window({marker(MSPTI_ACTIVITY_FLAG_MARKER_START, 9, 500, "early", 6)}, false);
    window({marker(MSPTI_ACTIVITY_FLAG_MARKER_START, 10, 800, "open", 7)}, true);
    window({}, false, true);
    EXPECT_EQ(lost[MSPTI_ACTIVITY_KIND_MARKER], 0u);  // before: 4 (each half counted in its failed window)
    EXPECT_EQ(written[MSPTI_ACTIVITY_KIND_MARKER], 7u);  // every half, in the window of its slice
    EXPECT_EQ(lost[MSPTI_ACTIVITY_KIND_API], 1u);
    EXPECT_EQ(written[MSPTI_ACTIVITY_KIND_API], 0u);
    std::string error;
    auto slices = sink.replay(error);
    ASSERT_EQ(error, "");
    EXPECT_EQ(slices.begin()->second,
              (std::vector<std::string>{"call@110-120", "inner@150-300", "outer@100-400", "early@500-700"}));
    EXPECT_EQ(timeline.unmatched_ranges(), 1u);
}

}  // namespace
}  // namespace mspti_trace

// The writer and timeline sort keys that come nearly in order; the result must be std::sort's
// whatever the order, including the orders that make the insertion sort give up.
namespace mspti_trace {
namespace {

struct Key {
    uint64_t start, seq;
    bool operator<(const Key &o) const { return start != o.start ? start < o.start : seq < o.seq; }
    bool operator==(const Key &o) const { return start == o.start && seq == o.seq; }
};

std::vector<Key> keys(size_t n, uint64_t seed, uint64_t jitter) {
    std::vector<Key> v;
    uint64_t x = seed;
    for (size_t i = 0; i < n; ++i) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        uint64_t start = jitter == 0 ? (x >> 33) % (n / 2 + 1) : i * 10 + (x >> 33) % jitter;  // 0: any order
        v.push_back(Key{start, i});
    }
    return v;
}

// FlowLinks: one flow per launch, from its call to its device work, and nowhere else.
Record api_with(const char *name, uint64_t start, uint64_t end, uint64_t corr, uint64_t seq,
                msptiActivityKind kind = MSPTI_ACTIVITY_KIND_API) {
    Record r = api(name, 7, start, end, seq);
    r.u.api.kind = kind;
    r.u.api.correlationId = corr;
    return r;
}

Record kernel_with(uint64_t start, uint64_t end, uint64_t corr, uint64_t seq) {
    Record r = kernel("k", 1, start, end, seq);
    r.u.kernel.correlationId = corr;
    return r;
}

std::map<std::string, bool> flows_by_name(const std::vector<FlowLinks::Released> &out) {
    std::map<std::string, bool> m;
    for (const auto &x : out) {
        const char *n = x.record.kind() == MSPTI_ACTIVITY_KIND_KERNEL ? "kernel" : x.record.u.api.name;
        m[std::string(n) + "/" + std::to_string(x.record.kind())] = x.count > 0;
    }
    return m;
}

TEST(FlowLinks, OneFlowFromTheOutermostCallToTheFirstKernel) {
    FlowLinks links;
    std::vector<FlowLinks::Released> out;
    // The operator call as API and NODE_API records, the runtime launch inside, all with id 9.
    ASSERT_TRUE(links.hold(api_with("rtKernelLaunch", 120, 150, 9, 0, MSPTI_ACTIVITY_KIND_RUNTIME_API), false));
    ASSERT_TRUE(links.hold(api_with("aclnnAdd", 100, 200, 9, 1, MSPTI_ACTIVITY_KIND_NODE_API), false));
    ASSERT_TRUE(links.hold(api_with("aclnnAdd", 100, 200, 9, 2), false));
    links.release(1000, false, out);
    EXPECT_TRUE(out.empty());  // no device work yet: held
    ASSERT_TRUE(links.hold(kernel_with(300, 400, 9, 3), true));
    links.release(2000, false, out);
    ASSERT_EQ(out.size(), 4u);
    auto m = flows_by_name(out);
    EXPECT_TRUE(m["aclnnAdd/11"]);  // equal starts and ends: the first to arrive
    EXPECT_FALSE(m["aclnnAdd/3"]);
    EXPECT_FALSE(m["rtKernelLaunch/12"]);
    EXPECT_TRUE(m["kernel/2"]);
    // A later call reusing the id (a synchronize) and a second kernel get none: written at once.
    EXPECT_FALSE(links.hold(api_with("aclrtSynchronizeDevice", 500, 900, 9, 4, MSPTI_ACTIVITY_KIND_ACL_API), false));
    EXPECT_FALSE(links.hold(kernel_with(410, 420, 9, 5), true));
    EXPECT_EQ(links.held(), 0u);
}

TEST(FlowLinks, ALaunchOfSeveralKernelsGetsAFlowToEach) {
    FlowLinks links;
    std::vector<FlowLinks::Released> out;
    ASSERT_TRUE(links.hold(api_with("aclnnFoo", 100, 200, 9, 0), false));
    ASSERT_TRUE(links.hold(kernel_with(450, 500, 9, 1), true));  // arrival order is not start order
    ASSERT_TRUE(links.hold(kernel_with(300, 400, 9, 2), true));
    ASSERT_TRUE(links.hold(kernel_with(400, 450, 9, 3), true));
    links.release(1000, false, out);
    ASSERT_EQ(out.size(), 4u);
    uint64_t first = 0;
    std::vector<std::pair<uint64_t, uint64_t>> kernels;  // (start, flow)
    for (const auto &x : out) {
        if (x.record.kind() == MSPTI_ACTIVITY_KIND_API) {
            EXPECT_EQ(x.count, 3u);
            first = x.flow;
        } else {
            EXPECT_EQ(x.count, 1u);
            kernels.emplace_back(x.record.start, x.flow);
        }
    }
    ASSERT_NE(first, 0u);
    std::sort(kernels.begin(), kernels.end());
    EXPECT_EQ(kernels, (std::vector<std::pair<uint64_t, uint64_t>>{{300, first}, {400, first + 1}, {450, first + 2}}));
    // The next launch's flows follow.
    ASSERT_TRUE(links.hold(api_with("aclnnBar", 600, 610, 10, 4), false));
    ASSERT_TRUE(links.hold(kernel_with(700, 710, 10, 5), true));
    links.release(2000, false, out);
    ASSERT_EQ(out.size(), 2u);
    EXPECT_EQ(out[0].flow, first + 3);
    EXPECT_EQ(out[1].flow, first + 3);
}

// The timeline over a sink: every flow id on exactly two slices, a call's and a device slice's.
TEST(TimelineFlows, EveryDeviceSliceOfALaunchGetsItsOwnFlowFromTheCall) {
    Config config;
    config.kinds = {MSPTI_ACTIVITY_KIND_API, MSPTI_ACTIVITY_KIND_NODE_API, MSPTI_ACTIVITY_KIND_RUNTIME_API,
                    MSPTI_ACTIVITY_KIND_KERNEL};
    RecordingSink sink;
    Stats stats{};
    Timeline timeline{config, 1, sink};
    // The operator call (API and NODE_API) with a nested runtime call, all id 9, launched three
    // kernels; a second call (id 10) one.
    for (const Record &r :
         {api_with("aclnnFoo", 100, 200, 9, 0, MSPTI_ACTIVITY_KIND_NODE_API), api_with("aclnnFoo", 100, 200, 9, 1),
          api_with("rtKernelLaunch", 120, 150, 9, 2, MSPTI_ACTIVITY_KIND_RUNTIME_API),
          api_with("aclnnBar", 210, 220, 10, 3)})
        timeline.add(r);
    timeline.end_window(stats, 0, false);
    for (const Record &r : {kernel_with(300, 400, 9, 4), kernel_with(400, 450, 9, 5), kernel_with(450, 500, 9, 6),
                            kernel_with(500, 510, 10, 7)})
        timeline.add(r);
    timeline.end_window(stats, 0, true);
    ASSERT_EQ(sink.flows.size(), 4u);  // before: 2 (one per launch, to its first kernel)
    std::map<std::string, int> starts;
    for (auto [id, slices] : sink.flows) {
        EXPECT_EQ(id >> 40, 1u);  // this process's
        ASSERT_EQ(slices.size(), 2u) << id;
        std::sort(slices.begin(), slices.end());  // tracks are written in no set order
        EXPECT_EQ(slices[1], "k/kernel") << id;
        ++starts[slices[0]];
    }
    EXPECT_EQ(starts, (std::map<std::string, int>{{"aclnnFoo/node_api", 3}, {"aclnnBar/api", 1}}));
}

TEST(FlowLinks, CallsThatLaunchNothingWaitThenGoWithoutAFlow) {
    FlowLinks links;
    std::vector<FlowLinks::Released> out;
    ASSERT_TRUE(links.hold(api_with("aclrtMalloc", 100, 110, 4, 0, MSPTI_ACTIVITY_KIND_ACL_API), false));
    const uint64_t t0 = 5000000000ull;
    links.release(t0, false, out);  // the window it arrived in: the wait starts
    EXPECT_TRUE(out.empty());
    links.release(t0 + FlowLinks::kWaitNs - 1, false, out);
    EXPECT_TRUE(out.empty());
    links.release(t0 + FlowLinks::kWaitNs, false, out);
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].count, 0u);
    // Device work arriving first waits for its call the same way; the end releases everything.
    ASSERT_TRUE(links.hold(kernel_with(300, 400, 5, 1), true));
    links.release(t0 + 2 * FlowLinks::kWaitNs, true, out);
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].count, 0u);
}

TEST(NearlySorted, SameAsStdSortForNearlySortedRandomAndReversedKeys) {
    for (size_t n : {0, 1, 2, 7, 100, 5000}) {
        for (uint64_t jitter : {0, 1, 30, 2000}) {
            std::vector<Key> v = keys(n, n + jitter, jitter), want = v;
            std::sort(want.begin(), want.end());
            sort_nearly_sorted(v.begin(), v.end());
            EXPECT_EQ(v, want) << n << " keys, jitter " << jitter;
            std::reverse(v.begin(), v.end());  // the worst case for insertion: it must give up
            sort_nearly_sorted(v.begin(), v.end());
            EXPECT_EQ(v, want) << n << " reversed keys";
        }
    }
}

TEST(NearlySorted, GroupsMergeIntoStdSortOrder) {
    for (size_t groups : {1, 2, 3, 5, 13}) {
        std::vector<Key> all, want;
        std::vector<size_t> bounds{0};
        for (size_t g = 0; g < groups; ++g) {
            // Empty groups, nearly sorted groups and one in any order, interleaved in time.
            size_t n = g % 4 == 3 ? 0 : 300 * (g + 1);
            std::vector<Key> part = keys(n, g, g == 1 ? 0 : 40);
            for (Key &k : part) k.seq = all.size() + (&k - part.data());
            all.insert(all.end(), part.begin(), part.end());
            bounds.push_back(all.size());
        }
        want = all;
        std::sort(want.begin(), want.end());
        std::vector<Key> scratch;
        sort_nearly_sorted_groups(all, bounds, scratch);
        EXPECT_EQ(all, want) << groups << " groups";
    }
}

}  // namespace
}  // namespace mspti_trace

// White-box tests of the pieces the delivery thread uses: record conversion (docs/compatibility.md,
// "Python package"), range pairing in the bounded table, and what a subscription counts as taken.
// Device records cannot be produced without a device, so the host/device pairing rules are checked
// here on hand-made records.
#include <gtest/gtest.h>

#include "monitor/convert.h"
#include "monitor/range_table.h"
#include "monitor/subscription.h"

using namespace mspti;
using detail::OpenRangeTable;

namespace {

MarkerData Half(uint64_t id, MsptiActivitySourceKind src, MsptiActivityFlag flag, uint64_t ts, const char *name) {
    MarkerData m;
    m.id = id;
    m.source_kind = src;
    m.flag = flag;
    m.timestamp = ts;
    m.name = name;
    m.domain = name[0] != '\0' ? "default" : "";
    if (src == MsptiActivitySourceKind::MSPTI_ACTIVITY_SOURCE_KIND_HOST) {
        m.object_id = {100, 101, -1, -1};
    } else {
        m.object_id = {-1, -1, 3, 7};
    }
    return m;
}

constexpr auto kHost = MsptiActivitySourceKind::MSPTI_ACTIVITY_SOURCE_KIND_HOST;
constexpr auto kDevice = MsptiActivitySourceKind::MSPTI_ACTIVITY_SOURCE_KIND_DEVICE;

}  // namespace

TEST(RangePairing, HostAndDeviceHalvesPairSeparately) {
    OpenRangeTable t(16);
    RangeMarkerData out;
    uint64_t evicted = 0;
    EXPECT_FALSE(t.add(Half(5, kHost, MsptiActivityFlag::MSPTI_ACTIVITY_FLAG_MARKER_START_WITH_DEVICE, 10, "r"), true,
                       out, evicted));
    EXPECT_FALSE(t.add(Half(5, kDevice, MsptiActivityFlag::MSPTI_ACTIVITY_FLAG_MARKER_START_WITH_DEVICE, 12, ""), true,
                       out, evicted));
    ASSERT_TRUE(t.add(Half(5, kHost, MsptiActivityFlag::MSPTI_ACTIVITY_FLAG_MARKER_END_WITH_DEVICE, 20, ""), false, out,
                      evicted));
    EXPECT_EQ(out.source_kind, kHost);
    EXPECT_EQ(out.id, 5u);
    EXPECT_EQ(out.name, "r");
    EXPECT_EQ(out.domain, "default");
    EXPECT_EQ(out.object_id, (MsptiObjectId{100, 101, -1, -1}));
    EXPECT_EQ(out.start, 10u);
    EXPECT_EQ(out.end, 20u);
    ASSERT_TRUE(t.add(Half(5, kDevice, MsptiActivityFlag::MSPTI_ACTIVITY_FLAG_MARKER_END_WITH_DEVICE, 22, ""), false,
                      out, evicted));
    EXPECT_EQ(out.source_kind, kDevice);
    EXPECT_EQ(out.name, "");
    EXPECT_EQ(out.domain, "");
    EXPECT_EQ(out.object_id, (MsptiObjectId{-1, -1, 3, 7}));
    EXPECT_EQ(out.start, 12u);
    EXPECT_EQ(out.end, 22u);
    EXPECT_EQ(t.size(), 0u);
    EXPECT_EQ(evicted, 0u);
}

TEST(RangePairing, EndBeforeStartStillPairsWithTheStartsFields) {
    OpenRangeTable t(4);
    RangeMarkerData out;
    uint64_t evicted = 0;
    EXPECT_FALSE(t.add(Half(9, kHost, MsptiActivityFlag::MSPTI_ACTIVITY_FLAG_MARKER_END, 30, ""), false, out, evicted));
    ASSERT_TRUE(
        t.add(Half(9, kHost, MsptiActivityFlag::MSPTI_ACTIVITY_FLAG_MARKER_START, 25, "late"), true, out, evicted));
    EXPECT_EQ(out.name, "late");
    EXPECT_EQ(out.start, 25u);
    EXPECT_EQ(out.end, 30u);
}

TEST(RangePairing, FullTableEvictsTheOldestAndCountsIt) {
    OpenRangeTable t(3);
    RangeMarkerData out;
    uint64_t evicted = 0;
    for (uint64_t id = 1; id <= 5; ++id)
        EXPECT_FALSE(
            t.add(Half(id, kHost, MsptiActivityFlag::MSPTI_ACTIVITY_FLAG_MARKER_START, id, "s"), true, out, evicted));
    EXPECT_EQ(evicted, 2u);
    EXPECT_EQ(t.size(), 3u);
    // 1 and 2 are gone: their ends open new entries (evicting 3, then 4); 5 still pairs.
    ASSERT_TRUE(t.add(Half(5, kHost, MsptiActivityFlag::MSPTI_ACTIVITY_FLAG_MARKER_END, 50, ""), false, out, evicted));
    EXPECT_EQ(out.id, 5u);
    EXPECT_FALSE(t.add(Half(1, kHost, MsptiActivityFlag::MSPTI_ACTIVITY_FLAG_MARKER_END, 60, ""), false, out, evicted));
    EXPECT_EQ(evicted, 2u);  // room was freed by the pair
    EXPECT_LE(t.size(), 3u);
}

TEST(RecordConversion, MarkerIdsThatDoNotApplyAreMinusOne) {
    msptiActivityMarker host{};
    host.kind = MSPTI_ACTIVITY_KIND_MARKER;
    host.flag = MSPTI_ACTIVITY_FLAG_MARKER_START;
    host.sourceKind = MSPTI_ACTIVITY_SOURCE_KIND_HOST;
    host.timestamp = 123;
    host.id = 4;
    host.objectId.pt.processId = 11;
    host.objectId.pt.threadId = 12;
    host.name = "n";
    host.domain = nullptr;
    MarkerData m;
    detail::convert(host, m);
    EXPECT_EQ(m.flag, MsptiActivityFlag::MSPTI_ACTIVITY_FLAG_MARKER_START);
    EXPECT_EQ(m.object_id, (MsptiObjectId{11, 12, -1, -1}));
    EXPECT_EQ(m.name, "n");
    EXPECT_EQ(m.domain, "");  // NULL becomes ""
    msptiActivityMarker dev = host;
    dev.sourceKind = MSPTI_ACTIVITY_SOURCE_KIND_DEVICE;
    dev.objectId.ds.deviceId = 2;
    dev.objectId.ds.streamId = 9;
    dev.name = "";
    detail::convert(dev, m);
    EXPECT_EQ(m.source_kind, kDevice);
    EXPECT_EQ(m.object_id, (MsptiObjectId{-1, -1, 2, 9}));
}

TEST(RecordConversion, KernelHcclCommunication) {
    msptiActivityKernel k{};
    k.kind = MSPTI_ACTIVITY_KIND_KERNEL;
    k.start = 1;
    k.end = 2;
    k.ds.deviceId = 0;
    k.ds.streamId = MSPTI_INVALID_STREAM_ID;
    k.correlationId = 77;
    k.type = "KERNEL_AIVEC";
    k.name = nullptr;
    KernelData kd;
    detail::convert(k, kd);
    EXPECT_EQ(kd, (KernelData{MsptiActivityKind::MSPTI_ACTIVITY_KIND_KERNEL, 1, 2, 0, -1, 77, "KERNEL_AIVEC", ""}));

    msptiActivityHccl h{};
    h.kind = MSPTI_ACTIVITY_KIND_HCCL;
    h.start = 3;
    h.end = 4;
    h.ds.deviceId = 1;
    h.ds.streamId = 5;
    h.bandWidth = 2.5;
    h.name = "HcclAllReduce";
    h.commName = "world";
    HcclData hd;
    detail::convert(h, hd);
    EXPECT_EQ(hd, (HcclData{MsptiActivityKind::MSPTI_ACTIVITY_KIND_HCCL, 3, 4, 1, 5, 2.5, "HcclAllReduce", "world"}));

    msptiActivityCommunication c{};
    c.kind = MSPTI_ACTIVITY_KIND_COMMUNICATION;
    c.dataType = MSPTI_ACTIVITY_COMMUNICATION_BFP16;
    c.count = 1024;
    c.ds.deviceId = 6;
    c.ds.streamId = 8;
    c.start = 5;
    c.end = 6;
    c.algType = "RING";
    c.name = "hcom_allReduce_";
    c.commName = nullptr;
    c.correlationId = 9;
    CommunicationData cd;
    detail::convert(c, cd);
    EXPECT_EQ(cd, (CommunicationData{MsptiActivityKind::MSPTI_ACTIVITY_KIND_COMMUNICATION,
                                     MsptiCommunicationDataType::MSPTI_ACTIVITY_COMMUNICATION_BFP16, 1024, 6, 8, 5, 6,
                                     "RING", "hcom_allReduce_", "", 9}));
}

TEST(RecordConversion, RecordSizesAreMsptis) {
    EXPECT_EQ(detail::record_size(MSPTI_ACTIVITY_KIND_MARKER), 56u);
    EXPECT_EQ(detail::record_size(MSPTI_ACTIVITY_KIND_KERNEL), 56u);
    EXPECT_EQ(detail::record_size(MSPTI_ACTIVITY_KIND_HCCL), 56u);
    EXPECT_EQ(detail::record_size(MSPTI_ACTIVITY_KIND_COMMUNICATION), 72u);
    EXPECT_EQ(detail::record_size(MSPTI_ACTIVITY_KIND_API), 48u);
    EXPECT_EQ(detail::record_size(0), 0u);
}

// The dispatcher counts a marker as taken when on_marker() says so. It must say so exactly when the
// record reached the callback (or, a start half, the table), and otherwise skip it as the
// subscription's own drop: a detach() between two checks of live() once left a record counted as
// taken that no callback saw and no counter held (MonitorLifecycle's switching test, 1 run in 25
// under TSan).
TEST(MstxSubscriptionTake, AMarkerIsHandedOverOrSkippedByOneAnswer) {
    auto counters = std::make_shared<detail::Counters>();
    int calls = 0;
    detail::FunctionCallback<MarkCallback, MarkerData> mark([&](const MarkerData &) { ++calls; });
    detail::MstxSubscription sub("MstxMonitor", counters, &mark, nullptr, nullptr, nullptr,
                                 std::make_shared<OpenRangeTable>(16));
    const MarkerData m = Half(1, kHost, MsptiActivityFlag::MSPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS, 10, "m");
    sub.set_buffer(3);
    ASSERT_TRUE(sub.enter());
    EXPECT_TRUE(sub.on_marker(m));
    EXPECT_EQ(calls, 1);
    // A stop out of time abandons the buffers through 3, then detaches: the record is skipped and
    // counted as the subscription's drop, and the dispatcher is told it was not taken.
    sub.abandon_through(3);
    sub.detach();
    EXPECT_FALSE(sub.on_marker(m));
    EXPECT_EQ(calls, 1);
    EXPECT_EQ(counters->dropped.load(), 1u);
    sub.exit();
    sub.publish();
    EXPECT_EQ(counters->delivered.load(), 1u);
}

TEST(MstxSubscriptionTake, ARangeHalfOfADetachedSubscriptionIsNotPaired) {
    auto counters = std::make_shared<detail::Counters>();
    int ranges = 0;
    detail::FunctionCallback<RangeCallback, RangeMarkerData> range([&](const RangeMarkerData &) { ++ranges; });
    auto table = std::make_shared<OpenRangeTable>(16);
    detail::MstxSubscription sub("MstxMonitor", counters, nullptr, &range, nullptr, nullptr, table);
    sub.set_buffer(1);
    ASSERT_TRUE(sub.enter());
    EXPECT_TRUE(sub.on_marker(Half(2, kHost, MsptiActivityFlag::MSPTI_ACTIVITY_FLAG_MARKER_START, 10, "r")));
    sub.abandon_through(1);
    sub.detach();
    EXPECT_FALSE(sub.on_marker(Half(2, kHost, MsptiActivityFlag::MSPTI_ACTIVITY_FLAG_MARKER_END, 20, "")));
    EXPECT_EQ(ranges, 0);
    EXPECT_EQ(counters->dropped.load(), 1u);
    sub.exit();
}

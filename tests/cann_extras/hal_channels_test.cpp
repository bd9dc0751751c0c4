// libascend_hal.so's channels and device info, read back with an independent reader of the record
// layouts (byte offsets of the driver's interface: docs/architecture.md "CANN profiling interfaces").
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <ctime>
#include <set>
#include <thread>
#include <utility>
#include <vector>

#include "ascend_hal.h"

namespace {

using namespace vnpu::hal;

constexpr uint32_t kDev = 1;

template <class T>
T at(const char *base, size_t offset) {
    T v;
    std::memcpy(&v, base + offset, sizeof v);
    return v;
}

uint64_t mono_ns() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1000000000ULL + static_cast<uint64_t>(ts.tv_nsec);
}

void start(uint32_t dev, uint32_t ch) {
    uint32_t config[11] = {1};
    ProfStartPara para{};
    para.channelType = ch == kChannelTsFw ? 0 : 1;
    para.realTime = 1;
    para.userData = config;
    para.userDataSize = sizeof config;
    ASSERT_EQ(prof_drv_start(dev, ch, &para), 0);
}

std::vector<char> drain(uint32_t dev, uint32_t ch) {
    std::vector<char> all;
    char buf[4096];
    for (;;) {
        int n = prof_channel_read(dev, ch, buf, sizeof buf);
        EXPECT_GE(n, 0);
        if (n <= 0) return all;
        all.insert(all.end(), buf, buf + n);
    }
}

TEST(HalDeviceInfo, ChipClockAndDevices) {
    uint32_t count = 0;
    ASSERT_EQ(drvGetDevNum(&count), 0);
    EXPECT_EQ(count, 8U);  // VNPU_DEVICE_COUNT's default, as the runtime's
    std::vector<uint32_t> ids(count);
    ASSERT_EQ(drvGetDevIDs(ids.data(), count), 0);
    for (uint32_t i = 0; i < count; ++i) EXPECT_EQ(ids[i], i);
    int64_t version = 0;
    ASSERT_EQ(halGetDeviceInfo(0, 0, kInfoVersion, &version), 0);
    EXPECT_EQ((version >> 8) & 0xff, 5);  // 910B by default
    int64_t freq = 0;
    ASSERT_EQ(halGetDeviceInfo(0, 0, kInfoDevOscFreq, &freq), 0);
    EXPECT_EQ(freq, 50000);  // ticks per ms
    // SYS_COUNT is CLOCK_MONOTONIC at 50 MHz: taken between two clock readings, it lies between them.
    const uint64_t before = mono_ns();
    int64_t ticks = 0;
    ASSERT_EQ(halGetDeviceInfo(0, 0, kInfoSysCount, &ticks), 0);
    const uint64_t after = mono_ns();
    EXPECT_GE(static_cast<uint64_t>(ticks), before / 20);
    EXPECT_LE(static_cast<uint64_t>(ticks), after / 20);
    int32_t api = 0;
    ASSERT_EQ(halGetAPIVersion(&api), 0);
    EXPECT_LT(api, 0x071905);  // no host oscillator: host times are CLOCK_MONOTONIC_RAW ns
    EXPECT_EQ(halGetDeviceInfo(count, 0, kInfoVersion, &version), kDrvErrorNoDevice);
}

TEST(HalChannels, ListsTheTwoChannels) {
    ChannelList list{};
    ASSERT_EQ(prof_drv_get_channels(0, &list), 0);
    EXPECT_EQ(list.chipType, 5U);
    ASSERT_EQ(list.channelNum, 2U);
    std::set<unsigned> ids{list.channel[0].channelId, list.channel[1].channelId};
    EXPECT_EQ(ids, (std::set<unsigned>{44, 50}));
    EXPECT_EQ(prof_drv_get_channels(64, &list), kProfError);
}

TEST(HalChannels, AStoppedChannelTakesNoRecord) {
    EXPECT_EQ(vnpuHalChannelOn(kDev, kChannelStarsSocLog), 0);
    EXPECT_EQ(vnpuHalWriteTaskLog(kDev, 3, 4, 0, 100), -1);
    EXPECT_TRUE(drain(kDev, kChannelStarsSocLog).empty());
    ProfPollInfo out[6];
    EXPECT_EQ(prof_channel_poll(out, 6, 1), kProfStoppedAlready);  // nothing started anywhere
}

// A task's two records go in together or not at all: a ring with room for one record takes neither.
TEST(HalChannels, ATaskSpanIsWrittenWholeOrDropped) {
    constexpr uint32_t kDevice = 2;
    constexpr uint32_t kRingRecords = 32768;  // 2 MiB of 64-byte records
    start(kDevice, kChannelStarsSocLog);
    for (uint32_t i = 0; i + 1 < kRingRecords; ++i) {
        ASSERT_EQ(vnpuHalWriteTaskLog(kDevice, 1, i, 0, i), 0);
    }
    const uint64_t dropped = vnpuHalChannelDropped(kDevice, kChannelStarsSocLog);
    EXPECT_EQ(vnpuHalWriteTaskSpan(kDevice, 1, 7, 1000, 2000), -1);
    EXPECT_EQ(vnpuHalChannelDropped(kDevice, kChannelStarsSocLog), dropped + 2);
    EXPECT_EQ(vnpuHalWriteTaskLog(kDevice, 1, 8, 0, 5), 0);  // the one record's room was kept
    const std::vector<char> all = drain(kDevice, kChannelStarsSocLog);
    ASSERT_EQ(all.size(), 64U * kRingRecords);
    EXPECT_EQ(at<uint16_t>(all.data() + all.size() - 64, 6), 8);  // the last record is task 8's begin
    ASSERT_EQ(vnpuHalWriteTaskSpan(kDevice, 3, 9, 1000, 2000), 0);
    const std::vector<char> span = drain(kDevice, kChannelStarsSocLog);
    ASSERT_EQ(span.size(), 128U);
    for (size_t i = 0; i < 2; ++i) {
        EXPECT_EQ(at<uint16_t>(span.data() + 64 * i, 0) & 0x3f, i);  // begin, then end
        EXPECT_EQ(at<uint16_t>(span.data() + 64 * i, 4), 3);
        EXPECT_EQ(at<uint16_t>(span.data() + 64 * i, 6), 9);
    }
    EXPECT_LT(at<uint64_t>(span.data(), 8), at<uint64_t>(span.data() + 64, 8));
    ASSERT_EQ(prof_stop(kDevice, kChannelStarsSocLog), 0);
}

TEST(HalChannels, ConcurrentWritersEveryRecordReadOnceWhole) {
    start(kDev, kChannelStarsSocLog);
    constexpr int kWriters = 4;
    constexpr uint32_t kPerWriter = 3000;  // 4 x 3000 x 2 x 64 B fits the 2 MiB ring even if never read
    std::atomic<bool> done{false};
    std::vector<char> got;
    std::thread reader([&] {
        ProfPollInfo out[6];
        for (;;) {
            const bool last = done.load();
            int n = prof_channel_poll(out, 6, 1);
            ASSERT_GE(n, 0);
            std::vector<char> more = drain(kDev, kChannelStarsSocLog);
            got.insert(got.end(), more.begin(), more.end());
            if (last) return;
        }
    });
    std::vector<std::thread> writers;
    for (int w = 0; w < kWriters; ++w) {
        writers.emplace_back([w] {
            for (uint32_t i = 0; i < kPerWriter; ++i) {
                ASSERT_EQ(vnpuHalWriteTaskLog(kDev, static_cast<uint32_t>(w), i, 0, 2 * i), 0);
                ASSERT_EQ(vnpuHalWriteTaskLog(kDev, static_cast<uint32_t>(w), i, 1, 2 * i + 1), 0);
            }
        });
    }
    for (auto &t : writers) t.join();
    done.store(true);
    reader.join();
    ASSERT_EQ(prof_stop(kDev, kChannelStarsSocLog), 0);
    ASSERT_EQ(got.size() % 64, 0U);
    EXPECT_EQ(got.size() / 64, kWriters * kPerWriter * 2);
    EXPECT_EQ(vnpuHalChannelDropped(kDev, kChannelStarsSocLog), 0U);
    // Per writer (stream), begin then end of each task, in order, each exactly once.
    std::vector<std::vector<std::pair<uint16_t, uint64_t>>> perStream(kWriters);
    for (size_t pos = 0; pos < got.size(); pos += 64) {
        const char *r = got.data() + pos;
        const uint16_t head = at<uint16_t>(r, 0);
        const uint16_t stream = at<uint16_t>(r, 4);
        ASSERT_LT(stream, kWriters);
        perStream[stream].emplace_back(static_cast<uint16_t>(head & 0x3f), at<uint64_t>(r, 8));
        EXPECT_EQ(at<uint16_t>(r, 6), at<uint64_t>(r, 8) / 2);  // taskId as written
    }
    for (const auto &records : perStream) {
        ASSERT_EQ(records.size(), kPerWriter * 2);
        for (size_t i = 0; i < records.size(); ++i) {
            EXPECT_EQ(records[i].first, i % 2);  // funcType 0 (begin), 1 (end)
            EXPECT_EQ(records[i].second, i);
        }
    }
}

// Writers take no lock: spans from several writers, three times what the ring holds; the reader
// starts once a write found the ring full and then reads while they write. Every span is read once
// and whole (its begin next to its end, in its writer's order) or its write failed and both records
// were counted as dropped; a span written once the reader emptied the ring flags the channel for the
// next poll.
TEST(HalChannels, ConcurrentSpansPastAFullRingAreReadOnceOrCountedDropped) {
    start(kDev, kChannelStarsSocLog);
    const uint64_t droppedBefore = vnpuHalChannelDropped(kDev, kChannelStarsSocLog);
    constexpr int kWriters = 4;
    constexpr uint32_t kPerWriter = 12000;  // 4 x 12000 x 128 B: three times the 2 MiB ring
    std::atomic<bool> done{false};
    std::atomic<bool> full{false};
    std::vector<char> got;
    std::thread reader([&] {
        while (!full.load() && !done.load()) std::this_thread::yield();
        ProfPollInfo out[6];
        for (;;) {
            const bool last = done.load();
            ASSERT_GE(prof_channel_poll(out, 6, 1), 0);
            std::vector<char> more = drain(kDev, kChannelStarsSocLog);
            got.insert(got.end(), more.begin(), more.end());
            if (last) return;
        }
    });
    std::vector<uint32_t> failed(kWriters, 0);
    std::vector<std::thread> writers;
    for (int w = 0; w < kWriters; ++w) {
        writers.emplace_back([w, &failed, &full] {
            for (uint32_t i = 0; i < kPerWriter; ++i) {
                if (vnpuHalWriteTaskSpan(kDev, static_cast<uint32_t>(w), i, 1000 * i, 1000 * i + 500) != 0) {
                    ++failed[w];
                    full.store(true);
                }
            }
        });
    }
    for (auto &t : writers) t.join();
    done.store(true);
    reader.join();
    uint64_t failures = 0;
    for (uint32_t f : failed) failures += f;
    EXPECT_GT(failures, 0U);  // the ring was full before the reader started
    EXPECT_EQ(vnpuHalChannelDropped(kDev, kChannelStarsSocLog) - droppedBefore, 2 * failures);
    ASSERT_EQ(got.size() % 128, 0U);
    std::vector<std::vector<uint16_t>> tasks(kWriters);
    for (size_t pos = 0; pos < got.size(); pos += 128) {
        const char *begin = got.data() + pos;
        const char *end = begin + 64;
        ASSERT_EQ(at<uint16_t>(begin, 0) & 0x3f, 0);
        ASSERT_EQ(at<uint16_t>(end, 0) & 0x3f, 1);
        ASSERT_EQ(at<uint32_t>(begin, 4), at<uint32_t>(end, 4));  // the same stream and task
        const uint16_t stream = at<uint16_t>(begin, 4);
        ASSERT_LT(stream, kWriters);
        tasks[stream].push_back(at<uint16_t>(begin, 6));
    }
    for (int w = 0; w < kWriters; ++w) {
        EXPECT_EQ(tasks[w].size(), kPerWriter - failed[w]);
        for (size_t i = 1; i < tasks[w].size(); ++i) ASSERT_LT(tasks[w][i - 1], tasks[w][i]);  // once, in order
    }
    ProfPollInfo out[6];
    EXPECT_EQ(prof_channel_poll(out, 6, 0), 0);  // nothing new since the reader's last poll
    ASSERT_EQ(vnpuHalWriteTaskSpan(kDev, 1, 1, 10, 20), 0);
    ASSERT_EQ(prof_channel_poll(out, 6, 0), 1);
    EXPECT_EQ(out[0].deviceId, kDev);
    EXPECT_EQ(out[0].channelId, kChannelStarsSocLog);
    ASSERT_EQ(prof_stop(kDev, kChannelStarsSocLog), 0);
}

// msPTI counts a flush as done once it has read the flushed length; one byte more than is buffered
// makes that the read after the one that returns the data, so that data was parsed first.
TEST(HalChannels, FlushCoversTheLastRecord) {
    start(kDev, kChannelTsFw);
    ASSERT_EQ(vnpuHalWriteStepTrace(kDev, 2, 9, 77, 1, 11, 1234), 0);
    unsigned int flushed = 0;
    ASSERT_EQ(halProfDataFlush(kDev, kChannelTsFw, &flushed), 0);
    EXPECT_EQ(flushed, 41U);
    ProfPollInfo out[6];
    ASSERT_EQ(prof_channel_poll(out, 6, 1), 1);  // the flush wakes a poller
    EXPECT_EQ(out[0].deviceId, kDev);
    EXPECT_EQ(out[0].channelId, kChannelTsFw);
    char buf[256];
    unsigned int read = 0;
    const int first = prof_channel_read(kDev, kChannelTsFw, buf, sizeof buf);
    ASSERT_EQ(first, 40);
    read += static_cast<unsigned int>(first);
    EXPECT_LT(read, flushed);  // not done at the read that returned the record
    EXPECT_EQ(prof_channel_read(kDev, kChannelTsFw, buf, sizeof buf), 0);  // done here, after parsing
    ASSERT_EQ(halProfDataFlush(kDev, kChannelTsFw, &flushed), 0);
    EXPECT_EQ(flushed, 0U);
    ASSERT_EQ(prof_stop(kDev, kChannelTsFw), 0);
}

// A writer announces its bytes only when the reader had read everything before them; bytes a read
// left behind (a short read here; a write racing a read in general) are found by the poll itself.
TEST(HalChannels, APollReportsBytesNoWriteAnnounced) {
    start(kDev, kChannelTsFw);
    ProfPollInfo out[6];
    ASSERT_EQ(vnpuHalWriteStepTrace(kDev, 2, 9, 1, 1, 11, 1), 0);  // announced
    ASSERT_EQ(prof_channel_poll(out, 6, 0), 1);
    ASSERT_EQ(vnpuHalWriteStepTrace(kDev, 2, 10, 2, 1, 11, 2), 0);  // not: the first is still unread
    char buf[100];
    ASSERT_EQ(prof_channel_read(kDev, kChannelTsFw, buf, 40), 40);  // the first only
    ASSERT_EQ(prof_channel_poll(out, 6, 0), 1);  // the second, with no signal for it: read since reported
    EXPECT_EQ(out[0].deviceId, kDev);
    EXPECT_EQ(out[0].channelId, kChannelTsFw);
    EXPECT_EQ(prof_channel_read(kDev, kChannelTsFw, buf, 100), 40);
    EXPECT_EQ(prof_channel_poll(out, 6, 0), 0);  // everything read: nothing to report
    ASSERT_EQ(prof_stop(kDev, kChannelTsFw), 0);
}

// A profiler that reads on other threads (msPTI's library dispatches reads to a pool) polls again before
// its read: bytes reported once, and not read since, are not reported at once again, which made its poll
// loop spin, but still at a recheck while they stay unread. (After a read they are reported at once:
// APollReportsBytesNoWriteAnnounced.)
TEST(HalChannels, APollReportsUnreadBytesAgainOnlyAfterAWait) {
    start(kDev, kChannelTsFw);
    ProfPollInfo out[6];
    ASSERT_EQ(vnpuHalWriteStepTrace(kDev, 2, 9, 1, 1, 11, 1), 0);
    ASSERT_EQ(prof_channel_poll(out, 6, 0), 1);
    EXPECT_EQ(prof_channel_poll(out, 6, 0), 0) << "reported already, not read yet";
    EXPECT_EQ(prof_channel_poll(out, 6, 0), 0);
    ASSERT_EQ(prof_channel_poll(out, 6, 1), 1) << "still unread: reported at a recheck";
    EXPECT_EQ(out[0].channelId, kChannelTsFw);
    char buf[100];
    EXPECT_EQ(prof_channel_read(kDev, kChannelTsFw, buf, 100), 40);
    ASSERT_EQ(prof_stop(kDev, kChannelTsFw), 0);
}

TEST(HalChannels, ReadsWholeRecordsOnly) {
    start(kDev, kChannelTsFw);
    ASSERT_EQ(vnpuHalWriteStepTrace(kDev, 2, 9, 1, 1, 11, 1), 0);
    ASSERT_EQ(vnpuHalWriteStepTrace(kDev, 2, 10, 2, 1, 11, 2), 0);
    char buf[100];
    EXPECT_EQ(prof_channel_read(kDev, kChannelTsFw, buf, 39), 0);
    EXPECT_EQ(prof_channel_read(kDev, kChannelTsFw, buf, 79), 40);
    EXPECT_EQ(prof_channel_read(kDev, kChannelTsFw, buf, 100), 40);
    ASSERT_EQ(prof_stop(kDev, kChannelTsFw), 0);
}

TEST(HalChannels, BadArgumentsAreRejected) {
    EXPECT_EQ(prof_drv_start(0, 7, nullptr), kProfError);
    EXPECT_EQ(prof_drv_start(64, kChannelTsFw, nullptr), kProfError);
    EXPECT_EQ(prof_channel_poll(nullptr, 6, 1), kProfError);
    char buf[64];
    EXPECT_EQ(prof_channel_read(0, 7, buf, sizeof buf), kProfError);
}

}  // namespace

// Channel record layouts per chip id (VNPU_CHIP), read with an independent reader of the byte offsets
// msPTI decodes. The chip id is fixed per process, so each case runs in a forked child that sets it
// first; this process never calls into libascend_hal itself.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "ascend_hal.h"

namespace {

using namespace vnpu::hal;

struct Records {
    int64_t version = 0;
    std::vector<char> soclog;
    std::vector<char> tsfw;
};

// In a child with VNPU_CHIP=chip: one task begin/end (two vnpuHalWriteTaskLog calls, or one
// vnpuHalWriteTaskSpan at the CLOCK_MONOTONIC times of the same ticks) and one step trace, read back;
// sent over a pipe.
Records produce(const char *chip, bool span = false) {
    int fds[2];
    EXPECT_EQ(pipe(fds), 0);
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        setenv("VNPU_CHIP", chip, 1);
        uint32_t config[11] = {1};
        ProfStartPara para{};
        para.userData = config;
        para.userDataSize = sizeof config;
        prof_drv_start(0, kChannelStarsSocLog, &para);
        prof_drv_start(0, kChannelTsFw, &para);
        if (span) {
            constexpr uint64_t kNsPerTick = 1000000 / kTicksPerMs;  // the default clock, no offset
            vnpuHalWriteTaskSpan(0, 5, 0x1234, 1000 * kNsPerTick, 2000 * kNsPerTick);
        } else {
            vnpuHalWriteTaskLog(0, 5, 0x1234, 0, 1000);
            vnpuHalWriteTaskLog(0, 5, 0x1234, 1, 2000);
        }
        vnpuHalWriteStepTrace(0, 6, 0x4321, 77, 3, 11, 3000);
        int64_t version = 0;
        halGetDeviceInfo(0, 0, kInfoVersion, &version);
        char soc[512], ts[512];
        int32_t nsoc = prof_channel_read(0, kChannelStarsSocLog, soc, sizeof soc);
        int32_t nts = prof_channel_read(0, kChannelTsFw, ts, sizeof ts);
        bool ok = write(fds[1], &version, sizeof version) == sizeof version &&
                  write(fds[1], &nsoc, sizeof nsoc) == sizeof nsoc && write(fds[1], soc, nsoc) == nsoc &&
                  write(fds[1], &nts, sizeof nts) == sizeof nts && write(fds[1], ts, nts) == nts;
        _exit(ok ? 0 : 1);
    }
    close(fds[1]);
    Records r;
    int32_t n = 0;
    auto get = [&](void *p, size_t len) {
        size_t done = 0;
        while (done < len) {
            ssize_t k = read(fds[0], static_cast<char *>(p) + done, len - done);
            if (k <= 0) return false;
            done += static_cast<size_t>(k);
        }
        return true;
    };
    EXPECT_TRUE(get(&r.version, sizeof r.version));
    EXPECT_TRUE(get(&n, sizeof n));
    r.soclog.resize(static_cast<size_t>(n));
    EXPECT_TRUE(get(r.soclog.data(), r.soclog.size()));
    EXPECT_TRUE(get(&n, sizeof n));
    r.tsfw.resize(static_cast<size_t>(n));
    EXPECT_TRUE(get(r.tsfw.data(), r.tsfw.size()));
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    return r;
}

template <class T>
T at(const std::vector<char> &b, size_t offset) {
    T v;
    std::memcpy(&v, b.data() + offset, sizeof v);
    return v;
}

void expect_910b_like(const Records &r, int chip) {
    EXPECT_EQ((r.version >> 8) & 0xff, chip);
    ASSERT_EQ(r.soclog.size(), 128U);  // two 64-byte STARS records
    for (size_t i = 0; i < 2; ++i) {
        const size_t o = 64 * i;
        EXPECT_EQ(at<uint16_t>(r.soclog, o) & 0x3f, i);  // funcType: begin, end
        EXPECT_EQ(at<uint16_t>(r.soclog, o + 4), 5);  // streamId
        EXPECT_EQ(at<uint16_t>(r.soclog, o + 6), 0x1234);  // taskId
        EXPECT_EQ(at<uint64_t>(r.soclog, o + 8), 1000 * (i + 1));
    }
    ASSERT_EQ(r.tsfw.size(), 40U);
    EXPECT_EQ(at<uint8_t>(r.tsfw, 1), 10);  // rptType: step trace
    EXPECT_EQ(at<uint64_t>(r.tsfw, 8), 3000U);
    EXPECT_EQ(at<uint64_t>(r.tsfw, 16), 77U);  // indexId
    EXPECT_EQ(at<uint64_t>(r.tsfw, 24), 3U);  // modelId
    EXPECT_EQ(at<uint16_t>(r.tsfw, 32), 6);  // streamId
    EXPECT_EQ(at<uint16_t>(r.tsfw, 34), 0x4321);
    EXPECT_EQ(at<uint16_t>(r.tsfw, 36), 11);  // tagId
}

TEST(HalLayout, Chip910BByDefault) { expect_910b_like(produce(""), 5); }

TEST(HalLayout, Chip310B) { expect_910b_like(produce("310B"), 7); }

TEST(HalLayout, ChipV6Has32ByteSocLogs) {
    const Records r = produce("V6");
    EXPECT_EQ((r.version >> 8) & 0xff, 15);
    ASSERT_EQ(r.soclog.size(), 64U);  // two 32-byte records
    for (size_t i = 0; i < 2; ++i) {
        const size_t o = 32 * i;
        EXPECT_EQ(at<uint16_t>(r.soclog, o) & 0x3f, i);
        EXPECT_EQ(at<uint32_t>(r.soclog, o + 4), 0x1234U);  // 32-bit taskId, no stream
        EXPECT_EQ(at<uint64_t>(r.soclog, o + 8), 1000 * (i + 1));
    }
    ASSERT_EQ(r.tsfw.size(), 40U);
    EXPECT_EQ(at<uint8_t>(r.tsfw, 1), 10);
    EXPECT_EQ(at<uint64_t>(r.tsfw, 16), 77U);
    EXPECT_EQ(at<uint16_t>(r.tsfw, 32), 11);  // tagId
    EXPECT_EQ(at<uint16_t>(r.tsfw, 34), 6);  // streamId
    EXPECT_EQ(at<uint32_t>(r.tsfw, 36), 0x4321U);
}

// One task's begin and end written with one call: the same bytes as the two records written apart.
TEST(HalLayout, ATaskSpanIsItsTwoRecords) {
    for (const char *chip : {"", "310B", "V6"}) {
        SCOPED_TRACE(chip);
        const Records apart = produce(chip), span = produce(chip, true);
        EXPECT_EQ(span.soclog, apart.soclog);
    }
    expect_910b_like(produce("", true), 5);
}

TEST(HalLayout, AnUnknownChipIsNamedAndFallsBackTo910B) { expect_910b_like(produce("910Z"), 5); }

}  // namespace

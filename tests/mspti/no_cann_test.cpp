// A host with no CANN: no libprofapi.so or libascend_hal.so anywhere libmspti looks
// ($ASCEND_HOME_PATH/lib64, the library path). Host-side kinds work; enabling a kind that needs the
// device's interfaces answers MSPTI_ERROR_DEVICE_OFFLINE with a message naming the missing library,
// and libmspti says once, on stderr, which kinds cannot be collected.
#include <gtest/gtest.h>

#include <malloc.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "mspti/mspti.h"
#include "mspti/mspti_ext.h"
#include "mstx/ms_tools_ext.h"

namespace {

std::vector<msptiActivityMarker> g_markers;

void request(uint8_t **buffer, size_t *size, size_t *max) {
    *size = 1 << 16;
    *buffer = static_cast<uint8_t *>(std::aligned_alloc(8, *size));
    *max = 0;
}

void complete(uint8_t *buffer, size_t, size_t valid) {
    msptiActivity *r = nullptr;
    while (msptiActivityGetNextRecord(buffer, valid, &r) == MSPTI_SUCCESS)
        if (r->kind == MSPTI_ACTIVITY_KIND_MARKER) g_markers.push_back(*reinterpret_cast<msptiActivityMarker *>(r));
    std::free(buffer);
}

std::string last_error() {
    const char *e = msptiExtGetLastError();
    return e != nullptr ? e : "";
}

}  // namespace

TEST(NoCann, DeviceKindsAnswerDeviceOfflineAndHostKindsWork) {
    // stderr into a pipe, to count libmspti's lines
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    int saved = dup(STDERR_FILENO);
    dup2(fds[1], STDERR_FILENO);

    for (msptiActivityKind kind :
         {MSPTI_ACTIVITY_KIND_KERNEL, MSPTI_ACTIVITY_KIND_API, MSPTI_ACTIVITY_KIND_ACL_API,
          MSPTI_ACTIVITY_KIND_NODE_API, MSPTI_ACTIVITY_KIND_RUNTIME_API, MSPTI_ACTIVITY_KIND_COMMUNICATION}) {
        EXPECT_EQ(msptiActivityEnable(kind), MSPTI_ERROR_DEVICE_OFFLINE) << kind;
        EXPECT_NE(last_error().find("libprofapi.so"), std::string::npos) << last_error();
        EXPECT_FALSE(msptiActivityIsEnabled(kind));
    }
    fflush(stderr);
    dup2(saved, STDERR_FILENO);
    close(fds[1]);
    std::string said;
    char buf[4096];
    for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;) said.append(buf, static_cast<size_t>(n));
    close(fds[0]);
    size_t lines = 0;
    for (char c : said) lines += c == '\n';
    EXPECT_EQ(lines, 1u) << said;  // once, however many kinds were refused
    EXPECT_NE(said.find("KERNEL"), std::string::npos) << said;

    // Host-side kinds: markers are collected as usual.
    ASSERT_EQ(msptiActivityRegisterCallbacks(request, complete), MSPTI_SUCCESS);
    ASSERT_EQ(msptiActivityEnable(MSPTI_ACTIVITY_KIND_MARKER), MSPTI_SUCCESS);
    mstxMarkA("no cann", nullptr);
    uint64_t id = mstxRangeStartA("range", nullptr);
    mstxRangeEnd(id);
    ASSERT_EQ(msptiActivityFlushAll(1), MSPTI_SUCCESS);
    EXPECT_EQ(g_markers.size(), 3u);
    EXPECT_EQ(msptiActivityDisable(MSPTI_ACTIVITY_KIND_MARKER), MSPTI_SUCCESS);
}

// With no device to read, the device counters are all zero, and reading them does not make the
// device collector (its task table alone is 4 MiB: glibc maps a block that size with mmap, which
// mallinfo2 counts in hblkhd).
TEST(NoCann, DeviceStatsAreZeroAndReadingThemAllocatesNothingLarge) {
    const size_t mapped_before = mallinfo2().hblkhd;
    msptiExtDeviceStats stats;
    std::memset(&stats, 0xff, sizeof stats);
    ASSERT_EQ(msptiExtDeviceGetStats(&stats), MSPTI_SUCCESS);
    EXPECT_EQ(mallinfo2().hblkhd, mapped_before);
    const msptiExtDeviceStats zero{};
    EXPECT_EQ(std::memcmp(&stats, &zero, sizeof stats), 0);
    // Still zero once a device kind was refused.
    EXPECT_EQ(msptiActivityEnable(MSPTI_ACTIVITY_KIND_KERNEL), MSPTI_ERROR_DEVICE_OFFLINE);
    ASSERT_EQ(msptiExtDeviceGetStats(&stats), MSPTI_SUCCESS);
    EXPECT_EQ(std::memcmp(&stats, &zero, sizeof stats), 0);
}

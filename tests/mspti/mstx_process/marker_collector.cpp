// Preloaded next to libmspti.so: turns on MARKER collection before main and, at exit,
// checks that the program produced MSTX_EXPECT_RECORDS marker records (exit status 3 if not).
#include <cstdio>
#include <cstdlib>
#include <unistd.h>

#include "mspti/mspti.h"
#include "../record_collector.h"

namespace {

__attribute__((constructor)) void StartCollecting() {
    mspti_test::RecordCollector::instance().install();
    msptiActivityEnable(MSPTI_ACTIVITY_KIND_MARKER);
}

__attribute__((destructor)) void CheckRecords() {
    msptiActivityFlushAll(1);
    size_t got = mspti_test::RecordCollector::instance().count(MSPTI_ACTIVITY_KIND_MARKER);
    const char *expected = std::getenv("MSTX_EXPECT_RECORDS");
    std::printf("marker_collector: %zu marker records\n", got);
    std::fflush(stdout);
    if (expected != nullptr && std::strtoul(expected, nullptr, 10) != got) _exit(3);
}

}  // namespace

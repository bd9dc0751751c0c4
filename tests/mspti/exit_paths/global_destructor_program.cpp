// A profiler that lives in a global object: it starts collecting in its constructor and, in its
// destructor (after the main thread's thread-locals are gone), marks, ends its range, flushes
// and checks that everything arrived. An atexit handler marks too. Exit status 0 = all delivered.
#include <cstdio>
#include <cstdlib>
#include <unistd.h>

#include "exit_collector.h"
#include "mstx/ms_tools_ext.h"

using namespace exit_test;

namespace {

void AtExit() {
    mstxMarkA("atexit mark", nullptr);
    mstxRangeEnd(mstxRangeStartA("atexit range", nullptr));
}

struct GlobalProfiler {
    mstxRangeId whole_run = 0;
    GlobalProfiler() {
        msptiActivityRegisterCallbacks(&Request, &Complete);
        msptiActivityEnable(MSPTI_ACTIVITY_KIND_MARKER);
        mstxMarkA("open", nullptr);
        whole_run = mstxRangeStartA("whole run", nullptr);
    }
    ~GlobalProfiler() {
        mstxMarkA("close", nullptr);
        mstxRangeEnd(whole_run);
        msptiActivityFlushAll(1);
        msptiExtActivityStats s = MarkerStats();
        // open, whole run start; in main; atexit mark, atexit range start and end; close, whole run end.
        bool ok = Count("open") == 1 && Count("whole run") == 1 && Count("atexit mark") == 1 &&
                  Count("atexit range") == 1 && Count("close") == 1 && Count("") == 2 && Total() == 8 &&
                  s.produced == 8 && s.delivered == 8 && s.dropped == 0;
        std::printf("produced %llu delivered %llu dropped %llu received %zu: %s\n",
                    static_cast<unsigned long long>(s.produced), static_cast<unsigned long long>(s.delivered),
                    static_cast<unsigned long long>(s.dropped), Total(), ok ? "ok" : "FAILED");
        std::fflush(stdout);
        _exit(ok ? 0 : 1);
    }
};

GlobalProfiler g_profiler;

}  // namespace

int main() {
    std::atexit(&AtExit);
    mstxMarkA("in main", nullptr);  // the main thread's staging exists before exit begins
    msptiActivityFlushAll(1);
    return Count("in main") == 1 ? 0 : 2;
}

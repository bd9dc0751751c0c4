// libprofapi's mstx entry and the named-phase fault (docs/faults.md): while VNPU_FAULT_PHASE is set,
// the range starts a profiler filled in through libprofapi are wrapped, the profiler's function first,
// then vnpuFaultRangeStarted; otherwise the table holds the profiler's own functions. A recording
// profiler (registered with ProfRegisterMstxFunc, as msPTI's library registers) and this program's own
// vnpuFaultRangeStarted (found by name, as libvnpu's is) log the calls in order. No libvnpu here: the
// test sees the wrap itself, not a delay.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#define MSTX_NO_IMPL  // the types only: this program plays the header itself
#include "mstx/ms_tools_ext.h"

extern "C" {
void ProfRegisterMstxFunc(int (*init)(mstxGetModuleFuncTableFunc), int module);
int InitInjectionMstx(mstxGetModuleFuncTableFunc getTable);

// Exported from the test program (ENABLE_EXPORTS): libprofapi finds it by name as it finds libvnpu's.
__attribute__((visibility("default"))) void vnpuFaultRangeStarted(const char *message);
}

namespace {

std::vector<std::string> g_log;

void tool_mark(const char *message, aclrtStream) { g_log.push_back(std::string("mark ") + message); }
mstxRangeId tool_range_start(const char *message, aclrtStream) {
    g_log.push_back(std::string("start ") + message);
    return 41;
}
void tool_range_end(mstxRangeId id) { g_log.push_back("end " + std::to_string(id)); }
mstxRangeId tool_domain_range_start(mstxDomainHandle_t, const char *message, aclrtStream) {
    g_log.push_back(std::string("domain start ") + message);
    return 42;
}

int tool_init(mstxGetModuleFuncTableFunc get) {
    mstxFuncTable table = nullptr;
    unsigned size = 0;
    if (get(MSTX_API_MODULE_CORE, &table, &size) != MSTX_SUCCESS) return MSTX_FAIL;
    *table[MSTX_API_CORE_MARK_A] = reinterpret_cast<mstxFuncPointer>(&tool_mark);
    *table[MSTX_API_CORE_RANGE_START_A] = reinterpret_cast<mstxFuncPointer>(&tool_range_start);
    *table[MSTX_API_CORE_RANGE_END] = reinterpret_cast<mstxFuncPointer>(&tool_range_end);
    if (get(MSTX_API_MODULE_CORE_DOMAIN, &table, &size) != MSTX_SUCCESS) return MSTX_FAIL;
    *table[MSTX_API_CORE2_DOMAIN_RANGE_START_A] = reinterpret_cast<mstxFuncPointer>(&tool_domain_range_start);
    return MSTX_SUCCESS;
}

// One binary's tables as an mstx header keeps them: each entry points at the binary's live slot.
struct Tables {
    mstxFuncPointer core[MSTX_API_CORE_SIZE] = {};
    mstxFuncPointer domain[MSTX_API_CORE2_SIZE] = {};
    mstxFuncPointer *core_entries[MSTX_API_CORE_SIZE] = {};
    mstxFuncPointer *domain_entries[MSTX_API_CORE2_SIZE] = {};
};
Tables *g_tables = nullptr;

int get_table(mstxFuncModule module, mstxFuncTable *out, unsigned *size) {
    Tables &t = *g_tables;
    if (module == MSTX_API_MODULE_CORE) {
        for (unsigned i = 1; i < MSTX_API_CORE_SIZE; ++i) t.core_entries[i] = &t.core[i];
        *out = t.core_entries;
        *size = MSTX_API_CORE_SIZE;
        return MSTX_SUCCESS;
    }
    if (module == MSTX_API_MODULE_CORE_DOMAIN) {
        for (unsigned i = 1; i < MSTX_API_CORE2_SIZE; ++i) t.domain_entries[i] = &t.domain[i];
        *out = t.domain_entries;
        *size = MSTX_API_CORE2_SIZE;
        return MSTX_SUCCESS;
    }
    return MSTX_FAIL;
}

// A binary's first marker: libprofapi's InitInjectionMstx with that binary's table getter.
Tables init_through_profapi(const char *phase) {
    if (phase != nullptr)
        setenv("VNPU_FAULT_PHASE", phase, 1);
    else
        unsetenv("VNPU_FAULT_PHASE");
    ProfRegisterMstxFunc(&tool_init, 2);  // PROF_MODULE_MSPTI
    Tables t;
    g_tables = &t;
    EXPECT_EQ(InitInjectionMstx(&get_table), MSTX_SUCCESS);
    g_tables = nullptr;
    g_log.clear();
    return t;
}

using RangeStart = mstxRangeId (*)(const char *, aclrtStream);
using DomainRangeStart = mstxRangeId (*)(mstxDomainHandle_t, const char *, aclrtStream);

}  // namespace

extern "C" void vnpuFaultRangeStarted(const char *message) { g_log.push_back(std::string("fault ") + message); }

TEST(ProfapiMstx, PhaseFaultWrapsRangeStartsAfterTheProfiler) {
    Tables t = init_through_profapi("data");
    auto start = reinterpret_cast<RangeStart>(t.core[MSTX_API_CORE_RANGE_START_A]);
    auto domain_start = reinterpret_cast<DomainRangeStart>(t.domain[MSTX_API_CORE2_DOMAIN_RANGE_START_A]);
    ASSERT_NE(start, nullptr);
    EXPECT_NE(start, &tool_range_start);  // wrapped
    EXPECT_EQ(start("data", nullptr), 41u);  // the profiler's id comes back
    EXPECT_EQ(domain_start(nullptr, "io", nullptr), 42u);
    // Every range start is passed on (libvnpu matches the name and the rank), after the profiler's.
    EXPECT_EQ(g_log, (std::vector<std::string>{"start data", "fault data", "domain start io", "fault io"}));
    // Marks and range ends are the profiler's own.
    EXPECT_EQ(t.core[MSTX_API_CORE_MARK_A], reinterpret_cast<mstxFuncPointer>(&tool_mark));
    EXPECT_EQ(t.core[MSTX_API_CORE_RANGE_END], reinterpret_cast<mstxFuncPointer>(&tool_range_end));
}

TEST(ProfapiMstx, EveryBinaryOfTheSameProfilerIsWrappedAlike) {
    Tables a = init_through_profapi("data");
    Tables b = init_through_profapi("data");
    EXPECT_EQ(a.core[MSTX_API_CORE_RANGE_START_A], b.core[MSTX_API_CORE_RANGE_START_A]);
    reinterpret_cast<RangeStart>(b.core[MSTX_API_CORE_RANGE_START_A])("step", nullptr);
    EXPECT_EQ(g_log, (std::vector<std::string>{"start step", "fault step"}));
}

TEST(ProfapiMstx, WithoutThePhaseFaultTheTableHoldsTheProfilersFunctions) {
    Tables t = init_through_profapi(nullptr);
    EXPECT_EQ(t.core[MSTX_API_CORE_RANGE_START_A], reinterpret_cast<mstxFuncPointer>(&tool_range_start));
    EXPECT_EQ(t.domain[MSTX_API_CORE2_DOMAIN_RANGE_START_A],
              reinterpret_cast<mstxFuncPointer>(&tool_domain_range_start));
    Tables empty = init_through_profapi("");  // set but empty: no phase
    EXPECT_EQ(empty.core[MSTX_API_CORE_RANGE_START_A], reinterpret_cast<mstxFuncPointer>(&tool_range_start));
}

// A range marked by calling the profiler directly (as a program calling libmspti's exported mstx
// functions does) does not come through CANN, so nothing is passed on.
TEST(ProfapiMstx, RangesThatBypassProfapiAreNotPassedOn) {
    init_through_profapi("data");
    tool_range_start("data", nullptr);
    EXPECT_EQ(g_log, (std::vector<std::string>{"start data"}));
}

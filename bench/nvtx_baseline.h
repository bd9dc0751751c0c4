// NVTX3 (header-only, no tool attached) as the baseline every marker benchmark is compared to.
#pragma once

#ifdef MSPTI_HAVE_NVTX3
#include <nvtx3/nvToolsExt.h>

#define MSPTI_NVTX_BASELINE_BENCHMARKS() \
    namespace { \
    void BM_NvtxMarkA_NoTool(benchmark::State &state) { \
        for (auto _ : state) nvtxMarkA("bench_mark"); \
        state.SetItemsProcessed(state.iterations()); \
    } \
    BENCHMARK(BM_NvtxMarkA_NoTool)->Threads(1)->UseRealTime(); \
    void BM_NvtxRangePushPop_NoTool(benchmark::State &state) { \
        for (auto _ : state) { \
            nvtxRangePushA("bench_range"); \
            nvtxRangePop(); \
        } \
        state.SetItemsProcessed(state.iterations()); \
    } \
    BENCHMARK(BM_NvtxRangePushPop_NoTool)->Threads(1)->UseRealTime(); \
    }
#else
#define MSPTI_NVTX_BASELINE_BENCHMARKS()
#endif

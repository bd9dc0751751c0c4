// mstx with no tool loaded (this binary does not link libmspti), against NVTX3 with no tool.
#include <benchmark/benchmark.h>

#include "mstx/ms_tools_ext.h"
#include "nvtx_baseline.h"

namespace {

void BM_MstxMarkA_NoTool(benchmark::State &state) {
    for (auto _ : state) mstxMarkA("bench_mark", nullptr);
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_MstxMarkA_NoTool)->Threads(1)->UseRealTime();

void BM_MstxRangeStartEnd_NoTool(benchmark::State &state) {
    for (auto _ : state) mstxRangeEnd(mstxRangeStartA("bench_range", nullptr));
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_MstxRangeStartEnd_NoTool)->Threads(1)->UseRealTime();

}  // namespace

MSPTI_NVTX_BASELINE_BENCHMARKS()

BENCHMARK_MAIN();

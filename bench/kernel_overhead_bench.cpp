// Cost of KERNEL collection on a stream of small aclnn kernels (the virtual NPU), in one run:
//   BM_SmallKernels/collect:0  libmspti interposing, nothing enabled
//   BM_SmallKernels/collect:1  KERNEL enabled, records drained into client buffers
// Each iteration launches a batch of aclnnAdd kernels on 8 floats and synchronises the stream.
// Repetitions are interleaved; at the end the ratios of wall time (min and median over the
// repetitions) and of the whole process's CPU time per kernel are printed.
// --pairs=N runs strict pairs instead (run_pairs, the figure docs/performance.md leads with);
// --fixed=MODE N runs fixed work for callgrind.
// libmspti is linked ahead of the runtime, so it interposes without LD_PRELOAD.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <time.h>
#include <vector>

#include "mspti/mspti.h"
#include "mspti/mspti_ext.h"
#include "strict_pairs_json.h"
#include "vnpu_add_kernels.h"

namespace {

constexpr int kBatch = 256;
constexpr size_t kBufferSize = 8u << 20;

std::mutex g_pool_mutex;
std::vector<uint8_t *> g_pool;  // buffers are reused, so draining costs no allocation
std::atomic<uint64_t> g_records{0};

void request(uint8_t **buffer, size_t *size, size_t *maxNumRecords) {
    std::lock_guard<std::mutex> lock(g_pool_mutex);
    if (g_pool.empty()) {
        *buffer = static_cast<uint8_t *>(std::aligned_alloc(8, kBufferSize));
    } else {
        *buffer = g_pool.back();
        g_pool.pop_back();
    }
    *size = kBufferSize;
    *maxNumRecords = 0;
}

void complete(uint8_t *buffer, size_t, size_t validSize) {
    msptiActivity *record = nullptr;
    uint64_t n = 0;
    while (buffer != nullptr && msptiActivityGetNextRecord(buffer, validSize, &record) == MSPTI_SUCCESS) ++n;
    g_records.fetch_add(n, std::memory_order_relaxed);
    std::lock_guard<std::mutex> lock(g_pool_mutex);
    if (buffer != nullptr) g_pool.push_back(buffer);
}

using Device = AddKernels;

// CPU time of every thread of the process (host thread, stream worker, activity worker): less
// sensitive than wall time to other processes on a shared machine.
double process_cpu_ns() {
    timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
}

Device &device() {
    static Device d;
    return d;
}

void BM_SmallKernels(benchmark::State &state) {
    const bool collect = state.range(0) != 0;
    Device &d = device();
    if (collect) msptiActivityEnable(MSPTI_ACTIVITY_KIND_KERNEL);
    uint64_t before = g_records.load();
    double cpu_before = process_cpu_ns();
    for (auto _ : state) {
        for (int i = 0; i < kBatch; ++i)
            if (!d.add()) state.SkipWithError("aclnnAdd failed");
        aclrtSynchronizeStream(d.stream);
    }
    state.counters["process_cpu_ns_per_kernel"] =
        (process_cpu_ns() - cpu_before) / static_cast<double>(state.iterations() * kBatch);
    if (collect) {
        msptiActivityFlushAll(1);
        msptiActivityDisable(MSPTI_ACTIVITY_KIND_KERNEL);
        state.counters["records_per_kernel"] =
            static_cast<double>(g_records.load() - before) / static_cast<double>(state.iterations() * kBatch);
    }
    state.SetItemsProcessed(state.iterations() * kBatch);
}
BENCHMARK(BM_SmallKernels)->ArgName("collect")->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond)->UseRealTime();

// Keeps the real time of every repetition, to print the overhead at the end.
class RatioReporter : public benchmark::ConsoleReporter {
public:
    void ReportRuns(const std::vector<Run> &runs) override {
        for (const Run &run : runs)
            if (run.run_type == Run::RT_Iteration && !run.error_occurred) {
                times_[run.run_name.args].push_back(run.GetAdjustedRealTime());
                auto cpu = run.counters.find("process_cpu_ns_per_kernel");
                if (cpu != run.counters.end()) cpu_[run.run_name.args].push_back(cpu->second.value);
            }
        ConsoleReporter::ReportRuns(runs);
    }
    void Finalize() override {
        ConsoleReporter::Finalize();
        // Min is the most robust statistic on a shared machine (noise only adds time); median shown too.
        auto stat = [](std::vector<double> v, bool min) {
            std::sort(v.begin(), v.end());
            return v.empty() ? 0.0 : min ? v.front() : v[v.size() / 2];
        };
        for (bool min : {true, false}) {
            double off = stat(times_["collect:0"], min), on = stat(times_["collect:1"], min);
            if (off > 0 && on > 0)
                std::printf("KERNEL collection (%s of %zu): %.1f us vs %.1f us per %d kernels: ratio %.4f (%+.2f%%)\n",
                            min ? "min" : "median", times_["collect:1"].size(), on, off, kBatch, on / off,
                            (on / off - 1.0) * 100.0);
        }
        double cpu_off = stat(cpu_["collect:0"], false), cpu_on = stat(cpu_["collect:1"], false);
        if (cpu_off > 0 && cpu_on > 0)
            std::printf("KERNEL collection (median process CPU): %.0f ns vs %.0f ns per kernel: +%.0f ns (%+.2f%%)\n",
                        cpu_on, cpu_off, cpu_on - cpu_off, (cpu_on / cpu_off - 1.0) * 100.0);
    }

private:
    std::map<std::string, std::vector<double>> times_;
    std::map<std::string, std::vector<double>> cpu_;
};

// Fixed work for counting instructions (bench/kernel_overhead_instructions.sh runs it under
// callgrind): BATCHES batches of kBatch kernels, with KERNEL collection on or off, then a flush.
int run_fixed(bool collect, int batches) {
    Device &d = device();
    if (collect) msptiActivityEnable(MSPTI_ACTIVITY_KIND_KERNEL);
    for (int b = 0; b < batches; ++b) {
        for (int i = 0; i < kBatch; ++i)
            if (!d.add()) return 1;
        aclrtSynchronizeStream(d.stream);
    }
    msptiActivityFlushAll(1);
    if (collect && g_records.load() != static_cast<uint64_t>(batches) * kBatch) {
        std::fprintf(stderr, "expected %d kernel records, got %llu\n", batches * kBatch,
                     static_cast<unsigned long long>(g_records.load()));
        return 1;
    }
    return 0;
}

// Strict pairs (--pairs=N): N pairs of runs of `batches` batches, the two variants next to each
// other and their order alternating (ABBA), so that a slow stretch of the machine falls on both
// halves of a pair. Each run ends with msptiActivityFlushAll, so the collection side also pays for
// the drain and the client's reading of every record it produced. Prints JSON with every pair's
// process CPU, the host thread's CPU and wall time per kernel.
double wall_ns() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
}

// CPU time of the calling (host) thread: the rest of the process's is the stream worker's (the
// device), libmspti's channel reader's and the activity worker's.
double host_cpu_ns() {
    timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
}

int run_pairs(int pairs, int batches) {
    Device &d = device();
    const double kernels = static_cast<double>(batches) * kBatch;
    auto one_run = [&](bool collect, double &cpu, double &host, double &wall) {
        if (collect) msptiActivityEnable(MSPTI_ACTIVITY_KIND_KERNEL);
        const double cpu0 = process_cpu_ns(), host0 = host_cpu_ns(), wall0 = wall_ns();
        for (int b = 0; b < batches; ++b) {
            for (int i = 0; i < kBatch; ++i)
                if (!d.add()) return false;
            aclrtSynchronizeStream(d.stream);
        }
        msptiActivityFlushAll(1);
        cpu = (process_cpu_ns() - cpu0) / kernels;
        host = (host_cpu_ns() - host0) / kernels;
        wall = (wall_ns() - wall0) / kernels;
        if (collect) msptiActivityDisable(MSPTI_ACTIVITY_KIND_KERNEL);
        return true;
    };
    double warm_cpu = 0, warm_host = 0, warm_wall = 0;
    if (!one_run(true, warm_cpu, warm_host, warm_wall) || !one_run(false, warm_cpu, warm_host, warm_wall))
        return 1;  // buffers, pools
    const uint64_t records_before = g_records.load();
    StrictPairs runs;
    for (int p = 0; p < pairs; ++p) {
        for (int k = 0; k < 2; ++k) {
            const bool collect = (p % 2 == 0) == (k == 1);  // off,on then on,off
            double c = 0, h = 0, w = 0;
            if (!one_run(collect, c, h, w)) return 1;
            runs.cpu[collect].push_back(c);
            runs.host[collect].push_back(h);
            runs.wall[collect].push_back(w);
        }
    }
    const uint64_t records = g_records.load() - records_before;
    PrintStrictPairs(pairs, kernels, static_cast<double>(records) / (kernels * pairs), runs);
    return 0;
}

}  // namespace

int main(int argc, char **argv) {
    msptiSubscriberHandle subscriber = nullptr;
    msptiSubscribe(&subscriber, nullptr, nullptr);
    msptiActivityRegisterCallbacks(&request, &complete);
    // --fixed=collect|baseline BATCHES: a fixed amount of work, no timing (for callgrind).
    if (argc == 3 && std::string(argv[1]).rfind("--fixed=", 0) == 0) {
        int rc = run_fixed(std::string(argv[1]) == "--fixed=collect", std::atoi(argv[2]));
        msptiUnsubscribe(subscriber);
        return rc;
    }
    // --pairs=N [BATCHES]: strict pairs (run_pairs), 64 batches of 256 kernels per run by default.
    if ((argc == 2 || argc == 3) && std::string(argv[1]).rfind("--pairs=", 0) == 0) {
        int rc = run_pairs(std::atoi(argv[1] + 8), argc == 3 ? std::atoi(argv[2]) : 64);
        msptiUnsubscribe(subscriber);
        return rc;
    }
    // Defaults suited to a shared machine; any --benchmark_* flag on the command line overrides them.
    std::vector<char *> args(argv, argv + argc);
    static char reps[] = "--benchmark_repetitions=41";
    static char interleave[] = "--benchmark_enable_random_interleaving=true";
    static char min_time[] = "--benchmark_min_time=0.05";
    args.insert(args.begin() + 1, {reps, interleave, min_time});
    int n = static_cast<int>(args.size());
    benchmark::Initialize(&n, args.data());
    RatioReporter reporter;
    benchmark::RunSpecifiedBenchmarks(&reporter);
    benchmark::Shutdown();
    msptiUnsubscribe(subscriber);
    msptiActivityFlushAll(1);
    return 0;
}

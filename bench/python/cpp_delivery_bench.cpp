// Baseline for the Python delivery benchmarks: how fast the C++ Monitor API delivers records to
// a C++ callback, per record and per batch. Same workload as delivery_bench.py: N mstx marks
// collected into one 256 MB buffer, then one flush_all() timed (delivery only).
// Prints JSON: {"per_record_rps": ..., "batch_rps": ..., "records": N}.
#include <chrono>
#include <cstdio>
#include <cstdlib>

#define MSTX_NO_IMPL
#include "mspti/monitor.h"
#include "mstx/ms_tools_ext.h"

namespace {

struct Counter final : mspti::MarkCallback {
    uint64_t n = 0;
    void on_record(const mspti::MarkerData &) override { ++n; }
};

struct BatchCounter final : mspti::BatchCallback {
    uint64_t n = 0;
    void on_batch(const mspti::RecordBatch &b) override { n += b.count; }
};

template <typename Start>
double rate(mspti::MstxMonitor &m, int records, Start start, const uint64_t &delivered) {
    m.set_buffer_size(256);
    if (start() != mspti::MsptiResult::MSPTI_SUCCESS) std::exit(1);
    for (int i = 0; i < records; ++i) mstxMarkA("bench", nullptr);
    auto t0 = std::chrono::steady_clock::now();
    m.flush_all();
    auto t1 = std::chrono::steady_clock::now();
    m.stop();
    if (delivered != static_cast<uint64_t>(records)) {
        std::fprintf(stderr, "delivered %llu of %d\n", static_cast<unsigned long long>(delivered), records);
        std::exit(1);
    }
    return records / std::chrono::duration<double>(t1 - t0).count();
}

}  // namespace

int main(int argc, char **argv) {
    const int records = argc > 1 ? std::atoi(argv[1]) : 1000000;
    const int repeats = argc > 2 ? std::atoi(argv[2]) : 5;
    double best_record = 0, best_batch = 0;
    for (int r = 0; r < repeats; ++r) {
        mspti::MstxMonitor m;
        Counter c;
        double v = rate(
            m, records, [&] { return m.start(&c, nullptr); }, c.n);
        best_record = v > best_record ? v : best_record;
        BatchCounter b;
        v = rate(
            m, records, [&] { return m.start_batch(&b); }, b.n);
        best_batch = v > best_batch ? v : best_batch;
    }
    std::printf("{\"records\": %d, \"per_record_rps\": %.0f, \"batch_rps\": %.0f}\n", records, best_record, best_batch);
    return 0;
}

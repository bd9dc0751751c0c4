// Records per second delivered by the C++ Monitor API (libmspti_monitor), per record (typed
// MarkerData to a MarkCallback) and per batch (zero-copy RecordBatch), against the baseline
// measured in the same run: a raw C-ABI client whose complete callback walks each buffer with
// msptiActivityGetNextRecord. Every variant produces the same mstx marks on the benchmark thread
// and ends with a flush that returns once everything was delivered, so the time covers
// production, hand-over and consumption; the difference between variants is the delivery cost.
// The DeliveryOnly variants time just the hand-over and consumption: 1M records are produced
// into one 256 MB buffer with the clock paused, then the timed flush delivers them.
#include <atomic>
#include <cstdlib>
#include <mutex>
#include <type_traits>
#include <vector>

#include <benchmark/benchmark.h>

#include "mspti/monitor.h"
#include "mspti/mspti.h"
#include "mstx/ms_tools_ext.h"

namespace {

constexpr int kRecordsPerIteration = 100000;

void Produce() {
    for (int i = 0; i < kRecordsPerIteration; ++i) mstxMarkA("bench", nullptr);
}

// ---- baseline: the raw C ABI -----------------------------------------------------------------

class RawClient {
public:
    static inline size_t kBytes = 8 << 20;
    static void Request(uint8_t **buffer, size_t *size, size_t *max) {
        std::lock_guard<std::mutex> lock(mutex_);
        if (free_.empty()) {
            *buffer = static_cast<uint8_t *>(std::malloc(kBytes));
        } else {
            *buffer = free_.back();
            free_.pop_back();
        }
        *size = kBytes;
        *max = 0;
    }
    static void Complete(uint8_t *buffer, size_t, size_t valid) {
        msptiActivity *record = nullptr;
        uint64_t n = 0, sum = 0;
        while (msptiActivityGetNextRecord(buffer, valid, &record) == MSPTI_SUCCESS) {
            if (record->kind == MSPTI_ACTIVITY_KIND_MARKER) sum += reinterpret_cast<msptiActivityMarker *>(record)->id;
            ++n;
        }
        seen.fetch_add(n, std::memory_order_relaxed);
        checksum.fetch_add(sum, std::memory_order_relaxed);
        std::lock_guard<std::mutex> lock(mutex_);
        free_.push_back(buffer);
    }
    static inline std::atomic<uint64_t> seen{0};
    static inline std::atomic<uint64_t> checksum{0};

private:
    static inline std::mutex mutex_;
    static inline std::vector<uint8_t *> free_;
};

void BM_RawCAbiCompleteCallbackWalk(benchmark::State &state) {
    msptiSubscriberHandle handle = nullptr;
    msptiSubscribe(&handle, nullptr, nullptr);
    msptiActivityRegisterCallbacks(&RawClient::Request, &RawClient::Complete);
    msptiActivityEnable(MSPTI_ACTIVITY_KIND_MARKER);
    RawClient::seen = 0;
    for (auto _ : state) {
        Produce();
        msptiActivityFlushAll(1);
    }
    msptiActivityDisable(MSPTI_ACTIVITY_KIND_MARKER);
    msptiActivityFlushAll(1);
    msptiUnsubscribe(handle);
    if (RawClient::seen != static_cast<uint64_t>(state.iterations()) * kRecordsPerIteration)
        state.SkipWithError("records were lost");
    state.SetItemsProcessed(static_cast<int64_t>(RawClient::seen.load()));
}

// ---- the Monitor API ---------------------------------------------------------------------------

class CountingMarks : public mspti::MarkCallback {
public:
    void on_record(const mspti::MarkerData &m) override {
        ++seen;
        checksum += m.id + m.name.size();
    }
    uint64_t seen = 0;
    uint64_t checksum = 0;
};

void BM_MonitorPerRecordCallback(benchmark::State &state) {
    CountingMarks marks;
    mspti::MstxMonitor monitor;
    if (monitor.start(&marks, nullptr) != mspti::MsptiResult::MSPTI_SUCCESS) {
        state.SkipWithError("start failed");
        return;
    }
    for (auto _ : state) {
        Produce();
        monitor.flush_all();
    }
    monitor.stop();
    benchmark::DoNotOptimize(marks.checksum);
    if (marks.seen != static_cast<uint64_t>(state.iterations()) * kRecordsPerIteration)
        state.SkipWithError("records were lost");
    state.SetItemsProcessed(static_cast<int64_t>(marks.seen));
}

class CountingBatches : public mspti::BatchCallback {
public:
    void on_batch(const mspti::RecordBatch &b) override {
        const auto *bytes = static_cast<const uint8_t *>(b.data);
        for (size_t i = 0; i < b.count; ++i)
            checksum += reinterpret_cast<const msptiActivityMarker *>(bytes + i * b.stride)->id;
        seen += b.count;
        ++batches;
    }
    uint64_t seen = 0;
    uint64_t batches = 0;
    uint64_t checksum = 0;
};

void BM_MonitorBatchCallback(benchmark::State &state) {
    CountingBatches batches;
    mspti::MstxMonitor monitor;
    if (monitor.start_batch(&batches) != mspti::MsptiResult::MSPTI_SUCCESS) {
        state.SkipWithError("start failed");
        return;
    }
    for (auto _ : state) {
        Produce();
        monitor.flush_all();
    }
    monitor.stop();
    benchmark::DoNotOptimize(batches.checksum);
    if (batches.seen != static_cast<uint64_t>(state.iterations()) * kRecordsPerIteration)
        state.SkipWithError("records were lost");
    state.SetItemsProcessed(static_cast<int64_t>(batches.seen));
    state.counters["records_per_batch"] =
        batches.batches != 0 ? static_cast<double>(batches.seen) / static_cast<double>(batches.batches) : 0;
}

// Production alone (MARKER enabled, records dropped at the buffer request): the floor under all three.
void BM_ProductionOnlyNoBuffers(benchmark::State &state) {
    msptiSubscriberHandle handle = nullptr;
    msptiSubscribe(&handle, nullptr, nullptr);
    msptiActivityRegisterCallbacks([](uint8_t **b, size_t *s, size_t *m) { *b = nullptr, *s = 0, *m = 0; },
                                   [](uint8_t *, size_t, size_t) {});
    msptiActivityEnable(MSPTI_ACTIVITY_KIND_MARKER);
    for (auto _ : state) {
        Produce();
        msptiActivityFlushAll(1);
    }
    msptiActivityDisable(MSPTI_ACTIVITY_KIND_MARKER);
    msptiActivityFlushAll(1);
    msptiUnsubscribe(handle);
    state.SetItemsProcessed(state.iterations() * kRecordsPerIteration);
}

// ---- delivery only --------------------------------------------------------------------------

constexpr int kDeliveryRecords = 1000000;  // 56 MB: fits one 256 MB buffer

void ProduceUntimed(benchmark::State &state) {
    state.PauseTiming();
    for (int i = 0; i < kDeliveryRecords; ++i) mstxMarkA("bench", nullptr);
    state.ResumeTiming();
}

void BM_DeliveryOnly_RawCAbiWalk(benchmark::State &state) {
    RawClient::kBytes = size_t{256} << 20;
    msptiSubscriberHandle handle = nullptr;
    msptiSubscribe(&handle, nullptr, nullptr);
    msptiActivityRegisterCallbacks(&RawClient::Request, &RawClient::Complete);
    msptiActivityEnable(MSPTI_ACTIVITY_KIND_MARKER);
    RawClient::seen = 0;
    for (auto _ : state) {
        ProduceUntimed(state);
        msptiActivityFlushAll(1);
    }
    msptiActivityDisable(MSPTI_ACTIVITY_KIND_MARKER);
    msptiActivityFlushAll(1);
    msptiUnsubscribe(handle);
    if (RawClient::seen != static_cast<uint64_t>(state.iterations()) * kDeliveryRecords)
        state.SkipWithError("records were lost");
    state.SetItemsProcessed(static_cast<int64_t>(RawClient::seen.load()));
}

template <typename Callback>
void DeliveryOnly(benchmark::State &state, Callback &cb) {
    mspti::MstxMonitor monitor;
    monitor.set_buffer_size(256);
    mspti::MsptiResult r;
    if constexpr (std::is_base_of_v<mspti::BatchCallback, Callback>)
        r = monitor.start_batch(&cb);
    else
        r = monitor.start(&cb, nullptr);
    if (r != mspti::MsptiResult::MSPTI_SUCCESS) {
        state.SkipWithError("start failed");
        return;
    }
    for (auto _ : state) {
        ProduceUntimed(state);
        monitor.flush_all();
    }
    monitor.stop();
    monitor.set_buffer_size(8);
    if (cb.seen != static_cast<uint64_t>(state.iterations()) * kDeliveryRecords)
        state.SkipWithError("records were lost");
    state.SetItemsProcessed(static_cast<int64_t>(cb.seen));
}

void BM_DeliveryOnly_MonitorPerRecord(benchmark::State &state) {
    CountingMarks marks;
    DeliveryOnly(state, marks);
    benchmark::DoNotOptimize(marks.checksum);
}

void BM_DeliveryOnly_MonitorBatch(benchmark::State &state) {
    CountingBatches batches;
    DeliveryOnly(state, batches);
    benchmark::DoNotOptimize(batches.checksum);
}

}  // namespace

BENCHMARK(BM_DeliveryOnly_RawCAbiWalk)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_DeliveryOnly_MonitorPerRecord)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_DeliveryOnly_MonitorBatch)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_ProductionOnlyNoBuffers)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_RawCAbiCompleteCallbackWalk)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_MonitorPerRecordCallback)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_MonitorBatchCallback)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_MAIN();

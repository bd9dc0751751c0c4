// The virtual NPU from many threads at once, through the C++ facade the bindings wrap: 8 threads run
// matmul, add and host copies on their own tensors, first each on its own stream, then all on shared
// ones (one explicit stream and the device's default stream), for VNPU_THREAD_TEST_SECONDS (default 10)
// in all. Each result is checked against the same arithmetic done on the host. Tensors are dropped
// while work that used them may still be queued, so the facade's deferred frees race with the other
// threads' synchronisations, as they do under Python and Java threads.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "vnpu_facade.h"

namespace api = vnpu::api;

namespace {

constexpr int kThreads = 8;
constexpr int64_t kN = 24;  // square matrices

double test_seconds() {
    const char *text = std::getenv("VNPU_THREAD_TEST_SECONDS");
    const double value = text != nullptr ? std::atof(text) : 0.0;
    return value > 0 ? value : 10.0;
}

std::vector<float> host_matmul(const std::vector<float> &a, const std::vector<float> &b) {
    std::vector<float> c(static_cast<size_t>(kN * kN), 0.0f);
    for (int64_t i = 0; i < kN; ++i)
        for (int64_t k = 0; k < kN; ++k)
            for (int64_t j = 0; j < kN; ++j) c[i * kN + j] += a[i * kN + k] * b[k * kN + j];
    return c;
}

/// One thread's work until `deadline`: its own inputs (small integers, so float sums are exact),
/// a fresh tensor per step, every result read back and compared. Returns the first mismatch, or "".
std::string run_worker(int index, const api::Stream *stream, std::chrono::steady_clock::time_point deadline,
                       uint64_t &steps) {
    std::vector<float> a(static_cast<size_t>(kN * kN));
    std::vector<float> b(a.size());
    for (size_t i = 0; i < a.size(); ++i) {
        a[i] = static_cast<float>((static_cast<int>(i) + index) % 5);
        b[i] = static_cast<float>((static_cast<int>(i) * 3 + index) % 4);
    }
    const std::vector<float> product = host_matmul(a, b);
    std::vector<float> sum(a.size());
    for (size_t i = 0; i < a.size(); ++i) sum[i] = product[i] + a[i];
    while (std::chrono::steady_clock::now() < deadline) {
        api::Tensor ta(a, {kN, kN}, 0);
        api::Tensor tb = api::Tensor::empty({kN, kN}, api::kFloat32, 0);
        tb.copy_from_host(b.data(), b.size() * sizeof(float));
        api::Tensor c = api::matmul(ta, tb, stream);
        api::Tensor d = api::add(c, ta, stream);
        // Intermediate results go out of scope with work still queued on them, every other step.
        if (steps % 2 == 0) {
            const std::vector<float> got = d.to_host();
            if (got != sum)
                return "thread " + std::to_string(index) + ": wrong matmul+add at step " + std::to_string(steps);
        }
        ++steps;
    }
    return "";
}

void run_phase(bool shared, double seconds) {
    const auto deadline =
        std::chrono::steady_clock::now() +
        std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(seconds));
    api::Stream common(0);
    std::vector<std::string> errors(kThreads);
    std::vector<uint64_t> steps(kThreads, 0);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
            try {
                api::set_device(0);
                std::unique_ptr<api::Stream> own;
                const api::Stream *stream = nullptr;  // the default stream: shared by every thread
                if (!shared) {
                    own = std::make_unique<api::Stream>(0);
                    stream = own.get();
                } else if (t % 2 == 0) {
                    stream = &common;
                }
                errors[t] = run_worker(t, stream, deadline, steps[t]);
            } catch (const std::exception &e) {
                errors[t] = "thread " + std::to_string(t) + ": " + e.what();
            }
        });
    }
    for (auto &thread : threads) thread.join();
    for (int t = 0; t < kThreads; ++t) {
        EXPECT_EQ(errors[t], "");
        EXPECT_GT(steps[t], 0u) << "thread " << t << " made no step";
    }
    api::synchronize(0);
}

}  // namespace

TEST(VnpuFacadeThreads, EightThreadsOnTheirOwnStreams) { run_phase(false, test_seconds() / 2); }

TEST(VnpuFacadeThreads, EightThreadsOnSharedStreams) { run_phase(true, test_seconds() / 2); }

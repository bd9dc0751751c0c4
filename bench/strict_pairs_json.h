// The JSON the KERNEL strict-pairs benchmarks print (bench_kernel_overhead --pairs, bench_kernel_floor
// --pairs), which bench/kernel_before_after.py, bench/kernel_floor.py and write_performance_md.py read.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

/// Per kernel, one value per run: [0] the baseline's runs, [1] the collection's.
struct StrictPairs {
    std::vector<double> cpu[2], host[2], wall[2];
};

inline void PrintStrictPairs(int pairs, double kernels_per_run, double records_per_kernel, const StrictPairs &p) {
    auto list = [](const std::vector<double> &v) {
        std::string out;
        for (double x : v) out += (out.empty() ? "" : ", ") + std::to_string(x);
        return "[" + out + "]";
    };
    std::printf(
        "{\"pairs\": %d, \"kernels_per_run\": %.0f, \"records_per_kernel\": %.4f,\n"
        " \"cpu_ns_per_kernel\": {\"baseline\": %s,\n  \"collect\": %s},\n"
        " \"host_thread_cpu_ns_per_kernel\": {\"baseline\": %s,\n  \"collect\": %s},\n"
        " \"wall_ns_per_kernel\": {\"baseline\": %s,\n  \"collect\": %s}}\n",
        pairs, kernels_per_run, records_per_kernel, list(p.cpu[0]).c_str(), list(p.cpu[1]).c_str(),
        list(p.host[0]).c_str(), list(p.host[1]).c_str(), list(p.wall[0]).c_str(), list(p.wall[1]).c_str());
}

// CANN's rank table (the JSON file of HcclCommInitClusterInfo), the subset the virtual HCCL reads:
//   {"version": "1.0", "status": "completed", "server_count": "1",
//    "server_list": [{"server_id": "10.0.0.1",
//                     "device": [{"device_id": "0", "device_ip": "...", "rank_id": "0"}, ...]}, ...]}
// Numbers may be JSON strings (as CANN writes them) or numbers. Other keys are ignored.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace vnpu::hccl {

struct RankEntry {
    std::string server_id;
    int32_t device_id = -1;
};

struct RankTable {
    std::vector<RankEntry> ranks;  // by rank_id: 0..n-1, each exactly once
    uint64_t content_hash = 0;  // of the file's bytes: names the communicator
};

/// Reads and checks a rank table; false with a one-line reason in `error` when it is malformed.
bool load_rank_table(const char *path, RankTable &table, std::string &error);

}  // namespace vnpu::hccl

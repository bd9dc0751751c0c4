#include "config.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "kind_words.h"
#include "record.h"
#include "wall_clock.h"

namespace mspti_trace {

namespace {

bool parse_u64(const char *name, uint64_t &out, std::string &error) {
    const char *v = std::getenv(name);
    if (v == nullptr || *v == '\0') return true;
    char *end = nullptr;
    errno = 0;
    unsigned long long x = std::strtoull(v, &end, 10);
    if (errno != 0 || *end != '\0') {
        error = std::string(name) + "=" + v + " is not a non-negative integer";
        return false;
    }
    out = x;
    return true;
}

int env_int(const char *name) {
    const char *v = std::getenv(name);
    if (v == nullptr || *v == '\0') return -1;
    char *end = nullptr;
    long x = std::strtol(v, &end, 10);
    return (*end == '\0' && x >= 0 && x < (1L << 30)) ? static_cast<int>(x) : -1;
}

bool add_kind(const std::string &word, std::vector<msptiActivityKind> &kinds) {
    for (const KindWord &row : kKindWords) {
        if (word != row.name) continue;
        for (msptiActivityKind k : row.kinds)
            if (k != MSPTI_ACTIVITY_KIND_INVALID) kinds.push_back(k);
        return true;
    }
    return false;
}

}  // namespace

bool Config::load(std::string &error) {
    const char *d = std::getenv("MSPTI_TRACE_DIR");
    if (d == nullptr || *d == '\0') return true;
    dir = d;
    const char *f = std::getenv("MSPTI_TRACE_FORMAT");
    std::string fmt = f != nullptr ? f : "pftrace";
    if (fmt == "pftrace" || fmt.empty())
        format = Format::kPftrace;
    else if (fmt == "json")
        format = Format::kJson;
    else if (fmt == "json.gz")
        format = Format::kJsonGz;
    else if (fmt == "sqlite")
        format = Format::kSqlite;
    else {
        error = "MSPTI_TRACE_FORMAT=" + fmt + " is not one of pftrace, json, json.gz, sqlite";
        return false;
    }
    const char *k = std::getenv("MSPTI_TRACE_KINDS");
    std::string list = (k != nullptr && *k != '\0') ? k : kDefaultKinds;
    std::stringstream ss(list);
    std::string word;
    while (std::getline(ss, word, ',')) {
        if (word.empty()) continue;
        if (!add_kind(word, kinds)) {
            error = "MSPTI_TRACE_KINDS: unknown kind '" + word + "' (" + kKindList + ")";
            return false;
        }
    }
    start_ns = now_epoch_ns();
    uint64_t delay = 0, duration = 0, flush = flush_ms;
    if (!parse_u64("MSPTI_TRACE_START_NS", start_ns, error) || !parse_u64("MSPTI_TRACE_DELAY_NS", delay, error) ||
        !parse_u64("MSPTI_TRACE_DURATION_NS", duration, error) || !parse_u64("MSPTI_TRACE_FLUSH_MS", flush, error))
        return false;
    window_begin = start_ns + delay;
    if (duration != 0) window_end = window_begin + duration;
    if (flush == 0 || flush > 3600000) {
        error = "MSPTI_TRACE_FLUSH_MS must be in 1..3600000";
        return false;
    }
    flush_ms = static_cast<uint32_t>(flush);
    uint64_t buffers = max_buffers;
    if (!parse_u64("MSPTI_TRACE_MAX_BUFFERS", buffers, error)) return false;
    if (buffers == 0 || buffers > 4096) {
        error = "MSPTI_TRACE_MAX_BUFFERS must be in 1..4096";
        return false;
    }
    max_buffers = static_cast<uint32_t>(buffers);
    const char *c = std::getenv("MSPTI_TRACE_CAPTURE_RANGE");
    if (c != nullptr) capture_range = c;
    // torchrun/vnpu.run's variables, else Open MPI's (a rank started by mpirun has only those).
    rank = env_int("RANK");
    if (rank < 0) rank = env_int("OMPI_COMM_WORLD_RANK");
    world_size = env_int("WORLD_SIZE");
    if (world_size < 0) world_size = env_int("OMPI_COMM_WORLD_SIZE");
    local_rank = env_int("LOCAL_RANK");
    if (local_rank < 0) local_rank = env_int("OMPI_COMM_WORLD_LOCAL_RANK");
    return true;
}

std::string Config::file_path(uint32_t pid) const {
    std::string name = dir + "/trace.";
    if (rank >= 0) name += "rank" + std::to_string(rank) + ".";
    name += "pid" + std::to_string(pid);
    switch (format) {
    case Format::kPftrace: return name + ".pftrace";
    case Format::kJson: return name + ".json";
    case Format::kJsonGz: return name + ".json.gz";
    case Format::kSqlite: return name + ".sqlite";
    }
    return name;
}

uint64_t comm_type_size(uint32_t t) {
    switch (t) {
    case MSPTI_ACTIVITY_COMMUNICATION_INT8:
    case MSPTI_ACTIVITY_COMMUNICATION_UINT8:
    case MSPTI_ACTIVITY_COMMUNICATION_HIF8:
    case MSPTI_ACTIVITY_COMMUNICATION_FP8E4M3:
    case MSPTI_ACTIVITY_COMMUNICATION_FP8E5M2:
    case MSPTI_ACTIVITY_COMMUNICATION_FP8E8M0: return 1;
    case MSPTI_ACTIVITY_COMMUNICATION_INT16:
    case MSPTI_ACTIVITY_COMMUNICATION_UINT16:
    case MSPTI_ACTIVITY_COMMUNICATION_FP16:
    case MSPTI_ACTIVITY_COMMUNICATION_BFP16: return 2;
    case MSPTI_ACTIVITY_COMMUNICATION_INT32:
    case MSPTI_ACTIVITY_COMMUNICATION_UINT32:
    case MSPTI_ACTIVITY_COMMUNICATION_FP32: return 4;
    case MSPTI_ACTIVITY_COMMUNICATION_INT64:
    case MSPTI_ACTIVITY_COMMUNICATION_UINT64:
    case MSPTI_ACTIVITY_COMMUNICATION_FP64: return 8;
    case MSPTI_ACTIVITY_COMMUNICATION_INT128: return 16;
    default: return 0;
    }
}

}  // namespace mspti_trace

#include "hccl_agreement.h"

#include <vector>

namespace vnpu::hccl {
namespace {

const char *data_type_name(uint32_t type) {
    static const char *const kNames[] = {"int8",   "int16",   "int32",  "fp16",    "fp32",    "int64",
                                         "uint64", "uint8",   "uint16", "uint32",  "fp64",    "bfp16",
                                         "int128", "type 13", "hif8",   "fp8e4m3", "fp8e5m2", "fp8e8m0"};
    return type < sizeof kNames / sizeof kNames[0] ? kNames[type] : "unknown type";
}

const char *reduce_op_name(uint32_t op) {
    static const char *const kNames[] = {"sum", "prod", "max", "min"};
    return op < 4 ? kNames[op] : "unknown op";
}

/// "<what> differs: <v> on rank(s) ..., <w> on rank(s) ..." (values in order of first appearance), or "".
template <class Value, class Name>
std::string field_disagreement(const char *what, const OpDescriptor *all, uint32_t n, Value value, Name name) {
    std::vector<uint64_t> values;
    std::vector<std::vector<uint32_t>> holders;
    for (uint32_t r = 0; r < n; ++r) {
        const uint64_t v = value(all[r]);
        size_t i = 0;
        while (i < values.size() && values[i] != v) ++i;
        if (i == values.size()) {
            values.push_back(v);
            holders.emplace_back();
        }
        holders[i].push_back(r);
    }
    if (values.size() < 2) {
        return "";
    }
    std::string out = std::string(what) + " differs: ";
    for (size_t i = 0; i < values.size(); ++i) {
        out += (i != 0 ? ", " : "") + name(values[i]) + " on " +
               rank_list(holders[i].data(), static_cast<uint32_t>(holders[i].size()));
    }
    return out;
}

}  // namespace

const char *op_api_name(uint32_t op) {
    static const char *const kNames[] = {"no operation",  "HcclAllReduce",     "HcclBroadcast",
                                         "HcclAllGather", "HcclReduceScatter", "HcclReduce",
                                         "HcclScatter",   "HcclAlltoAll",      "HcclBarrier"};
    return op < sizeof kNames / sizeof kNames[0] ? kNames[op] : "an unknown operation";
}

const char *result_name(HcclResult code) {
    switch (code) {
    case HCCL_SUCCESS: return "HCCL_SUCCESS";
    case HCCL_E_PARA: return "HCCL_E_PARA";
    case HCCL_E_PTR: return "HCCL_E_PTR";
    case HCCL_E_MEMORY: return "HCCL_E_MEMORY";
    case HCCL_E_INTERNAL: return "HCCL_E_INTERNAL";
    case HCCL_E_NOT_SUPPORT: return "HCCL_E_NOT_SUPPORT";
    case HCCL_E_NOT_FOUND: return "HCCL_E_NOT_FOUND";
    case HCCL_E_UNAVAIL: return "HCCL_E_UNAVAIL";
    case HCCL_E_SYSCALL: return "HCCL_E_SYSCALL";
    case HCCL_E_TIMEOUT: return "HCCL_E_TIMEOUT";
    default: return "HCCL error";
    }
}

std::string rank_list(const uint32_t *ranks, uint32_t n) {
    std::string out = n == 1 ? "rank " : "ranks ";
    for (uint32_t i = 0; i < n; ++i) {
        out += (i != 0 ? ", " : "") + std::to_string(ranks[i]);
    }
    return out;
}

std::string disagreement(const OpDescriptor *all, uint32_t n) {
    auto number = [](uint64_t v) { return std::to_string(v); };
    const std::string parts[] = {
        field_disagreement(
            "operation", all, n, [](const OpDescriptor &d) { return d.op; },
            [](uint64_t v) { return std::string(op_api_name(static_cast<uint32_t>(v))); }),
        field_disagreement(
            "data type", all, n, [](const OpDescriptor &d) { return d.data_type; },
            [](uint64_t v) { return std::string(data_type_name(static_cast<uint32_t>(v))); }),
        field_disagreement(
            "reduction", all, n, [](const OpDescriptor &d) { return d.reduce_op; },
            [](uint64_t v) { return std::string(reduce_op_name(static_cast<uint32_t>(v))); }),
        field_disagreement(
            "root", all, n, [](const OpDescriptor &d) { return d.root; }, number),
        field_disagreement(
            "count", all, n, [](const OpDescriptor &d) { return d.count; }, number),
    };
    std::string out;
    for (const std::string &part : parts) {
        if (!part.empty()) {
            out += (out.empty() ? "" : "; ") + part;
        }
    }
    return out;
}

}  // namespace vnpu::hccl

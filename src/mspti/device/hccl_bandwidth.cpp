#include "device/hccl_bandwidth.h"

namespace mspti::device {

uint64_t hccl_type_size(int32_t dataType) {
    // Indexed by HcclDataType: INT8 INT16 INT32 FP16 FP32 INT64 UINT64 UINT8 UINT16 UINT32 FP64 BFP16 INT128.
    static constexpr uint64_t kSizes[] = {1, 2, 4, 2, 4, 8, 8, 1, 2, 4, 8, 2, 16};
    if (dataType < 0 || dataType >= static_cast<int32_t>(sizeof(kSizes) / sizeof(kSizes[0]))) return 0;
    return kSizes[dataType];
}

double hccl_bandwidth(uint64_t bytes, uint64_t startNs, uint64_t endNs) {
    if (bytes == 0 || endNs <= startNs) return 0.0;
    return static_cast<double>(bytes) / static_cast<double>(endNs - startNs);
}

}  // namespace mspti::device

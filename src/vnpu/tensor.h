// aclTensor / aclScalar / aclIntArray and the checks operators share (shape, dtype, data range).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "aclnn/acl_meta.h"
#include "aclnn/opdev/op_errno.h"

struct aclTensor {
    std::vector<int64_t> viewDims;
    std::vector<int64_t> strides;  // elements, one per view dim
    int64_t offset = 0;            // elements from tensorData to the first element
    aclDataType dataType = ACL_FLOAT;
    aclFormat format = ACL_FORMAT_ND;
    std::vector<int64_t> storageDims;
    void *data = nullptr;
};

struct aclScalar {
    aclDataType dataType = ACL_FLOAT;
    alignas(16) unsigned char value[16] = {};
};

struct aclIntArray {
    std::vector<int64_t> values;
};

namespace vnpu {

/// A tensor as a kernel sees it: copied at phase 1 so later changes to the descriptor do not matter.
struct TensorView {
    void *data = nullptr;
    aclDataType dataType = ACL_FLOAT;
    std::vector<int64_t> dims;
    std::vector<int64_t> strides;
    int64_t offset = 0;

    int64_t numel() const;
};

/// Resolves a live tensor handle; nullptr if it is not one.
std::shared_ptr<aclTensor> findTensor(const aclTensor *tensor);
/// Resolves a live scalar handle; nullptr if it is not one.
std::shared_ptr<aclScalar> findScalar(const aclScalar *scalar);

/// Checks a tensor an operator will touch and copies it: a live handle (else PARAM_NULLPTR / PARAM_INVALID),
/// at most 8 dims, and non-empty data inside one device allocation.
aclnnStatus viewOf(const aclTensor *tensor, TensorView &out);

/// The scalar's value as double (for alpha).
double scalarAsDouble(const aclScalar &scalar);

} // namespace vnpu

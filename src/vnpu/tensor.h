// aclTensor / aclScalar / aclIntArray and the checks operators share (shape, dtype, data range).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "aclnn/acl_meta.h"
#include "aclnn/opdev/op_errno.h"

struct aclTensor {
    std::vector<int64_t> view_dims;
    std::vector<int64_t> strides;  // elements, one per view dim
    int64_t offset = 0;  // elements from tensor_data to the first element
    aclDataType data_type = ACL_FLOAT;
    aclFormat format = ACL_FORMAT_ND;
    std::vector<int64_t> storage_dims;
    void *data = nullptr;
};

struct aclScalar {
    aclDataType data_type = ACL_FLOAT;
    alignas(16) unsigned char value[16] = {};
};

struct aclIntArray {
    std::vector<int64_t> values;
};

namespace vnpu {

/// A tensor as a kernel sees it: copied at phase 1 so later changes to the descriptor do not matter.
struct TensorView {
    void *data = nullptr;
    aclDataType data_type = ACL_FLOAT;
    std::vector<int64_t> dims;
    std::vector<int64_t> strides;
    int64_t offset = 0;

    int64_t numel() const;
};

/// Resolves a live tensor handle; nullptr if it is not one.
std::shared_ptr<aclTensor> find_tensor(const aclTensor *tensor);
/// Resolves a live scalar handle; nullptr if it is not one.
std::shared_ptr<aclScalar> find_scalar(const aclScalar *scalar);

/// Checks a tensor an operator will touch and copies it: a live handle (else PARAM_NULLPTR / PARAM_INVALID),
/// at most 8 dims, and non-empty data inside one device allocation.
aclnnStatus view_of(const aclTensor *tensor, TensorView &out);

/// The scalar's value as double (for alpha).
double scalar_as_double(const aclScalar &scalar);

}  // namespace vnpu

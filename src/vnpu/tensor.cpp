// aclnn meta API: creation, destruction and getters of tensors, scalars and int arrays.
#include "tensor.h"

#include <algorithm>
#include <cstring>

#include "dtype_access.h"
#include "export.h"
#include "handle_registry.h"
#include "memory_registry.h"

namespace vnpu {
namespace {

HandleRegistry<aclTensor> &tensors() {
    static auto *registry = new HandleRegistry<aclTensor>;
    return *registry;
}

HandleRegistry<aclScalar> &scalars() {
    static auto *registry = new HandleRegistry<aclScalar>;
    return *registry;
}

HandleRegistry<aclIntArray> &int_arrays() {
    static auto *registry = new HandleRegistry<aclIntArray>;
    return *registry;
}

constexpr size_t kMaxDims = 8;

aclnnStatus copy_out(const std::vector<int64_t> &values, int64_t **array, uint64_t *count) {
    if (array == nullptr || count == nullptr) {
        return ACLNN_ERR_PARAM_NULLPTR;
    }
    *array = new int64_t[values.empty() ? 1 : values.size()];  // the caller frees with delete[], as in CANN
    std::copy(values.begin(), values.end(), *array);
    *count = values.size();
    return ACLNN_SUCCESS;
}

}  // namespace

int64_t TensorView::numel() const {
    int64_t n = 1;
    for (int64_t d : dims) {
        n *= d;
    }
    return n;
}

std::shared_ptr<aclTensor> find_tensor(const aclTensor *tensor) { return tensors().find(tensor); }

std::shared_ptr<aclScalar> find_scalar(const aclScalar *scalar) { return scalars().find(scalar); }

aclnnStatus view_of(const aclTensor *tensor, TensorView &out) {
    if (tensor == nullptr) {
        return ACLNN_ERR_PARAM_NULLPTR;
    }
    auto live = find_tensor(tensor);
    if (!live || live->view_dims.size() > kMaxDims || aclDataTypeSize(live->data_type) == 0) {
        return ACLNN_ERR_PARAM_INVALID;
    }
    out = TensorView{live->data, live->data_type, live->view_dims, live->strides, live->offset};
    if (out.numel() == 0) {
        return ACLNN_SUCCESS;
    }
    int64_t last_element = live->offset;
    for (size_t i = 0; i < out.dims.size(); ++i) {
        last_element += (out.dims[i] - 1) * out.strides[i];
    }
    const auto bytes = static_cast<size_t>(last_element + 1) * aclDataTypeSize(live->data_type);
    if (live->data == nullptr) {
        return ACLNN_ERR_PARAM_NULLPTR;
    }
    if (!MemoryRegistry::get().contains(live->data, bytes, MemoryKind::Device)) {
        return ACLNN_ERR_PARAM_INVALID;
    }
    return ACLNN_SUCCESS;
}

double scalar_as_double(const aclScalar &scalar) { return load_element<double>(scalar.value, 0, scalar.data_type); }

}  // namespace vnpu

extern "C" {

VNPU_EXPORT aclTensor *aclCreateTensor(const int64_t *view_dims, uint64_t view_dims_num, aclDataType data_type,
                                       const int64_t *stride, int64_t offset, aclFormat format,
                                       const int64_t *storage_dims, uint64_t storage_dims_num, void *tensor_data) {
    if ((view_dims == nullptr && view_dims_num > 0) || (storage_dims == nullptr && storage_dims_num > 0) ||
        (stride == nullptr && view_dims_num > 0) || view_dims_num > vnpu::kMaxDims || offset < 0) {
        return nullptr;
    }
    auto tensor = std::make_shared<aclTensor>();
    tensor->view_dims.assign(view_dims, view_dims + view_dims_num);
    tensor->strides.assign(stride, stride + view_dims_num);
    tensor->storage_dims.assign(storage_dims, storage_dims + storage_dims_num);
    if (std::any_of(tensor->view_dims.begin(), tensor->view_dims.end(), [](int64_t d) { return d < 0; }) ||
        std::any_of(tensor->strides.begin(), tensor->strides.end(), [](int64_t s) { return s < 0; })) {
        return nullptr;
    }
    tensor->offset = offset;
    tensor->data_type = data_type;
    tensor->format = format;
    tensor->data = tensor_data;
    return static_cast<aclTensor *>(vnpu::tensors().add(std::move(tensor)));
}

VNPU_EXPORT aclnnStatus aclDestroyTensor(const aclTensor *tensor) {
    if (tensor == nullptr) {
        return ACLNN_SUCCESS;
    }
    return vnpu::tensors().remove(tensor) ? ACLNN_SUCCESS : ACLNN_ERR_PARAM_INVALID;
}

VNPU_EXPORT aclScalar *aclCreateScalar(void *value, aclDataType data_type) {
    const size_t size = aclDataTypeSize(data_type);
    if (value == nullptr || size == 0 || size > sizeof(aclScalar::value)) {
        return nullptr;
    }
    auto scalar = std::make_shared<aclScalar>();
    scalar->data_type = data_type;
    std::memcpy(scalar->value, value, size);  // copied now: the caller's variable may go away
    return static_cast<aclScalar *>(vnpu::scalars().add(std::move(scalar)));
}

VNPU_EXPORT aclnnStatus aclDestroyScalar(const aclScalar *scalar) {
    if (scalar == nullptr) {
        return ACLNN_SUCCESS;
    }
    return vnpu::scalars().remove(scalar) ? ACLNN_SUCCESS : ACLNN_ERR_PARAM_INVALID;
}

VNPU_EXPORT aclIntArray *aclCreateIntArray(const int64_t *value, uint64_t size) {
    if (value == nullptr && size > 0) {
        return nullptr;
    }
    auto array = std::make_shared<aclIntArray>();
    array->values.assign(value, value + size);
    return static_cast<aclIntArray *>(vnpu::int_arrays().add(std::move(array)));
}

VNPU_EXPORT aclnnStatus aclDestroyIntArray(const aclIntArray *array) {
    if (array == nullptr) {
        return ACLNN_SUCCESS;
    }
    return vnpu::int_arrays().remove(array) ? ACLNN_SUCCESS : ACLNN_ERR_PARAM_INVALID;
}

VNPU_EXPORT aclnnStatus aclGetViewShape(const aclTensor *tensor, int64_t **view_dims, uint64_t *view_dims_num) {
    auto live = vnpu::find_tensor(tensor);
    if (!live) {
        return ACLNN_ERR_PARAM_NULLPTR;
    }
    return vnpu::copy_out(live->view_dims, view_dims, view_dims_num);
}

VNPU_EXPORT aclnnStatus aclGetViewStrides(const aclTensor *tensor, int64_t **strides_value, uint64_t *strides_num) {
    auto live = vnpu::find_tensor(tensor);
    if (!live) {
        return ACLNN_ERR_PARAM_NULLPTR;
    }
    return vnpu::copy_out(live->strides, strides_value, strides_num);
}

VNPU_EXPORT aclnnStatus aclGetViewOffset(const aclTensor *tensor, int64_t *offset) {
    auto live = vnpu::find_tensor(tensor);
    if (!live || offset == nullptr) {
        return ACLNN_ERR_PARAM_NULLPTR;
    }
    *offset = live->offset;
    return ACLNN_SUCCESS;
}

VNPU_EXPORT aclnnStatus aclGetStorageShape(const aclTensor *tensor, int64_t **storage_dims,
                                           uint64_t *storage_dims_num) {
    auto live = vnpu::find_tensor(tensor);
    if (!live) {
        return ACLNN_ERR_PARAM_NULLPTR;
    }
    return vnpu::copy_out(live->storage_dims, storage_dims, storage_dims_num);
}

VNPU_EXPORT aclnnStatus aclGetFormat(const aclTensor *tensor, aclFormat *format) {
    auto live = vnpu::find_tensor(tensor);
    if (!live || format == nullptr) {
        return ACLNN_ERR_PARAM_NULLPTR;
    }
    *format = live->format;
    return ACLNN_SUCCESS;
}

VNPU_EXPORT aclnnStatus aclGetDataType(const aclTensor *tensor, aclDataType *data_type) {
    auto live = vnpu::find_tensor(tensor);
    if (!live || data_type == nullptr) {
        return ACLNN_ERR_PARAM_NULLPTR;
    }
    *data_type = live->data_type;
    return ACLNN_SUCCESS;
}

VNPU_EXPORT aclnnStatus aclGetRawTensorAddr(const aclTensor *tensor, void **addr) {
    auto live = vnpu::find_tensor(tensor);
    if (!live || addr == nullptr) {
        return ACLNN_ERR_PARAM_NULLPTR;
    }
    *addr = live->data;
    return ACLNN_SUCCESS;
}

VNPU_EXPORT aclnnStatus aclSetRawTensorAddr(aclTensor *tensor, void *addr) {
    auto live = vnpu::find_tensor(tensor);
    if (!live) {
        return ACLNN_ERR_PARAM_NULLPTR;
    }
    live->data = addr;  // not synchronised with a concurrent phase 1 on the same tensor, as in CANN
    return ACLNN_SUCCESS;
}

VNPU_EXPORT aclnnStatus aclnnInit(const char *config_path) {
    (void)config_path;
    return ACLNN_SUCCESS;
}

VNPU_EXPORT aclnnStatus aclnnFinalize(void) { return ACLNN_SUCCESS; }

}  // extern "C"

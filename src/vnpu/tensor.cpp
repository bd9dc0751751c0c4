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

HandleRegistry<aclIntArray> &intArrays() {
    static auto *registry = new HandleRegistry<aclIntArray>;
    return *registry;
}

constexpr size_t kMaxDims = 8;

aclnnStatus copyOut(const std::vector<int64_t> &values, int64_t **array, uint64_t *count) {
    if (array == nullptr || count == nullptr) {
        return ACLNN_ERR_PARAM_NULLPTR;
    }
    *array = new int64_t[values.empty() ? 1 : values.size()];  // the caller frees with delete[], as in CANN
    std::copy(values.begin(), values.end(), *array);
    *count = values.size();
    return ACLNN_SUCCESS;
}

} // namespace

int64_t TensorView::numel() const {
    int64_t n = 1;
    for (int64_t d : dims) {
        n *= d;
    }
    return n;
}

std::shared_ptr<aclTensor> findTensor(const aclTensor *tensor) { return tensors().find(tensor); }

std::shared_ptr<aclScalar> findScalar(const aclScalar *scalar) { return scalars().find(scalar); }

aclnnStatus viewOf(const aclTensor *tensor, TensorView &out) {
    if (tensor == nullptr) {
        return ACLNN_ERR_PARAM_NULLPTR;
    }
    auto live = findTensor(tensor);
    if (!live || live->viewDims.size() > kMaxDims || aclDataTypeSize(live->dataType) == 0) {
        return ACLNN_ERR_PARAM_INVALID;
    }
    out = TensorView{live->data, live->dataType, live->viewDims, live->strides, live->offset};
    if (out.numel() == 0) {
        return ACLNN_SUCCESS;
    }
    int64_t lastElement = live->offset;
    for (size_t i = 0; i < out.dims.size(); ++i) {
        lastElement += (out.dims[i] - 1) * out.strides[i];
    }
    const auto bytes = static_cast<size_t>(lastElement + 1) * aclDataTypeSize(live->dataType);
    if (live->data == nullptr) {
        return ACLNN_ERR_PARAM_NULLPTR;
    }
    if (!MemoryRegistry::get().contains(live->data, bytes, MemoryKind::Device)) {
        return ACLNN_ERR_PARAM_INVALID;
    }
    return ACLNN_SUCCESS;
}

double scalarAsDouble(const aclScalar &scalar) { return loadElement<double>(scalar.value, 0, scalar.dataType); }

} // namespace vnpu

extern "C" {

VNPU_EXPORT aclTensor *aclCreateTensor(const int64_t *viewDims, uint64_t viewDimsNum, aclDataType dataType,
                                       const int64_t *stride, int64_t offset, aclFormat format,
                                       const int64_t *storageDims, uint64_t storageDimsNum, void *tensorData) {
    if ((viewDims == nullptr && viewDimsNum > 0) || (storageDims == nullptr && storageDimsNum > 0) ||
        (stride == nullptr && viewDimsNum > 0) || viewDimsNum > vnpu::kMaxDims || offset < 0) {
        return nullptr;
    }
    auto tensor = std::make_shared<aclTensor>();
    tensor->viewDims.assign(viewDims, viewDims + viewDimsNum);
    tensor->strides.assign(stride, stride + viewDimsNum);
    tensor->storageDims.assign(storageDims, storageDims + storageDimsNum);
    if (std::any_of(tensor->viewDims.begin(), tensor->viewDims.end(), [](int64_t d) { return d < 0; }) ||
        std::any_of(tensor->strides.begin(), tensor->strides.end(), [](int64_t s) { return s < 0; })) {
        return nullptr;
    }
    tensor->offset = offset;
    tensor->dataType = dataType;
    tensor->format = format;
    tensor->data = tensorData;
    return static_cast<aclTensor *>(vnpu::tensors().add(std::move(tensor)));
}

VNPU_EXPORT aclnnStatus aclDestroyTensor(const aclTensor *tensor) {
    if (tensor == nullptr) {
        return ACLNN_SUCCESS;
    }
    return vnpu::tensors().remove(tensor) ? ACLNN_SUCCESS : ACLNN_ERR_PARAM_INVALID;
}

VNPU_EXPORT aclScalar *aclCreateScalar(void *value, aclDataType dataType) {
    const size_t size = aclDataTypeSize(dataType);
    if (value == nullptr || size == 0 || size > sizeof(aclScalar::value)) {
        return nullptr;
    }
    auto scalar = std::make_shared<aclScalar>();
    scalar->dataType = dataType;
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
    return static_cast<aclIntArray *>(vnpu::intArrays().add(std::move(array)));
}

VNPU_EXPORT aclnnStatus aclDestroyIntArray(const aclIntArray *array) {
    if (array == nullptr) {
        return ACLNN_SUCCESS;
    }
    return vnpu::intArrays().remove(array) ? ACLNN_SUCCESS : ACLNN_ERR_PARAM_INVALID;
}

VNPU_EXPORT aclnnStatus aclGetViewShape(const aclTensor *tensor, int64_t **viewDims, uint64_t *viewDimsNum) {
    auto live = vnpu::findTensor(tensor);
    if (!live) {
        return ACLNN_ERR_PARAM_NULLPTR;
    }
    return vnpu::copyOut(live->viewDims, viewDims, viewDimsNum);
}

VNPU_EXPORT aclnnStatus aclGetViewStrides(const aclTensor *tensor, int64_t **stridesValue, uint64_t *stridesNum) {
    auto live = vnpu::findTensor(tensor);
    if (!live) {
        return ACLNN_ERR_PARAM_NULLPTR;
    }
    return vnpu::copyOut(live->strides, stridesValue, stridesNum);
}

VNPU_EXPORT aclnnStatus aclGetViewOffset(const aclTensor *tensor, int64_t *offset) {
    auto live = vnpu::findTensor(tensor);
    if (!live || offset == nullptr) {
        return ACLNN_ERR_PARAM_NULLPTR;
    }
    *offset = live->offset;
    return ACLNN_SUCCESS;
}

VNPU_EXPORT aclnnStatus aclGetStorageShape(const aclTensor *tensor, int64_t **storageDims,
                                           uint64_t *storageDimsNum) {
    auto live = vnpu::findTensor(tensor);
    if (!live) {
        return ACLNN_ERR_PARAM_NULLPTR;
    }
    return vnpu::copyOut(live->storageDims, storageDims, storageDimsNum);
}

VNPU_EXPORT aclnnStatus aclGetFormat(const aclTensor *tensor, aclFormat *format) {
    auto live = vnpu::findTensor(tensor);
    if (!live || format == nullptr) {
        return ACLNN_ERR_PARAM_NULLPTR;
    }
    *format = live->format;
    return ACLNN_SUCCESS;
}

VNPU_EXPORT aclnnStatus aclGetDataType(const aclTensor *tensor, aclDataType *dataType) {
    auto live = vnpu::findTensor(tensor);
    if (!live || dataType == nullptr) {
        return ACLNN_ERR_PARAM_NULLPTR;
    }
    *dataType = live->dataType;
    return ACLNN_SUCCESS;
}

VNPU_EXPORT aclnnStatus aclGetRawTensorAddr(const aclTensor *tensor, void **addr) {
    auto live = vnpu::findTensor(tensor);
    if (!live || addr == nullptr) {
        return ACLNN_ERR_PARAM_NULLPTR;
    }
    *addr = live->data;
    return ACLNN_SUCCESS;
}

VNPU_EXPORT aclnnStatus aclSetRawTensorAddr(aclTensor *tensor, void *addr) {
    auto live = vnpu::findTensor(tensor);
    if (!live) {
        return ACLNN_ERR_PARAM_NULLPTR;
    }
    live->data = addr;  // not synchronised with a concurrent phase 1 on the same tensor, as in CANN
    return ACLNN_SUCCESS;
}

VNPU_EXPORT aclnnStatus aclnnInit(const char *configPath) {
    (void)configPath;
    return ACLNN_SUCCESS;
}

VNPU_EXPORT aclnnStatus aclnnFinalize(void) { return ACLNN_SUCCESS; }

} // extern "C"

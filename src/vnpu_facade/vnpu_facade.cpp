#include "vnpu_facade.h"

#include <algorithm>
#include <cstring>
#include <deque>
#include <exception>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "acl/acl.h"
#include "aclnn/acl_meta.h"
#include "aclnnop/aclnn_add.h"
#include "aclnnop/aclnn_matmul.h"
#include "aclnnop/aclnn_mul.h"
#include "aclnnop/aclnn_relu.h"
#include "hccl/hccl.h"
#include "../vnpu/shape.h"  // the runtime's own shape rules
#include "vnpu/vnpu_hccl.h"

namespace vnpu::api {

CallError::CallError(const std::string &function, long code, const std::string &detail)
    : std::runtime_error(function + " failed with code " + std::to_string(code) +
                         (detail.empty() ? "" : ": " + detail)),
      function_(function),
      code_(code) {}

namespace {

void check(const char *what, long code) {
    if (code != 0) throw CallError(what, code);
}

/** For synchronisations: a failed task (a collective) left its message for aclGetRecentErrMsg. */
void check_sync(const char *what, long code) {
    if (code == 0) return;
    const char *why = aclGetRecentErrMsg();
    throw CallError(what, code, why != nullptr ? why : "");
}

int resolve_device(int device) {
    int n = device_count();
    if (device < 0) device = current_device();
    if (device >= n) {
        throw std::invalid_argument("device " + std::to_string(device) + " out of range (0.." + std::to_string(n - 1) +
                                    ")");
    }
    return device;
}

/** Makes `device` the thread's current device for a scope, then restores the previous one (if any). */
class DeviceScope {
public:
    explicit DeviceScope(int device) : device_(device) {
        had_previous_ = aclrtGetDevice(&previous_) == ACL_SUCCESS;
        if (!had_previous_ || previous_ != device_) check("aclrtSetDevice", aclrtSetDevice(device_));
    }
    ~DeviceScope() {
        if (had_previous_ && previous_ != device_) aclrtSetDevice(previous_);
    }
    DeviceScope(const DeviceScope &) = delete;
    DeviceScope &operator=(const DeviceScope &) = delete;

private:
    int32_t device_;
    int32_t previous_ = -1;
    bool had_previous_ = false;
};

/** "(64, 32)": a shape as Python writes a tuple, for error messages. */
std::string shape_text(const std::vector<int64_t> &shape) {
    std::string text = "(";
    for (size_t i = 0; i < shape.size(); ++i) text += (i == 0 ? "" : ", ") + std::to_string(shape[i]);
    return text + (shape.size() == 1 ? ",)" : ")");
}

int64_t count_of(const std::vector<int64_t> &shape) {
    int64_t n = 1;
    for (int64_t d : shape) {
        if (d < 0) throw std::invalid_argument("negative dimension in shape " + shape_text(shape));
        n *= d;
    }
    return n;
}

struct DTypeInfo {
    int dtype;
    const char *name;
    size_t size;
};
constexpr DTypeInfo kDTypes[] = {{kFloat32, "float32", 4}, {kFloat16, "float16", 2}, {kInt8, "int8", 1},
                                 {kInt32, "int32", 4},     {kUInt8, "uint8", 1},     {kInt16, "int16", 2},
                                 {kUInt16, "uint16", 2},   {kUInt32, "uint32", 4},   {kInt64, "int64", 8},
                                 {kUInt64, "uint64", 8},   {kFloat64, "float64", 8}, {kBool, "bool", 1}};

const DTypeInfo *find_dtype(int dtype) {
    for (const DTypeInfo &info : kDTypes) {
        if (info.dtype == dtype) return &info;
    }
    return nullptr;
}

std::string dtype_name(int dtype) {
    const DTypeInfo *info = find_dtype(dtype);
    return info != nullptr ? info->name : "dtype " + std::to_string(dtype);
}

/** The element type both operands share, if the operators take it. */
int operand_dtype(const Tensor &a, const Tensor *b) {
    const int dtype = a.dtype();
    if (b != nullptr && b->dtype() != dtype) {
        throw DTypeError("operands of different dtypes (" + dtype_name(dtype) + " and " + dtype_name(b->dtype()) + ")");
    }
    if (dtype != kFloat32 && dtype != kFloat16 && dtype != kInt32 && dtype != kInt64) {
        throw DTypeError("operators do not take " + dtype_name(dtype) + " tensors");
    }
    return dtype;
}

HcclDataType hccl_dtype(const Tensor &t) {
    switch (t.dtype()) {
    case kFloat32: return HCCL_DATA_TYPE_FP32;
    case kFloat16: return HCCL_DATA_TYPE_FP16;
    case kInt32: return HCCL_DATA_TYPE_INT32;
    case kInt64: return HCCL_DATA_TYPE_INT64;
    default: throw DTypeError("collectives do not take " + dtype_name(t.dtype()) + " tensors");
    }
}

/** An aclTensor describing a contiguous tensor; destroyed with the scope. */
class Descriptor {
public:
    explicit Descriptor(const Tensor &t) {
        std::vector<int64_t> shape = t.shape();
        std::vector<int64_t> strides(shape.size(), 1);
        for (size_t i = shape.size(); i-- > 1;) strides[i - 1] = strides[i] * shape[i];
        int64_t scalar_dims[1] = {1};  // a 0-D tensor still passes a valid array
        int64_t *dims = shape.empty() ? scalar_dims : shape.data();
        int64_t *steps = shape.empty() ? scalar_dims : strides.data();
        handle_ = aclCreateTensor(dims, shape.size(), static_cast<aclDataType>(t.dtype()), steps, 0, ACL_FORMAT_ND,
                                  dims, shape.size(), t.data_ptr());
        if (handle_ == nullptr)
            throw CallError("aclCreateTensor", -1, "shape " + shape_text(shape) + ", " + dtype_name(t.dtype()));
    }
    ~Descriptor() { aclDestroyTensor(handle_); }
    Descriptor(const Descriptor &) = delete;
    Descriptor &operator=(const Descriptor &) = delete;
    aclTensor *get() const { return handle_; }

private:
    aclTensor *handle_ = nullptr;
};

int same_device(const Tensor &a, const Tensor &b) {
    if (a.device() != b.device()) {
        throw std::invalid_argument("operands on different devices (" + std::to_string(a.device()) + " and " +
                                    std::to_string(b.device()) + ")");
    }
    return a.device();
}

aclrtStream stream_for(int device, const Stream *stream) {
    if (stream != nullptr && stream->device() != device) {
        throw std::invalid_argument("stream of device " + std::to_string(stream->device()) +
                                    " used with operands on device " + std::to_string(device));
    }
    Stream s = stream != nullptr ? *stream : Stream::default_stream(device);
    return reinterpret_cast<aclrtStream>(static_cast<intptr_t>(s.handle()));
}

/** Phase 2 of an aclnn op: workspace, launch on the stream. */
template <typename Launch>
void launch(const char *name, aclnnStatus phase1, const uint64_t *workspace_size_out,
            aclOpExecutor *const *executor_out, int device, aclrtStream stream, Launch fn) {
    // The sizes are read here, after phase 1 (the caller's argument list ran it) wrote them.
    const uint64_t workspace_size = *workspace_size_out;
    aclOpExecutor *executor = *executor_out;
    check((std::string(name) + "GetWorkspaceSize").c_str(), phase1);
    std::optional<Tensor> workspace;
    void *ws = nullptr;
    if (workspace_size != 0) {
        workspace = Tensor::empty({static_cast<int64_t>(workspace_size)}, kUInt8, device);
        ws = workspace->data_ptr();
    }
    check(name, fn(ws, workspace_size, executor, stream));
}

// Device memory that queued work may still use: freed by a synchronisation of its device that began
// after the free (work that used it was queued before the last reference went, so that
// synchronisation waited for it), or once 64 frees are pending on a device. Each free gets a sequence
// number; a synchronisation only releases the frees numbered before its start, so one thread's
// synchronisation never frees memory that another thread's work, queued meanwhile, still uses.
constexpr size_t kMaxDeferred = 64;
struct DeferredFrees {
    std::mutex mutex;
    uint64_t next = 0;  // sequence number of the next free
    std::deque<std::pair<uint64_t, void *>> pending;  // in sequence order
};
DeferredFrees &deferred(int device) {
    static auto *lists = new std::vector<DeferredFrees>(static_cast<size_t>(std::max(device_count(), 1)));
    return (*lists)[static_cast<size_t>(device)];  // device was checked against device_count()
}

/** The sequence number that a synchronisation starting now may release up to (exclusive). */
uint64_t deferred_mark(int device) {
    DeferredFrees &d = deferred(device);
    std::lock_guard<std::mutex> lock(d.mutex);
    return d.next;
}

void release_deferred(int device, uint64_t before) {
    std::vector<void *> pointers;
    {
        DeferredFrees &d = deferred(device);
        std::lock_guard<std::mutex> lock(d.mutex);
        while (!d.pending.empty() && d.pending.front().first < before) {
            pointers.push_back(d.pending.front().second);
            d.pending.pop_front();
        }
    }
    for (void *p : pointers) aclrtFree(p);
}

/** Synchronises `device` from this thread, keeping the thread's current device. */
void synchronize_device(int device) {
    const uint64_t mark = deferred_mark(device);
    {
        DeviceScope scope(device);
        check_sync("aclrtSynchronizeDevice", aclrtSynchronizeDevice());
    }
    release_deferred(device, mark);
}

void defer_free(int device, void *p) {
    bool flush = false;
    {
        DeferredFrees &d = deferred(device);
        std::lock_guard<std::mutex> lock(d.mutex);
        d.pending.emplace_back(d.next++, p);
        flush = d.pending.size() >= kMaxDeferred;
    }
    if (flush) {
        try {
            synchronize_device(device);
        } catch (const std::exception &) {
            // freed at the next synchronisation instead
        }
    }
}

std::string to_hex(const HcclRootInfo &info) {
    size_t n = sizeof(info.internal);
    while (n > 0 && info.internal[n - 1] == '\0') --n;  // the trailing zeros are implied
    static const char kDigits[] = "0123456789abcdef";
    std::string out;
    out.reserve(2 * n);
    for (size_t i = 0; i < n; ++i) {
        const auto byte = static_cast<unsigned char>(info.internal[i]);
        out.push_back(kDigits[byte >> 4]);
        out.push_back(kDigits[byte & 15]);
    }
    return out;
}

HcclRootInfo from_hex(const std::string &hex) {
    HcclRootInfo info{};
    if (hex.size() % 2 != 0 || hex.size() / 2 > sizeof(info.internal)) {
        throw std::invalid_argument("root info must be an even number of hex digits, at most " +
                                    std::to_string(2 * sizeof(info.internal)));
    }
    auto digit = [](char c) {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        throw std::invalid_argument(std::string("root info has a non-hex character '") + c + "'");
    };
    for (size_t i = 0; i < hex.size() / 2; ++i) {
        info.internal[i] = static_cast<char>(digit(hex[2 * i]) * 16 + digit(hex[2 * i + 1]));
    }
    return info;
}

}  // namespace

size_t dtype_size(int dtype) {
    const DTypeInfo *info = find_dtype(dtype);
    if (info == nullptr) throw DTypeError("unsupported " + dtype_name(dtype));
    return info->size;
}

// ---- devices ----------------------------------------------------------------------------------------

int device_count() {
    uint32_t n = 0;
    check("aclrtGetDeviceCount", aclrtGetDeviceCount(&n));
    return static_cast<int>(n);
}

void set_device(int device) {
    if (device < 0 || device >= device_count()) {
        throw std::invalid_argument("device " + std::to_string(device) + " out of range (0.." +
                                    std::to_string(device_count() - 1) + ")");
    }
    check("aclrtSetDevice", aclrtSetDevice(device));
}

int current_device() {
    int32_t d = -1;
    if (aclrtGetDevice(&d) != ACL_SUCCESS || d < 0) {
        check("aclrtSetDevice", aclrtSetDevice(0));
        return 0;
    }
    return d;
}

void synchronize(int device) { synchronize_device(resolve_device(device)); }

std::vector<int64_t> broadcast_shapes(const std::vector<int64_t> &a, const std::vector<int64_t> &b) {
    std::vector<int64_t> out;
    if (!vnpu::broadcast_shape(a, b, out)) {
        throw std::invalid_argument("shapes cannot be broadcast together: " + shape_text(a) + " and " + shape_text(b));
    }
    return out;
}

std::vector<int64_t> matmul_shape(const std::vector<int64_t> &a, const std::vector<int64_t> &b) {
    std::vector<int64_t> out;
    if (a.empty() || b.empty()) {
        throw std::invalid_argument("matmul needs at least 1-D operands: " + shape_text(a) + " @ " + shape_text(b));
    }
    if (!vnpu::matmul_shape(a, b, out)) {
        throw std::invalid_argument("matmul shape mismatch: " + shape_text(a) + " @ " + shape_text(b));
    }
    return out;
}

// ---- streams ----------------------------------------------------------------------------------------

struct Stream::Impl {
    int device = 0;
    int id = -1;
    aclrtStream handle = nullptr;
    ~Impl() {
        if (handle != nullptr) aclrtDestroyStream(handle);
    }
};

Stream::Stream(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}

Stream::Stream(int device) : impl_(std::make_shared<Impl>()) {
    impl_->device = resolve_device(device);
    DeviceScope scope(impl_->device);
    check("aclrtCreateStream", aclrtCreateStream(&impl_->handle));
    int32_t id = -1;
    check("aclrtStreamGetId", aclrtStreamGetId(impl_->handle, &id));
    impl_->id = id;
}

Stream Stream::default_stream(int device) {
    static std::mutex mutex;
    static std::vector<std::shared_ptr<Impl>> *streams = new std::vector<std::shared_ptr<Impl>>;  // for the process
    device = resolve_device(device);
    std::lock_guard<std::mutex> lock(mutex);
    if (streams->size() <= static_cast<size_t>(device)) streams->resize(static_cast<size_t>(device) + 1);
    auto &slot = (*streams)[static_cast<size_t>(device)];
    if (!slot) slot = Stream(device).impl_;
    return Stream(slot);
}

void Stream::synchronize() const { check_sync("aclrtSynchronizeStream", aclrtSynchronizeStream(impl_->handle)); }
int Stream::device() const { return impl_->device; }
int Stream::id() const { return impl_->id; }
int64_t Stream::handle() const { return static_cast<int64_t>(reinterpret_cast<intptr_t>(impl_->handle)); }

// ---- tensors ----------------------------------------------------------------------------------------

struct Tensor::Impl {
    int device = 0;
    int dtype = kFloat32;
    std::vector<int64_t> shape;
    void *data = nullptr;
    ~Impl() {
        if (data != nullptr) defer_free(device, data);  // queued work may still use it
    }
};

Tensor Tensor::empty(const std::vector<int64_t> &shape, int dtype, int device) {
    const size_t bytes = static_cast<size_t>(count_of(shape)) * dtype_size(dtype);
    Tensor t;
    t.impl_ = std::make_shared<Impl>();
    t.impl_->device = resolve_device(device);
    t.impl_->dtype = dtype;
    t.impl_->shape = shape;
    DeviceScope scope(t.impl_->device);
    check("aclrtMalloc", aclrtMalloc(&t.impl_->data, std::max<size_t>(bytes, 1), ACL_MEM_MALLOC_HUGE_FIRST));
    return t;
}

Tensor::Tensor(const std::vector<float> &data, const std::vector<int64_t> &shape, int device) {
    if (static_cast<int64_t>(data.size()) != count_of(shape)) {
        throw std::invalid_argument("data has " + std::to_string(data.size()) + " elements, shape " +
                                    shape_text(shape) + " needs " + std::to_string(count_of(shape)));
    }
    *this = empty(shape, kFloat32, device);
    copy_from_host(data.data(), data.size() * sizeof(float));
}

void Tensor::copy_from_host(const void *data, size_t bytes) {
    if (static_cast<int64_t>(bytes) != nbytes()) {
        throw std::invalid_argument("host buffer has " + std::to_string(bytes) + " bytes, the tensor " +
                                    std::to_string(nbytes()));
    }
    if (bytes != 0) check("aclrtMemcpy", aclrtMemcpy(impl_->data, bytes, data, bytes, ACL_MEMCPY_HOST_TO_DEVICE));
}

void Tensor::copy_to_host(void *data, size_t bytes) const {
    if (static_cast<int64_t>(bytes) != nbytes()) {
        throw std::invalid_argument("host buffer has " + std::to_string(bytes) + " bytes, the tensor " +
                                    std::to_string(nbytes()));
    }
    synchronize_device(impl_->device);
    if (bytes != 0) check("aclrtMemcpy", aclrtMemcpy(data, bytes, impl_->data, bytes, ACL_MEMCPY_DEVICE_TO_HOST));
}

std::vector<float> Tensor::to_host() const {
    if (impl_->dtype != kFloat32) throw DTypeError("to_host() copies float32 tensors, not " + dtype_name(impl_->dtype));
    std::vector<float> out(static_cast<size_t>(numel()));
    copy_to_host(out.data(), out.size() * sizeof(float));
    return out;
}

std::vector<int64_t> Tensor::shape() const { return impl_->shape; }
int64_t Tensor::numel() const { return count_of(impl_->shape); }
int64_t Tensor::nbytes() const { return numel() * static_cast<int64_t>(dtype_size(impl_->dtype)); }
int Tensor::dtype() const { return impl_->dtype; }
int Tensor::device() const { return impl_->device; }
int64_t Tensor::address() const { return static_cast<int64_t>(reinterpret_cast<intptr_t>(impl_->data)); }
void *Tensor::data_ptr() const { return impl_->data; }

// ---- operators --------------------------------------------------------------------------------------

Tensor add(const Tensor &a, const Tensor &b, const Stream *stream, double alpha) {
    int device = same_device(a, b);
    int dtype = operand_dtype(a, &b);
    aclrtStream s = stream_for(device, stream);
    Tensor out = Tensor::empty(broadcast_shapes(a.shape(), b.shape()), dtype, device);
    Descriptor da(a), db(b), dout(out);
    float value = static_cast<float>(alpha);
    aclScalar *scalar = aclCreateScalar(&value, ACL_FLOAT);
    if (scalar == nullptr) throw CallError("aclCreateScalar", -1, "alpha " + std::to_string(alpha));
    uint64_t ws = 0;
    aclOpExecutor *ex = nullptr;
    try {
        launch("aclnnAdd", aclnnAddGetWorkspaceSize(da.get(), db.get(), scalar, dout.get(), &ws, &ex), &ws, &ex, device,
               s, aclnnAdd);
    } catch (...) {
        aclDestroyScalar(scalar);
        throw;
    }
    aclDestroyScalar(scalar);
    return out;
}

Tensor mul(const Tensor &a, const Tensor &b, const Stream *stream) {
    int device = same_device(a, b);
    int dtype = operand_dtype(a, &b);
    aclrtStream s = stream_for(device, stream);
    Tensor out = Tensor::empty(broadcast_shapes(a.shape(), b.shape()), dtype, device);
    Descriptor da(a), db(b), dout(out);
    uint64_t ws = 0;
    aclOpExecutor *ex = nullptr;
    launch("aclnnMul", aclnnMulGetWorkspaceSize(da.get(), db.get(), dout.get(), &ws, &ex), &ws, &ex, device, s,
           aclnnMul);
    return out;
}

Tensor matmul(const Tensor &a, const Tensor &b, const Stream *stream) {
    int device = same_device(a, b);
    int dtype = operand_dtype(a, &b);
    aclrtStream s = stream_for(device, stream);
    Tensor out = Tensor::empty(matmul_shape(a.shape(), b.shape()), dtype, device);
    Descriptor da(a), db(b), dout(out);
    uint64_t ws = 0;
    aclOpExecutor *ex = nullptr;
    launch("aclnnMatmul", aclnnMatmulGetWorkspaceSize(da.get(), db.get(), dout.get(), 0, &ws, &ex), &ws, &ex, device, s,
           aclnnMatmul);
    return out;
}

Tensor relu(const Tensor &a, const Stream *stream) {
    int device = a.device();
    int dtype = operand_dtype(a, nullptr);
    aclrtStream s = stream_for(device, stream);
    Tensor out = Tensor::empty(a.shape(), dtype, device);
    Descriptor da(a), dout(out);
    uint64_t ws = 0;
    aclOpExecutor *ex = nullptr;
    launch("aclnnRelu", aclnnReluGetWorkspaceSize(da.get(), dout.get(), &ws, &ex), &ws, &ex, device, s, aclnnRelu);
    return out;
}

// ---- communicators ----------------------------------------------------------------------------------

struct Communicator::Impl {
    HcclComm comm = nullptr;
    int rank = 0;
    int world_size = 0;
    HcclComm live() const {
        if (comm == nullptr)
            throw std::invalid_argument("the communicator (rank " + std::to_string(rank) + " of " +
                                        std::to_string(world_size) + ") was destroyed");
        return comm;
    }
    /** The communicator, for a new collective: an earlier one's failure is raised here (`api` named). */
    HcclComm healthy(const char *api) const {
        HcclComm c = live();
        HcclResult code = HCCL_SUCCESS;
        check("HcclGetCommAsyncError", HcclGetCommAsyncError(c, &code));
        if (code != HCCL_SUCCESS) {
            char why[1024] = {};
            vnpuHcclGetCommErrorMessage(c, why, sizeof why);
            throw CallError(api, code, std::string("an earlier collective failed: ") + why);
        }
        return c;
    }
};

namespace {

aclrtStream stream_of(const Tensor &t, const Stream *stream) { return stream_for(t.device(), stream); }

}  // namespace

std::string Communicator::new_root_info() {
    HcclRootInfo info{};
    check("HcclGetRootInfo", HcclGetRootInfo(&info));
    return to_hex(info);
}

std::string Communicator::world_root_info() {
    HcclRootInfo info{};
    check("vnpuHcclGetWorldRootInfo", vnpuHcclGetWorldRootInfo(&info));
    return to_hex(info);
}

Communicator::Communicator(int world_size, const std::string &root_info, int rank) : impl_(std::make_shared<Impl>()) {
    if (world_size < 1 || rank < 0 || rank >= world_size) {
        throw std::invalid_argument("rank " + std::to_string(rank) + " is not in 0.." + std::to_string(world_size - 1));
    }
    const HcclRootInfo info = from_hex(root_info);
    check("HcclCommInitRootInfo",
          HcclCommInitRootInfo(static_cast<uint32_t>(world_size), &info, static_cast<uint32_t>(rank), &impl_->comm));
    impl_->rank = rank;
    impl_->world_size = world_size;
}

int Communicator::rank() const { return impl_->rank; }
int Communicator::world_size() const { return impl_->world_size; }

std::string Communicator::name() const {
    char name[128] = {};
    check("HcclGetCommName", HcclGetCommName(impl_->live(), name));
    return name;
}

int Communicator::async_error() const {
    HcclResult code = HCCL_SUCCESS;
    check("HcclGetCommAsyncError", HcclGetCommAsyncError(impl_->live(), &code));
    return static_cast<int>(code);
}

void Communicator::all_reduce(const Tensor &tensor, int op, const Stream *stream) {
    const HcclDataType dtype = hccl_dtype(tensor);
    check("HcclAllReduce",
          HcclAllReduce(tensor.data_ptr(), tensor.data_ptr(), static_cast<uint64_t>(tensor.numel()), dtype,
                        static_cast<HcclReduceOp>(op), impl_->healthy("HcclAllReduce"), stream_of(tensor, stream)));
}

void Communicator::broadcast(const Tensor &tensor, int root, const Stream *stream) {
    const HcclDataType dtype = hccl_dtype(tensor);
    check("HcclBroadcast",
          HcclBroadcast(tensor.data_ptr(), static_cast<uint64_t>(tensor.numel()), dtype, static_cast<uint32_t>(root),
                        impl_->healthy("HcclBroadcast"), stream_of(tensor, stream)));
}

void Communicator::all_gather(const Tensor &output, const Tensor &input, const Stream *stream) {
    const HcclDataType dtype = hccl_dtype(input);
    if (output.dtype() != input.dtype()) {
        throw DTypeError("output and input of different dtypes (" + dtype_name(output.dtype()) + " and " +
                         dtype_name(input.dtype()) + ")");
    }
    if (output.numel() != input.numel() * impl_->world_size) {
        throw std::invalid_argument(
            "output must hold world_size * input.numel elements: " + std::to_string(output.numel()) +
            " != " + std::to_string(impl_->world_size) + " * " + std::to_string(input.numel()));
    }
    check("HcclAllGather", HcclAllGather(input.data_ptr(), output.data_ptr(), static_cast<uint64_t>(input.numel()),
                                         dtype, impl_->healthy("HcclAllGather"), stream_of(input, stream)));
}

void Communicator::reduce_scatter(const Tensor &output, const Tensor &input, int op, const Stream *stream) {
    const HcclDataType dtype = hccl_dtype(input);
    if (output.dtype() != input.dtype()) {
        throw DTypeError("output and input of different dtypes (" + dtype_name(output.dtype()) + " and " +
                         dtype_name(input.dtype()) + ")");
    }
    if (input.numel() != output.numel() * impl_->world_size) {
        throw std::invalid_argument(
            "input must hold world_size * output.numel elements: " + std::to_string(input.numel()) +
            " != " + std::to_string(impl_->world_size) + " * " + std::to_string(output.numel()));
    }
    check("HcclReduceScatter",
          HcclReduceScatter(input.data_ptr(), output.data_ptr(), static_cast<uint64_t>(output.numel()), dtype,
                            static_cast<HcclReduceOp>(op), impl_->healthy("HcclReduceScatter"),
                            stream_of(input, stream)));
}

void Communicator::barrier(const Stream *stream) {
    Stream s = stream != nullptr ? *stream : Stream::default_stream(-1);
    check("HcclBarrier",
          HcclBarrier(impl_->healthy("HcclBarrier"), reinterpret_cast<aclrtStream>(static_cast<intptr_t>(s.handle()))));
    s.synchronize();
}

void Communicator::destroy() {
    if (impl_->comm == nullptr) return;
    // A failed collective fails the synchronisation: the communicator still goes, then that is raised.
    std::exception_ptr failed;
    try {
        synchronize(-1);
    } catch (...) {
        failed = std::current_exception();
    }
    HcclComm comm = impl_->comm;
    impl_->comm = nullptr;
    check("HcclCommDestroy", HcclCommDestroy(comm));
    if (failed) std::rethrow_exception(failed);
}

// ---- in-process all-reduce --------------------------------------------------------------------------

std::vector<float> all_reduce_sum(int ranks, const std::vector<float> &data) {
    if (ranks < 1 || ranks > device_count()) {
        throw std::invalid_argument("ranks must be in 1.." + std::to_string(device_count()) +
                                    " (device_count()), not " + std::to_string(ranks));
    }
    if (data.size() % static_cast<size_t>(ranks) != 0) {
        throw std::invalid_argument("data size must be a multiple of ranks: " + std::to_string(data.size()) +
                                    " elements, " + std::to_string(ranks) + " ranks");
    }
    const size_t n = data.size() / static_cast<size_t>(ranks);
    std::vector<int32_t> devices(static_cast<size_t>(ranks));
    for (int r = 0; r < ranks; ++r) devices[static_cast<size_t>(r)] = r;
    std::vector<HcclComm> comms(static_cast<size_t>(ranks));
    check("HcclCommInitAll", HcclCommInitAll(static_cast<uint32_t>(ranks), devices.data(), comms.data()));
    std::vector<float> out(data.size());
    std::vector<std::exception_ptr> errors(static_cast<size_t>(ranks));
    std::vector<std::thread> threads;
    for (int r = 0; r < ranks; ++r) {
        threads.emplace_back([&, r] {
            try {
                const size_t off = static_cast<size_t>(r) * n;
                Tensor send(std::vector<float>(data.begin() + static_cast<ptrdiff_t>(off),
                                               data.begin() + static_cast<ptrdiff_t>(off + n)),
                            {static_cast<int64_t>(n)}, r);
                Tensor recv = Tensor::empty({static_cast<int64_t>(n)}, kFloat32, r);
                Stream stream(r);
                check("HcclAllReduce",
                      HcclAllReduce(send.data_ptr(), recv.data_ptr(), n, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM,
                                    comms[static_cast<size_t>(r)],
                                    reinterpret_cast<aclrtStream>(static_cast<intptr_t>(stream.handle()))));
                stream.synchronize();
                std::vector<float> host = recv.to_host();
                std::copy(host.begin(), host.end(), out.begin() + static_cast<ptrdiff_t>(off));
            } catch (...) {
                errors[static_cast<size_t>(r)] = std::current_exception();
            }
        });
    }
    for (auto &t : threads) t.join();
    for (HcclComm c : comms) HcclCommDestroy(c);
    for (auto &e : errors)
        if (e) std::rethrow_exception(e);
    return out;
}

}  // namespace vnpu::api

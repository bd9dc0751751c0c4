#include "vnpu_facade.h"

#include <algorithm>
#include <exception>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>

#include "acl/acl.h"
#include "aclnn/acl_meta.h"
#include "aclnnop/aclnn_add.h"
#include "aclnnop/aclnn_matmul.h"
#include "aclnnop/aclnn_mul.h"
#include "aclnnop/aclnn_relu.h"
#include "hccl/hccl.h"

namespace vnpu {
namespace {

void check(const char *what, long code) {
    if (code != 0) throw std::runtime_error(std::string(what) + " failed with code " + std::to_string(code));
}

int resolve_device(int device) {
    int n = device_count();
    if (device < 0) device = current_device();
    if (device >= n) {
        throw std::invalid_argument("device " + std::to_string(device) + " out of range (0.." +
                                    std::to_string(n - 1) + ")");
    }
    return device;
}

int64_t count_of(const std::vector<int64_t> &shape) {
    int64_t n = 1;
    for (int64_t d : shape) {
        if (d < 0) throw std::invalid_argument("negative dimension in shape");
        n *= d;
    }
    return n;
}

std::vector<int64_t> broadcast(const std::vector<int64_t> &a, const std::vector<int64_t> &b) {
    size_t n = std::max(a.size(), b.size());
    std::vector<int64_t> out(n);
    for (size_t i = 0; i < n; ++i) {
        int64_t x = i < n - a.size() ? 1 : a[i - (n - a.size())];
        int64_t y = i < n - b.size() ? 1 : b[i - (n - b.size())];
        if (x != y && x != 1 && y != 1) throw std::invalid_argument("shapes cannot be broadcast together");
        out[i] = x == 1 ? y : x;
    }
    return out;
}

std::vector<int64_t> matmul_shape(std::vector<int64_t> a, std::vector<int64_t> b) {
    if (a.empty() || b.empty()) throw std::invalid_argument("matmul needs at least 1-D operands");
    bool a1 = a.size() == 1, b1 = b.size() == 1;
    if (a1) a.insert(a.begin(), 1);
    if (b1) b.push_back(1);
    if (a.back() != b[b.size() - 2]) throw std::invalid_argument("matmul shape mismatch");
    std::vector<int64_t> out = broadcast(std::vector<int64_t>(a.begin(), a.end() - 2),
                                         std::vector<int64_t>(b.begin(), b.end() - 2));
    out.push_back(a[a.size() - 2]);
    out.push_back(b.back());
    if (a1) out.erase(out.end() - 2);
    if (b1) out.pop_back();
    return out;
}

/** An aclTensor describing a contiguous tensor; destroyed with the scope. */
class Descriptor {
public:
    explicit Descriptor(const Tensor &t) {
        std::vector<int64_t> shape = t.shape();
        std::vector<int64_t> strides(shape.size(), 1);
        for (size_t i = shape.size(); i-- > 1;) strides[i - 1] = strides[i] * shape[i];
        handle_ = aclCreateTensor(shape.data(), shape.size(), ACL_FLOAT, strides.data(), 0, ACL_FORMAT_ND,
                                  shape.data(), shape.size(), t.data_ptr());
        if (handle_ == nullptr) throw std::runtime_error("aclCreateTensor failed");
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
void launch(const char *name, aclnnStatus phase1, const uint64_t *workspace_size_out, aclOpExecutor *const *executor_out,
            int device, aclrtStream stream, Launch fn) {
    // The sizes are read here, after phase 1 (the caller's argument list ran it) wrote them.
    const uint64_t workspace_size = *workspace_size_out;
    aclOpExecutor *executor = *executor_out;
    check((std::string(name) + "GetWorkspaceSize").c_str(), phase1);
    std::optional<Tensor> workspace;
    void *ws = nullptr;
    if (workspace_size != 0) {
        workspace = Tensor::empty({static_cast<int64_t>((workspace_size + 3) / 4)}, device);
        ws = workspace->data_ptr();
    }
    check(name, fn(ws, workspace_size, executor, stream));
}

// Device memory that queued work may still use: freed after the device's next synchronisation
// (as the Python vnpu package does), or once 64 frees are pending on a device.
constexpr size_t kMaxDeferred = 64;
std::mutex g_deferred_mutex;
std::vector<std::vector<void *>> &deferred() {
    static auto *lists = new std::vector<std::vector<void *>>;  // for the process
    return *lists;
}

void release_deferred(int device) {
    std::vector<void *> pointers;
    {
        std::lock_guard<std::mutex> lock(g_deferred_mutex);
        if (deferred().size() > static_cast<size_t>(device)) pointers.swap(deferred()[static_cast<size_t>(device)]);
    }
    for (void *p : pointers) aclrtFree(p);
}

/** Synchronises `device` from this thread, keeping the thread's current device. */
void synchronize_device(int device) {
    int32_t previous = -1;
    bool had = aclrtGetDevice(&previous) == ACL_SUCCESS;
    check("aclrtSetDevice", aclrtSetDevice(device));
    aclError rc = aclrtSynchronizeDevice();
    if (had && previous != device) aclrtSetDevice(previous);
    check("aclrtSynchronizeDevice", rc);
    release_deferred(device);
}

void defer_free(int device, void *p) {
    bool flush = false;
    {
        std::lock_guard<std::mutex> lock(g_deferred_mutex);
        if (deferred().size() <= static_cast<size_t>(device)) deferred().resize(static_cast<size_t>(device) + 1);
        auto &list = deferred()[static_cast<size_t>(device)];
        list.push_back(p);
        flush = list.size() >= kMaxDeferred;
    }
    if (flush) {
        try {
            synchronize_device(device);
        } catch (const std::exception &) {
            // freed at the next synchronisation instead
        }
    }
}

}  // namespace

// ---- devices ----------------------------------------------------------------------------------------

int device_count() {
    uint32_t n = 0;
    check("aclrtGetDeviceCount", aclrtGetDeviceCount(&n));
    return static_cast<int>(n);
}

void set_device(int device) {
    if (device < 0 || device >= device_count()) throw std::invalid_argument("device out of range");
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

void synchronize() { synchronize_device(current_device()); }

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
    check("aclrtSetDevice", aclrtSetDevice(impl_->device));
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

void Stream::synchronize() const { check("aclrtSynchronizeStream", aclrtSynchronizeStream(impl_->handle)); }
int Stream::device() const { return impl_->device; }
int Stream::id() const { return impl_->id; }
int64_t Stream::handle() const { return static_cast<int64_t>(reinterpret_cast<intptr_t>(impl_->handle)); }

// ---- tensors ----------------------------------------------------------------------------------------

struct Tensor::Impl {
    int device = 0;
    std::vector<int64_t> shape;
    void *data = nullptr;
    ~Impl() {
        if (data != nullptr) defer_free(device, data);  // queued work may still use it
    }
};

Tensor Tensor::empty(const std::vector<int64_t> &shape, int device) {
    Tensor t;
    t.impl_ = std::make_shared<Impl>();
    t.impl_->device = resolve_device(device);
    t.impl_->shape = shape;
    size_t bytes = static_cast<size_t>(count_of(shape)) * sizeof(float);
    check("aclrtSetDevice", aclrtSetDevice(t.impl_->device));
    check("aclrtMalloc", aclrtMalloc(&t.impl_->data, std::max<size_t>(bytes, 1), ACL_MEM_MALLOC_HUGE_FIRST));
    return t;
}

Tensor::Tensor(const std::vector<float> &data, const std::vector<int64_t> &shape, int device) {
    if (static_cast<int64_t>(data.size()) != count_of(shape)) {
        throw std::invalid_argument("data has " + std::to_string(data.size()) + " elements, shape needs " +
                                    std::to_string(count_of(shape)));
    }
    *this = empty(shape, device);
    if (!data.empty()) {
        size_t bytes = data.size() * sizeof(float);
        check("aclrtMemcpy", aclrtMemcpy(impl_->data, bytes, data.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE));
    }
}

std::vector<float> Tensor::to_host() const {
    std::vector<float> out(static_cast<size_t>(numel()));
    synchronize_device(impl_->device);
    if (!out.empty()) {
        size_t bytes = out.size() * sizeof(float);
        check("aclrtMemcpy", aclrtMemcpy(out.data(), bytes, impl_->data, bytes, ACL_MEMCPY_DEVICE_TO_HOST));
    }
    return out;
}

std::vector<int64_t> Tensor::shape() const { return impl_->shape; }
int64_t Tensor::numel() const { return count_of(impl_->shape); }
int Tensor::device() const { return impl_->device; }
void *Tensor::data_ptr() const { return impl_->data; }

// ---- operators --------------------------------------------------------------------------------------

Tensor add(const Tensor &a, const Tensor &b, const Stream *stream) {
    int device = same_device(a, b);
    aclrtStream s = stream_for(device, stream);
    Tensor out = Tensor::empty(broadcast(a.shape(), b.shape()), device);
    Descriptor da(a), db(b), dout(out);
    float one = 1.0f;
    aclScalar *alpha = aclCreateScalar(&one, ACL_FLOAT);
    uint64_t ws = 0;
    aclOpExecutor *ex = nullptr;
    try {
        launch("aclnnAdd", aclnnAddGetWorkspaceSize(da.get(), db.get(), alpha, dout.get(), &ws, &ex), &ws, &ex, device, s,
               aclnnAdd);
    } catch (...) {
        aclDestroyScalar(alpha);
        throw;
    }
    aclDestroyScalar(alpha);
    return out;
}

Tensor mul(const Tensor &a, const Tensor &b, const Stream *stream) {
    int device = same_device(a, b);
    aclrtStream s = stream_for(device, stream);
    Tensor out = Tensor::empty(broadcast(a.shape(), b.shape()), device);
    Descriptor da(a), db(b), dout(out);
    uint64_t ws = 0;
    aclOpExecutor *ex = nullptr;
    launch("aclnnMul", aclnnMulGetWorkspaceSize(da.get(), db.get(), dout.get(), &ws, &ex), &ws, &ex, device, s, aclnnMul);
    return out;
}

Tensor matmul(const Tensor &a, const Tensor &b, const Stream *stream) {
    int device = same_device(a, b);
    aclrtStream s = stream_for(device, stream);
    Tensor out = Tensor::empty(matmul_shape(a.shape(), b.shape()), device);
    Descriptor da(a), db(b), dout(out);
    uint64_t ws = 0;
    aclOpExecutor *ex = nullptr;
    launch("aclnnMatmul", aclnnMatmulGetWorkspaceSize(da.get(), db.get(), dout.get(), 0, &ws, &ex), &ws, &ex, device, s,
           aclnnMatmul);
    return out;
}

Tensor relu(const Tensor &a, const Stream *stream) {
    int device = a.device();
    aclrtStream s = stream_for(device, stream);
    Tensor out = Tensor::empty(a.shape(), device);
    Descriptor da(a), dout(out);
    uint64_t ws = 0;
    aclOpExecutor *ex = nullptr;
    launch("aclnnRelu", aclnnReluGetWorkspaceSize(da.get(), dout.get(), &ws, &ex), &ws, &ex, device, s, aclnnRelu);
    return out;
}

// ---- collectives ------------------------------------------------------------------------------------

std::vector<float> all_reduce_sum(int ranks, const std::vector<float> &data) {
    if (ranks < 1 || ranks > device_count()) throw std::invalid_argument("ranks must be in 1..device_count()");
    if (data.size() % static_cast<size_t>(ranks) != 0) {
        throw std::invalid_argument("data size must be a multiple of ranks");
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
                Tensor recv = Tensor::empty({static_cast<int64_t>(n)}, r);
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

}  // namespace vnpu

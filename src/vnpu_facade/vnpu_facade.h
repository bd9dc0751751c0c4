/**
 * @file vnpu_facade.h
 * @brief The virtual NPU (libvnpu, CANN-style C API) as C++ classes, for the language bindings
 *        (swig/vnpu.i: Python `vnpu.native` under the `vnpu` package, Java `org.mspti.vnpu`):
 *        devices, streams, tensors of float32/float16/int32/int64 in device memory, aclnn
 *        add/mul/matmul/relu, and HCCL communicators (one per rank across processes, or all
 *        devices in this process).
 *
 * Every call goes through libvnpu's exported ACL/aclnn/HCCL entry points, so an LD_PRELOADed
 * libmspti.so sees (and records) them as for any CANN program. Failures throw CallError (a runtime
 * call failed; it names the call and its result code), DTypeError (an element type the operation
 * does not take) or std::invalid_argument (bad shapes, devices, sizes).
 *
 * The classes live in vnpu::api, apart from the runtime's own (vnpu::Stream is the runtime's stream).
 */
#ifndef VNPU_FACADE_H
#define VNPU_FACADE_H

#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace vnpu::api {

#ifndef SWIG
/**
 * @brief Makes libvnpu.so's symbols global, where an LD_PRELOADed libmspti.so finds the runtime.
 *        For a binding module loaded RTLD_LOCAL (Python, the JVM); call once when it loads.
 */
void promote_runtime_to_global_scope();
#endif

#ifndef SWIG  // the bindings turn these into their languages' exceptions (swig/vnpu.i)
/**
 * @brief A runtime call (aclrt*, aclnn*, Hccl*) returned `code` (aclError / aclnnStatus / HcclResult);
 *        `detail`, when given, says why (e.g. the message of a failed collective).
 */
class CallError : public std::runtime_error {
public:
    CallError(const std::string &function, long code, const std::string &detail = "");
    /** @brief The runtime call that failed. */
    const std::string &function() const { return function_; }
    /** @brief Its result code. */
    long code() const { return code_; }

private:
    std::string function_;
    long code_;
};

/** @brief Operands of an element type the operation does not take, or of different types. */
class DTypeError : public std::invalid_argument {
public:
    explicit DTypeError(const std::string &what) : std::invalid_argument(what) {}
};
#endif

/** @name Element types (their aclDataType values) */
/** @{ */
constexpr int kFloat32 = 0;  ///< ACL_FLOAT (operators and collectives take it)
constexpr int kFloat16 = 1;  ///< ACL_FLOAT16 (operators and collectives take it)
constexpr int kInt8 = 2;  ///< ACL_INT8
constexpr int kInt32 = 3;  ///< ACL_INT32 (operators and collectives take it)
constexpr int kUInt8 = 4;  ///< ACL_UINT8 (raw bytes, as for workspaces)
constexpr int kInt16 = 6;  ///< ACL_INT16
constexpr int kUInt16 = 7;  ///< ACL_UINT16
constexpr int kUInt32 = 8;  ///< ACL_UINT32
constexpr int kInt64 = 9;  ///< ACL_INT64 (operators and collectives take it)
constexpr int kUInt64 = 10;  ///< ACL_UINT64
constexpr int kFloat64 = 11;  ///< ACL_DOUBLE
constexpr int kBool = 12;  ///< ACL_BOOL
/** @} */

/** @brief Bytes per element of `dtype`; DTypeError for a type tensors cannot hold. */
size_t dtype_size(int dtype);

/** @brief Number of virtual devices. */
int device_count();

/** @brief Makes `device` the calling thread's current device. */
void set_device(int device);

/** @brief The calling thread's current device (device 0 is made current if none was set). */
int current_device();

/**
 * @brief Waits until all work queued on `device` (-1: the current device) has finished, then frees
 *        the device memory that tensors released while work was queued.
 */
void synchronize(int device = -1);

/** @brief The result shape of broadcasting `a` with `b` (NumPy rules); invalid_argument if they do not fit. */
std::vector<int64_t> broadcast_shapes(const std::vector<int64_t> &a, const std::vector<int64_t> &b);

/** @brief The result shape of a @ b (torch.matmul rules); invalid_argument if they do not fit. */
std::vector<int64_t> matmul_shape(const std::vector<int64_t> &a, const std::vector<int64_t> &b);

/** @brief A stream of one device. Work queued on it runs in order, asynchronously. Copies share it. */
class Stream {
public:
    /** @brief A new stream on `device` (-1: the current device); the calling thread's device is kept. */
    explicit Stream(int device = -1);
    /** @brief The default stream of `device` (-1: the current device), shared by every caller. */
    static Stream default_stream(int device = -1);
    /** @brief Waits until all work queued on this stream has finished. */
    void synchronize() const;
    /** @brief The device this stream belongs to. */
    int device() const;
    /** @brief The stream id (unique per device), as in KERNEL records. */
    int id() const;
    /** @brief The aclrtStream handle as an integer (for mstx markers on this stream). */
    int64_t handle() const;

private:
    struct Impl;
    explicit Stream(std::shared_ptr<Impl> impl);
    std::shared_ptr<Impl> impl_;
};

/**
 * @brief A contiguous row-major tensor in a device's memory. Copies share the same memory, which is
 *        freed when the last copy goes (after the device's next synchronisation: queued work may
 *        still use it).
 */
class Tensor {
public:
    /** @brief A float32 tensor: copies `data` (row-major, shape `shape`) to `device` (-1: the current device). */
    Tensor(const std::vector<float> &data, const std::vector<int64_t> &shape, int device = -1);
    /** @brief Uninitialised device memory for `shape` elements of `dtype` on `device` (-1: the current device). */
    static Tensor empty(const std::vector<int64_t> &shape, int dtype = kFloat32, int device = -1);
    /** @brief Copies a float32 tensor to the host (waits for the work queued on its device first). */
    std::vector<float> to_host() const;
    /** @brief Copies `bytes` (exactly nbytes()) of host memory into the tensor. */
    void copy_from_host(const void *data, size_t bytes);
    /** @brief Copies the tensor into `bytes` (exactly nbytes()) of host memory, after its device's queued work. */
    void copy_to_host(void *data, size_t bytes) const;
    /** @brief The shape. */
    std::vector<int64_t> shape() const;
    /** @brief Number of elements. */
    int64_t numel() const;
    /** @brief Size in bytes. */
    int64_t nbytes() const;
    /** @brief The element type (kFloat32, kFloat16, ...). */
    int dtype() const;
    /** @brief The device holding it. */
    int device() const;
    /** @brief The device address as an integer. */
    int64_t address() const;

    /** @internal The device address. */
    void *data_ptr() const;

private:
    struct Impl;
    Tensor() = default;
    std::shared_ptr<Impl> impl_;
};

/** @brief a + alpha * b with broadcasting (aclnnAdd), queued on `stream` (NULL: the device's default stream). */
Tensor add(const Tensor &a, const Tensor &b, const Stream *stream = nullptr, double alpha = 1.0);
/** @brief a * b elementwise with broadcasting (aclnnMul). */
Tensor mul(const Tensor &a, const Tensor &b, const Stream *stream = nullptr);
/** @brief a @ b with torch.matmul semantics (aclnnMatmul). */
Tensor matmul(const Tensor &a, const Tensor &b, const Stream *stream = nullptr);
/** @brief max(a, 0) (aclnnRelu). */
Tensor relu(const Tensor &a, const Stream *stream = nullptr);

/** @name Reduction operations (HcclReduceOp values) */
/** @{ */
constexpr int kReduceSum = 0;
constexpr int kReduceProd = 1;
constexpr int kReduceMax = 2;
constexpr int kReduceMin = 3;
/** @} */

/**
 * @brief One rank's HCCL communicator. Collectives are queued on a stream (NULL: the default stream
 *        of the tensor's device) and work in place or into the given output.
 *
 * The communicator is destroyed by destroy(), not by the destructor: destroying is collective
 * (its ranks may still be exchanging), so it is left to the caller, as HcclCommDestroy is in CANN.
 */
class Communicator {
public:
    /** @brief A fresh root info for the ranks of one communicator (HcclGetRootInfo), as a hex string. */
    static std::string new_root_info();
    /** @brief Under mpirun: the root info of every MPI rank, the same on each without any exchange. */
    static std::string world_root_info();
    /**
     * @brief Joins the communicator of `world_size` ranks as `rank` (HcclCommInitRootInfo) on the
     *        calling thread's current device; blocks until every rank has joined.
     */
    Communicator(int world_size, const std::string &root_info, int rank);
    /** @brief This rank. */
    int rank() const;
    /** @brief Number of ranks. */
    int world_size() const;
    /** @brief The communicator name (the comm_name msPTI reports). */
    std::string name() const;
    /** @brief The communicator's asynchronous error (HcclGetCommAsyncError): 0, or why queued work failed. */
    int async_error() const;
    /** @brief Reduces `tensor` across ranks, in place (HcclAllReduce). */
    void all_reduce(const Tensor &tensor, int op = kReduceSum, const Stream *stream = nullptr);
    /** @brief Copies rank `root`'s tensor to every rank, in place (HcclBroadcast). */
    void broadcast(const Tensor &tensor, int root = 0, const Stream *stream = nullptr);
    /** @brief Concatenates every rank's `input` into `output` (HcclAllGather). */
    void all_gather(const Tensor &output, const Tensor &input, const Stream *stream = nullptr);
    /** @brief Reduces `input` across ranks and gives each rank its slice in `output` (HcclReduceScatter). */
    void reduce_scatter(const Tensor &output, const Tensor &input, int op = kReduceSum, const Stream *stream = nullptr);
    /** @brief Waits until every rank has reached the barrier (HcclBarrier, then the stream is synchronised). */
    void barrier(const Stream *stream = nullptr);
    /** @brief Destroys the communicator after the current device's work (HcclCommDestroy); later calls fail. */
    void destroy();

private:
    struct Impl;
    std::shared_ptr<Impl> impl_;
};

/**
 * @brief Sums `data` across `ranks` devices in process: rank r (on device r) contributes
 *        data[r*n, (r+1)*n) with n = data.size() / ranks. One communicator from HcclCommInitAll,
 *        one thread per device, each running HcclAllReduce on its own stream.
 * @return Every rank's result, concatenated in rank order (each equals the element-wise sum).
 */
std::vector<float> all_reduce_sum(int ranks, const std::vector<float> &data);

}  // namespace vnpu::api

#endif  // VNPU_FACADE_H

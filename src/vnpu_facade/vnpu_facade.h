/**
 * @file vnpu_facade.h
 * @brief A small C++ facade of the virtual NPU (libvnpu, CANN-style C API) for the SWIG bindings:
 *        devices, streams, float32 tensors from/to host arrays, aclnn add/mul/matmul/relu, and an
 *        in-process all-reduce over several devices (HcclCommInitAll, one thread per device).
 *
 * Every call goes through libvnpu's exported ACL/aclnn/HCCL entry points, so an LD_PRELOADed
 * libmspti.so sees (and records) them as for any CANN program. Failures throw std::runtime_error
 * (a runtime call failed; the message names it and its code) or std::invalid_argument (bad shapes,
 * devices, sizes).
 */
#ifndef VNPU_FACADE_H
#define VNPU_FACADE_H

#include <cstdint>
#include <memory>
#include <vector>

namespace vnpu {

/** @brief Number of virtual devices. */
int device_count();

/** @brief Makes `device` the calling thread's current device. */
void set_device(int device);

/** @brief The calling thread's current device (0 if none was set). */
int current_device();

/** @brief Waits until all work queued on the current device has finished. */
void synchronize();

/** @brief A stream of one device. Work queued on it runs in order, asynchronously. */
class Stream {
public:
    /** @brief A new stream on `device` (-1: the current device). */
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

/** @brief A contiguous float32 tensor in a device's memory. Copies share the same memory. */
class Tensor {
public:
    /** @brief Copies `data` (row-major, shape `shape`) to `device` (-1: the current device). */
    Tensor(const std::vector<float> &data, const std::vector<int64_t> &shape, int device = -1);
    /** @brief Copies the tensor to the host (waits for the work queued on its device first). */
    std::vector<float> to_host() const;
    /** @brief The shape. */
    std::vector<int64_t> shape() const;
    /** @brief Number of elements. */
    int64_t numel() const;
    /** @brief The device holding it. */
    int device() const;

    /** @internal Uninitialised device memory for `shape`. */
    static Tensor empty(const std::vector<int64_t> &shape, int device);
    /** @internal The device address. */
    void *data_ptr() const;

private:
    struct Impl;
    Tensor() = default;
    std::shared_ptr<Impl> impl_;
};

/** @brief a + b with broadcasting (aclnnAdd), queued on `stream` (NULL: the device's default stream). */
Tensor add(const Tensor &a, const Tensor &b, const Stream *stream = nullptr);
/** @brief a * b elementwise with broadcasting (aclnnMul). */
Tensor mul(const Tensor &a, const Tensor &b, const Stream *stream = nullptr);
/** @brief a @ b with torch.matmul semantics (aclnnMatmul). */
Tensor matmul(const Tensor &a, const Tensor &b, const Stream *stream = nullptr);
/** @brief max(a, 0) (aclnnRelu). */
Tensor relu(const Tensor &a, const Stream *stream = nullptr);

/**
 * @brief Sums `data` across `ranks` devices in process: rank r (on device r) contributes
 *        data[r*n, (r+1)*n) with n = data.size() / ranks. One communicator from HcclCommInitAll,
 *        one thread per device, each running HcclAllReduce on its own stream.
 * @return Every rank's result, concatenated in rank order (each equals the element-wise sum).
 */
std::vector<float> all_reduce_sum(int ranks, const std::vector<float> &data);

}  // namespace vnpu

#endif  // VNPU_FACADE_H

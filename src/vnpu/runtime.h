// Process-wide state of the virtual NPU: devices, contexts, the handle registries, the thread's current
// context, and the cancellation epoch that lets aclFinalize interrupt tasks blocked on other streams.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "acl/acl_base.h"
#include "handle_registry.h"
#include "stream.h"

namespace vnpu {

class Event;

/// A context: a device binding with its own default stream and the streams created in it.
class Context {
public:
    Context(int32_t device, bool implicit_default) : device_id(device), is_default(implicit_default) {}
    const int32_t device_id;
    const bool is_default;
    std::shared_ptr<Stream> default_stream;

    std::mutex mu;
    std::vector<std::shared_ptr<Stream>> streams;  // created by aclrtCreateStream in this context
};

struct Device {
    int32_t id = 0;
    std::mutex mu;
    int ref_count = 0;  // aclrtSetDevice - aclrtResetDevice
    std::shared_ptr<Context> default_context;  // exists while ref_count > 0
    std::atomic<uint32_t> next_stream_id{0};
    std::atomic<uint64_t> used_bytes{0};
};

class Runtime {
public:
    static Runtime &get();

    uint32_t device_count() const { return static_cast<uint32_t>(devices_.size()); }
    /// nullptr for an id outside [0, count).
    Device *device(int32_t id);
    uint64_t device_memory_bytes() const { return deviceMemoryBytes_; }

    /// Creates and registers a context with its default stream.
    std::shared_ptr<Context> create_context(int32_t device_id, bool is_default);
    /// Unregisters the context and shuts down its streams (running what they still hold).
    void destroy_context(const std::shared_ptr<Context> &context);
    std::shared_ptr<Stream> create_stream(const std::shared_ptr<Context> &context);
    void destroy_stream(const std::shared_ptr<Stream> &stream);
    /// Destroys every context and resets every device (aclFinalize).
    void release_all();

    /// Bumped by aclFinalize (and at exit): tasks blocked waiting for other streams or ranks give up.
    uint64_t cancel_epoch() const { return cancelEpoch_.load(std::memory_order_acquire); }
    void cancel_blocked_tasks() { cancelEpoch_.fetch_add(1, std::memory_order_acq_rel); }

    HandleRegistry<Context> contexts;
    HandleRegistry<Stream> streams;
    HandleRegistry<Event> events;

private:
    Runtime();
    std::vector<std::unique_ptr<Device>> devices_;
    uint64_t deviceMemoryBytes_;
    std::atomic<uint64_t> cancelEpoch_{0};
};

/// The calling thread's current context (its handle may be stale: always resolve through current_context()).
void set_current_context_handle(void *handle);
void *current_context_handle();
/// Resolves the thread's current context; ACL_ERROR_RT_CONTEXT_NULL if none.
aclError current_context(std::shared_ptr<Context> &out);
/// Resolves a stream handle; NULL means the current context's default stream.
aclError resolve_stream(const void *handle, std::shared_ptr<Stream> &out);

/// Waits for `stream`'s work; if one of its tasks failed since the last report (a collective), returns
/// ACL_ERROR_RT_INTERNAL_ERROR and leaves the task's message for aclGetRecentErrMsg on this thread.
aclError synchronize_and_report(Stream &stream);
/// The calling thread's most recent failure message for aclGetRecentErrMsg (cleared once read there).
void set_recent_error(std::string message);

}  // namespace vnpu

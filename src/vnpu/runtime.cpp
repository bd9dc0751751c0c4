// Runtime singleton: devices, context and stream lifetimes, the thread's current context.
#include "runtime.h"

#include <algorithm>
#include <cstdlib>
#include <string>

#include "acl/error_codes/rt_error_codes.h"
#include "event.h"
#include "export.h"

namespace vnpu {
namespace {

thread_local void *t_currentContext = nullptr;
thread_local std::string t_recentError;  // set by a failed synchronisation
thread_local std::string t_returnedError;  // what aclGetRecentErrMsg last returned: valid until its next call

uint32_t device_count_from_env() {
    const char *text = std::getenv("VNPU_DEVICE_COUNT");
    if (text != nullptr && *text != '\0') {
        char *end = nullptr;
        long value = std::strtol(text, &end, 10);
        if (end != nullptr && *end == '\0' && value >= 1 && value <= 64) {
            return static_cast<uint32_t>(value);
        }
    }
    return 8;
}

void bump_cancel_at_exit() { Runtime::get().cancel_blocked_tasks(); }

}  // namespace

Runtime &Runtime::get() {
    // Leaked on purpose: worker threads may still run while the process exits.
    static Runtime *runtime = [] {
        auto *r = new Runtime;
        std::atexit(bump_cancel_at_exit);
        return r;
    }();
    return *runtime;
}

Runtime::Runtime() : deviceMemoryBytes_(64ULL << 30) {
    uint32_t count = device_count_from_env();
    for (uint32_t i = 0; i < count; ++i) {
        auto dev = std::make_unique<Device>();
        dev->id = static_cast<int32_t>(i);
        devices_.push_back(std::move(dev));
    }
}

Device *Runtime::device(int32_t id) {
    if (id < 0 || static_cast<size_t>(id) >= devices_.size()) {
        return nullptr;
    }
    return devices_[static_cast<size_t>(id)].get();
}

std::shared_ptr<Context> Runtime::create_context(int32_t device_id, bool is_default) {
    auto context = std::make_shared<Context>(device_id, is_default);
    Device *dev = device(device_id);
    context->default_stream = std::make_shared<Stream>(device_id, dev->next_stream_id.fetch_add(1), context.get());
    contexts.add(context);
    return context;
}

// A stream stays where aclrtSynchronizeDevice finds it (its context's list) until its queued work has
// run: a device synchronisation that began meanwhile waits for that work too, so memory freed after it
// (the facade's deferred frees) is not released while a dying stream still uses it.
void Runtime::destroy_context(const std::shared_ptr<Context> &context) {
    std::vector<std::shared_ptr<Stream>> owned;
    {
        std::lock_guard<std::mutex> lock(context->mu);
        owned = context->streams;
    }
    for (auto &stream : owned) {
        streams.remove(stream.get());
        stream->shutdown();
    }
    context->default_stream->shutdown();
    contexts.remove(context.get());
    std::lock_guard<std::mutex> lock(context->mu);
    context->streams.clear();
}

std::shared_ptr<Stream> Runtime::create_stream(const std::shared_ptr<Context> &context) {
    Device *dev = device(context->device_id);
    auto stream = std::make_shared<Stream>(context->device_id, dev->next_stream_id.fetch_add(1), context.get());
    {
        std::lock_guard<std::mutex> lock(context->mu);
        context->streams.push_back(stream);
    }
    streams.add(stream);
    return stream;
}

void Runtime::destroy_stream(const std::shared_ptr<Stream> &stream) {
    streams.remove(stream.get());
    stream->shutdown();  // still listed in its context meanwhile (see destroy_context)
    if (auto context = contexts.find(stream->owner())) {
        std::lock_guard<std::mutex> lock(context->mu);
        auto &list = context->streams;
        list.erase(std::remove(list.begin(), list.end(), stream), list.end());
    }
}

void Runtime::release_all() {
    cancel_blocked_tasks();
    for (auto &context : contexts.snapshot()) {
        destroy_context(context);
    }
    for (auto &dev : devices_) {
        std::lock_guard<std::mutex> lock(dev->mu);
        dev->ref_count = 0;
        dev->default_context.reset();
    }
}

void set_current_context_handle(void *handle) { t_currentContext = handle; }

void *current_context_handle() { return t_currentContext; }

aclError current_context(std::shared_ptr<Context> &out) {
    out = Runtime::get().contexts.find(t_currentContext);
    return out ? ACL_SUCCESS : ACL_ERROR_RT_CONTEXT_NULL;
}

aclError resolve_stream(const void *handle, std::shared_ptr<Stream> &out) {
    if (handle == nullptr) {
        std::shared_ptr<Context> context;
        aclError rc = current_context(context);
        if (rc != ACL_SUCCESS) {
            return rc;
        }
        out = context->default_stream;
        return ACL_SUCCESS;
    }
    out = Runtime::get().streams.find(handle);
    return out ? ACL_SUCCESS : ACL_ERROR_INVALID_RESOURCE_HANDLE;
}

aclError synchronize_and_report(Stream &stream) {
    stream.synchronize();
    if (auto error = stream.take_error()) {
        set_recent_error(std::move(error->message));
        return ACL_ERROR_RT_INTERNAL_ERROR;
    }
    return ACL_SUCCESS;
}

void set_recent_error(std::string message) { t_recentError = std::move(message); }

}  // namespace vnpu

extern "C" VNPU_EXPORT const char *aclGetRecentErrMsg(void) {
    if (vnpu::t_recentError.empty()) {
        return nullptr;
    }
    vnpu::t_returnedError = std::move(vnpu::t_recentError);
    vnpu::t_recentError.clear();
    return vnpu::t_returnedError.c_str();
}

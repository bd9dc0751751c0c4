// Runtime singleton: devices, context and stream lifetimes, the thread's current context.
#include "runtime.h"

#include <algorithm>
#include <cstdlib>
#include <string>

#include "event.h"

namespace vnpu {
namespace {

thread_local void *t_currentContext = nullptr;

uint32_t deviceCountFromEnv() {
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

void bumpCancelAtExit() { Runtime::get().cancelBlockedTasks(); }

} // namespace

Runtime &Runtime::get() {
    // Leaked on purpose: worker threads may still run while the process exits.
    static Runtime *runtime = [] {
        auto *r = new Runtime;
        std::atexit(bumpCancelAtExit);
        return r;
    }();
    return *runtime;
}

Runtime::Runtime() : deviceMemoryBytes_(64ULL << 30) {
    uint32_t count = deviceCountFromEnv();
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

std::shared_ptr<Context> Runtime::createContext(int32_t deviceId, bool isDefault) {
    auto context = std::make_shared<Context>(deviceId, isDefault);
    Device *dev = device(deviceId);
    context->defaultStream = std::make_shared<Stream>(deviceId, dev->nextStreamId.fetch_add(1), context.get());
    contexts.add(context);
    return context;
}

void Runtime::destroyContext(const std::shared_ptr<Context> &context) {
    contexts.remove(context.get());
    std::vector<std::shared_ptr<Stream>> owned;
    {
        std::lock_guard<std::mutex> lock(context->mu);
        owned.swap(context->streams);
    }
    for (auto &stream : owned) {
        streams.remove(stream.get());
        stream->shutdown();
    }
    context->defaultStream->shutdown();
}

std::shared_ptr<Stream> Runtime::createStream(const std::shared_ptr<Context> &context) {
    Device *dev = device(context->deviceId);
    auto stream = std::make_shared<Stream>(context->deviceId, dev->nextStreamId.fetch_add(1), context.get());
    {
        std::lock_guard<std::mutex> lock(context->mu);
        context->streams.push_back(stream);
    }
    streams.add(stream);
    return stream;
}

void Runtime::destroyStream(const std::shared_ptr<Stream> &stream) {
    streams.remove(stream.get());
    if (auto context = contexts.find(stream->owner())) {
        std::lock_guard<std::mutex> lock(context->mu);
        auto &list = context->streams;
        list.erase(std::remove(list.begin(), list.end(), stream), list.end());
    }
    stream->shutdown();
}

void Runtime::releaseAll() {
    cancelBlockedTasks();
    for (auto &context : contexts.snapshot()) {
        destroyContext(context);
    }
    for (auto &dev : devices_) {
        std::lock_guard<std::mutex> lock(dev->mu);
        dev->refCount = 0;
        dev->defaultContext.reset();
    }
}

void setCurrentContextHandle(void *handle) { t_currentContext = handle; }

void *currentContextHandle() { return t_currentContext; }

aclError currentContext(std::shared_ptr<Context> &out) {
    out = Runtime::get().contexts.find(t_currentContext);
    return out ? ACL_SUCCESS : ACL_ERROR_RT_CONTEXT_NULL;
}

aclError resolveStream(const void *handle, std::shared_ptr<Stream> &out) {
    if (handle == nullptr) {
        std::shared_ptr<Context> context;
        aclError rc = currentContext(context);
        if (rc != ACL_SUCCESS) {
            return rc;
        }
        out = context->defaultStream;
        return ACL_SUCCESS;
    }
    out = Runtime::get().streams.find(handle);
    return out ? ACL_SUCCESS : ACL_ERROR_INVALID_RESOURCE_HANDLE;
}

} // namespace vnpu

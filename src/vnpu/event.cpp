// Events and the event API (record, synchronise, query, elapsed time, cross-stream wait).
#include "event.h"

#include <chrono>

#include "acl/acl.h"
#include "export.h"
#include "profiler_hooks.h"
#include "runtime.h"

namespace vnpu {

uint64_t Event::beginRecord() {
    std::lock_guard<std::mutex> lock(mu_);
    return ++recorded_;
}

void Event::complete(uint64_t generation, uint64_t timestampNs) {
    std::lock_guard<std::mutex> lock(mu_);
    if (generation > completed_) {
        completed_ = generation;
        timestampNs_ = timestampNs;
    }
    cv_.notify_all();
}

bool Event::isComplete() {
    std::lock_guard<std::mutex> lock(mu_);
    return completed_ >= recorded_;
}

void Event::synchronize() {
    std::unique_lock<std::mutex> lock(mu_);
    uint64_t target = recorded_;
    cv_.wait(lock, [&] { return completed_ >= target; });
}

uint64_t Event::latestGeneration() {
    std::lock_guard<std::mutex> lock(mu_);
    return recorded_;
}

bool Event::waitFromStream(uint64_t generation) {
    const uint64_t epoch = Runtime::get().cancelEpoch();
    std::unique_lock<std::mutex> lock(mu_);
    while (completed_ < generation) {
        // Wake up now and then to notice aclFinalize: the recording stream may never run again.
        cv_.wait_for(lock, std::chrono::milliseconds(50));
        if (Runtime::get().cancelEpoch() != epoch) {
            return false;
        }
    }
    return true;
}

bool Event::completedTimestamp(uint64_t &timestampNs) {
    std::lock_guard<std::mutex> lock(mu_);
    if (recorded_ == 0 || completed_ < recorded_) {
        return false;
    }
    timestampNs = timestampNs_;
    return true;
}

} // namespace vnpu

using vnpu::Runtime;

namespace {

// The live event behind a handle: NULL is a bad parameter, an unknown handle a bad resource.
aclError findEvent(aclrtEvent event, std::shared_ptr<vnpu::Event> &found) {
    if (event == nullptr) {
        return ACL_ERROR_INVALID_PARAM;
    }
    found = Runtime::get().events.find(event);
    return found ? ACL_SUCCESS : ACL_ERROR_INVALID_RESOURCE_HANDLE;
}

}  // namespace

extern "C" {

VNPU_EXPORT aclError aclrtCreateEvent(aclrtEvent *event) {
    VNPU_ACL_SPAN("aclrtCreateEvent");
    if (event == nullptr) {
        return ACL_ERROR_INVALID_PARAM;
    }
    *event = Runtime::get().events.add(std::make_shared<vnpu::Event>());
    return ACL_SUCCESS;
}

VNPU_EXPORT aclError aclrtDestroyEvent(aclrtEvent event) {
    VNPU_ACL_SPAN("aclrtDestroyEvent");
    if (event == nullptr) {
        return ACL_ERROR_INVALID_PARAM;
    }
    // Pending stream tasks hold their own reference, so destroying early does not block or dangle.
    return Runtime::get().events.remove(event) ? ACL_SUCCESS : ACL_ERROR_INVALID_RESOURCE_HANDLE;
}

VNPU_EXPORT aclError aclrtRecordEvent(aclrtEvent event, aclrtStream stream) {
    VNPU_ACL_SPAN("aclrtRecordEvent");
    std::shared_ptr<vnpu::Event> ev;
    if (aclError found = findEvent(event, ev); found != ACL_SUCCESS) {
        return found;
    }
    std::shared_ptr<vnpu::Stream> target;
    aclError rc = vnpu::resolveStream(stream, target);
    if (rc != ACL_SUCCESS) {
        return rc;
    }
    uint64_t generation = ev->beginRecord();
    uint64_t seq = target->enqueue([ev, generation] { ev->complete(generation, vnpu::profiler::nowNs()); });
    if (seq == 0) {
        ev->complete(generation, vnpu::profiler::nowNs());  // keep the event consistent
        return ACL_ERROR_INVALID_RESOURCE_HANDLE;
    }
    return ACL_SUCCESS;
}

VNPU_EXPORT aclError aclrtSynchronizeEvent(aclrtEvent event) {
    VNPU_ACL_SPAN("aclrtSynchronizeEvent");
    std::shared_ptr<vnpu::Event> ev;
    if (aclError found = findEvent(event, ev); found != ACL_SUCCESS) {
        return found;
    }
    ev->synchronize();
    return ACL_SUCCESS;
}

VNPU_EXPORT aclError aclrtQueryEvent(aclrtEvent event, aclrtEventStatus *status) {
    if (status == nullptr) {
        return ACL_ERROR_INVALID_PARAM;
    }
    std::shared_ptr<vnpu::Event> ev;
    if (aclError found = findEvent(event, ev); found != ACL_SUCCESS) {
        return found;
    }
    *status = ev->isComplete() ? ACL_EVENT_STATUS_COMPLETE : ACL_EVENT_STATUS_NOT_READY;
    return ACL_SUCCESS;
}

VNPU_EXPORT aclError aclrtQueryEventStatus(aclrtEvent event, aclrtEventRecordedStatus *status) {
    if (status == nullptr) {
        return ACL_ERROR_INVALID_PARAM;
    }
    std::shared_ptr<vnpu::Event> ev;
    if (aclError found = findEvent(event, ev); found != ACL_SUCCESS) {
        return found;
    }
    *status = ev->isComplete() ? ACL_EVENT_RECORDED_STATUS_COMPLETE : ACL_EVENT_RECORDED_STATUS_NOT_READY;
    return ACL_SUCCESS;
}

VNPU_EXPORT aclError aclrtEventElapsedTime(float *ms, aclrtEvent startEvent, aclrtEvent endEvent) {
    if (ms == nullptr || startEvent == nullptr || endEvent == nullptr) {
        return ACL_ERROR_INVALID_PARAM;
    }
    auto start = Runtime::get().events.find(startEvent);
    auto end = Runtime::get().events.find(endEvent);
    if (!start || !end) {
        return ACL_ERROR_INVALID_RESOURCE_HANDLE;
    }
    uint64_t startNs = 0;
    uint64_t endNs = 0;
    if (!start->completedTimestamp(startNs) || !end->completedTimestamp(endNs)) {
        return ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID;
    }
    *ms = static_cast<float>((static_cast<double>(endNs) - static_cast<double>(startNs)) / 1e6);
    return ACL_SUCCESS;
}

VNPU_EXPORT aclError aclrtStreamWaitEvent(aclrtStream stream, aclrtEvent event) {
    VNPU_ACL_SPAN("aclrtStreamWaitEvent");
    std::shared_ptr<vnpu::Event> ev;
    if (aclError found = findEvent(event, ev); found != ACL_SUCCESS) {
        return found;
    }
    std::shared_ptr<vnpu::Stream> target;
    aclError rc = vnpu::resolveStream(stream, target);
    if (rc != ACL_SUCCESS) {
        return rc;
    }
    uint64_t generation = ev->latestGeneration();
    if (generation == 0) {
        return ACL_SUCCESS;  // nothing recorded: nothing to wait for
    }
    return target->enqueue([ev, generation] { ev->waitFromStream(generation); }) != 0
               ? ACL_SUCCESS
               : ACL_ERROR_INVALID_RESOURCE_HANDLE;
}

} // extern "C"

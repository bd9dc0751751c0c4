// Events and the event API (record, synchronise, query, elapsed time, cross-stream wait).
#include "event.h"

#include <chrono>

#include "acl/acl.h"
#include "export.h"
#include "report_spans.h"
#include "runtime.h"

namespace vnpu {

uint64_t Event::begin_record() {
    std::lock_guard<std::mutex> lock(mu_);
    return ++recorded_;
}

void Event::complete(uint64_t generation, uint64_t timestamp_ns) {
    std::lock_guard<std::mutex> lock(mu_);
    if (generation > completed_) {
        completed_ = generation;
        timestampNs_ = timestamp_ns;
    }
    cv_.notify_all();
}

bool Event::is_complete() {
    std::lock_guard<std::mutex> lock(mu_);
    return completed_ >= recorded_;
}

void Event::synchronize() {
    std::unique_lock<std::mutex> lock(mu_);
    uint64_t target = recorded_;
    cv_.wait(lock, [&] { return completed_ >= target; });
}

uint64_t Event::latest_generation() {
    std::lock_guard<std::mutex> lock(mu_);
    return recorded_;
}

bool Event::wait_from_stream(uint64_t generation) {
    const uint64_t epoch = Runtime::get().cancel_epoch();
    std::unique_lock<std::mutex> lock(mu_);
    while (completed_ < generation) {
        // Wake up now and then to notice aclFinalize: the recording stream may never run again.
        cv_.wait_for(lock, std::chrono::milliseconds(50));
        if (Runtime::get().cancel_epoch() != epoch) {
            return false;
        }
    }
    return true;
}

bool Event::completed_timestamp(uint64_t &timestamp_ns) {
    std::lock_guard<std::mutex> lock(mu_);
    if (recorded_ == 0 || completed_ < recorded_) {
        return false;
    }
    timestamp_ns = timestampNs_;
    return true;
}

}  // namespace vnpu

using vnpu::Runtime;

namespace {

// The live event behind a handle: NULL is a bad parameter, an unknown handle a bad resource.
aclError find_event(aclrtEvent event, std::shared_ptr<vnpu::Event> &found) {
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
    if (aclError found = find_event(event, ev); found != ACL_SUCCESS) {
        return found;
    }
    std::shared_ptr<vnpu::Stream> target;
    aclError rc = vnpu::resolve_stream(stream, target);
    if (rc != ACL_SUCCESS) {
        return rc;
    }
    uint64_t generation = ev->begin_record();
    uint64_t seq = target->enqueue([ev, generation] { ev->complete(generation, vnpu::report::now_ns()); });
    if (seq == 0) {
        ev->complete(generation, vnpu::report::now_ns());  // keep the event consistent
        return ACL_ERROR_INVALID_RESOURCE_HANDLE;
    }
    return ACL_SUCCESS;
}

VNPU_EXPORT aclError aclrtSynchronizeEvent(aclrtEvent event) {
    VNPU_ACL_SPAN("aclrtSynchronizeEvent");
    std::shared_ptr<vnpu::Event> ev;
    if (aclError found = find_event(event, ev); found != ACL_SUCCESS) {
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
    if (aclError found = find_event(event, ev); found != ACL_SUCCESS) {
        return found;
    }
    *status = ev->is_complete() ? ACL_EVENT_STATUS_COMPLETE : ACL_EVENT_STATUS_NOT_READY;
    return ACL_SUCCESS;
}

VNPU_EXPORT aclError aclrtQueryEventStatus(aclrtEvent event, aclrtEventRecordedStatus *status) {
    if (status == nullptr) {
        return ACL_ERROR_INVALID_PARAM;
    }
    std::shared_ptr<vnpu::Event> ev;
    if (aclError found = find_event(event, ev); found != ACL_SUCCESS) {
        return found;
    }
    *status = ev->is_complete() ? ACL_EVENT_RECORDED_STATUS_COMPLETE : ACL_EVENT_RECORDED_STATUS_NOT_READY;
    return ACL_SUCCESS;
}

VNPU_EXPORT aclError aclrtEventElapsedTime(float *ms, aclrtEvent start_event, aclrtEvent end_event) {
    if (ms == nullptr || start_event == nullptr || end_event == nullptr) {
        return ACL_ERROR_INVALID_PARAM;
    }
    auto start = Runtime::get().events.find(start_event);
    auto end = Runtime::get().events.find(end_event);
    if (!start || !end) {
        return ACL_ERROR_INVALID_RESOURCE_HANDLE;
    }
    uint64_t start_ns = 0;
    uint64_t end_ns = 0;
    if (!start->completed_timestamp(start_ns) || !end->completed_timestamp(end_ns)) {
        return ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID;
    }
    *ms = static_cast<float>((static_cast<double>(end_ns) - static_cast<double>(start_ns)) / 1e6);
    return ACL_SUCCESS;
}

VNPU_EXPORT aclError aclrtStreamWaitEvent(aclrtStream stream, aclrtEvent event) {
    VNPU_ACL_SPAN("aclrtStreamWaitEvent");
    std::shared_ptr<vnpu::Event> ev;
    if (aclError found = find_event(event, ev); found != ACL_SUCCESS) {
        return found;
    }
    std::shared_ptr<vnpu::Stream> target;
    aclError rc = vnpu::resolve_stream(stream, target);
    if (rc != ACL_SUCCESS) {
        return rc;
    }
    uint64_t generation = ev->latest_generation();
    if (generation == 0) {
        return ACL_SUCCESS;  // nothing recorded: nothing to wait for
    }
    return target->enqueue([ev, generation] { ev->wait_from_stream(generation); }) != 0
               ? ACL_SUCCESS
               : ACL_ERROR_INVALID_RESOURCE_HANDLE;
}

}  // extern "C"

// Stream API: create/destroy/synchronise, ids, host functions, and the profiling trace tasks.
#include "acl/acl.h"
#include "export.h"
#include "report_spans.h"
#include "vnpu/vnpu_stream.h"
#include "runtime.h"

using vnpu::Runtime;

extern "C" {

VNPU_EXPORT aclError aclrtCreateStream(aclrtStream *stream) {
    VNPU_ACL_SPAN("aclrtCreateStream");
    if (stream == nullptr) {
        return ACL_ERROR_INVALID_PARAM;
    }
    std::shared_ptr<vnpu::Context> context;
    aclError rc = vnpu::current_context(context);
    if (rc != ACL_SUCCESS) {
        return rc;
    }
    *stream = Runtime::get().create_stream(context).get();
    return ACL_SUCCESS;
}

VNPU_EXPORT aclError aclrtDestroyStream(aclrtStream stream) {
    VNPU_ACL_SPAN("aclrtDestroyStream");
    if (stream == nullptr) {
        return ACL_ERROR_INVALID_PARAM;
    }
    auto found = Runtime::get().streams.find(stream);
    if (!found) {
        return ACL_ERROR_INVALID_RESOURCE_HANDLE;
    }
    Runtime::get().destroy_stream(found);  // runs what is still queued first
    return ACL_SUCCESS;
}

VNPU_EXPORT aclError aclrtSynchronizeStream(aclrtStream stream) {
    VNPU_ACL_SPAN("aclrtSynchronizeStream");
    std::shared_ptr<vnpu::Stream> target;
    aclError rc = vnpu::resolve_stream(stream, target);
    if (rc != ACL_SUCCESS) {
        return rc;
    }
    return vnpu::synchronize_and_report(*target);  // a failed task (collective) is reported here
}

VNPU_EXPORT aclError aclrtStreamGetId(aclrtStream stream, int32_t *stream_id) {
    if (stream_id == nullptr) {
        return ACL_ERROR_INVALID_PARAM;
    }
    std::shared_ptr<vnpu::Stream> target;
    aclError rc = vnpu::resolve_stream(stream, target);
    if (rc != ACL_SUCCESS) {
        return rc;
    }
    *stream_id = static_cast<int32_t>(target->id());
    return ACL_SUCCESS;
}

VNPU_EXPORT aclError aclrtLaunchHostFunc(aclrtStream stream, aclrtHostFunc fn, void *args) {
    VNPU_ACL_SPAN("aclrtLaunchHostFunc");
    if (fn == nullptr) {
        return ACL_ERROR_INVALID_PARAM;
    }
    std::shared_ptr<vnpu::Stream> target;
    aclError rc = vnpu::resolve_stream(stream, target);
    if (rc != ACL_SUCCESS) {
        return rc;
    }
    return target->enqueue([fn, args] { fn(args); }) != 0 ? ACL_SUCCESS : ACL_ERROR_INVALID_RESOURCE_HANDLE;
}

// CANN's device marker task: an 18-byte {indexId, modelId, tagId} payload comes back as a TS-FW step
// trace when the stream reaches it (prof_reports.h); other payloads only keep the stream-order point.
VNPU_EXPORT aclError aclrtProfTrace(void *userdata, int32_t length, aclrtStream stream) {
    if (userdata == nullptr || length <= 0) {
        return ACL_ERROR_INVALID_PARAM;
    }
    std::shared_ptr<vnpu::Stream> target;
    aclError rc = vnpu::resolve_stream(stream, target);
    if (rc != ACL_SUCCESS) {
        return rc;
    }
    vnpu::cann::TracePayload payload;
    const vnpu::cann::Task task =
        vnpu::cann::trace_enqueued(static_cast<uint32_t>(target->device_id()), target->id(), userdata, length, payload);
    return target->enqueue([task, payload] { vnpu::cann::trace_reached(task, payload, vnpu::report::now_ns()); }) != 0
               ? ACL_SUCCESS
               : ACL_ERROR_INVALID_RESOURCE_HANDLE;
}

VNPU_EXPORT int vnpuStreamGetIds(void *stream, uint32_t *device_id, uint32_t *stream_id) {
    if (device_id == nullptr || stream_id == nullptr) {
        return ACL_ERROR_INVALID_PARAM;
    }
    std::shared_ptr<vnpu::Stream> target;
    aclError rc = vnpu::resolve_stream(stream, target);
    if (rc != ACL_SUCCESS) {
        return rc;
    }
    *device_id = static_cast<uint32_t>(target->device_id());
    *stream_id = target->id();
    return ACL_SUCCESS;
}

}  // extern "C"

// Every record's size, alignment and field offsets, pinned to msPTI's (docs/compatibility.md, "Record layouts").
#include <cstddef>

#include <gtest/gtest.h>

#include "mspti/mspti.h"
#include "mspti/mspti_ext.h"

extern "C" size_t c_layout_size(int which);
extern "C" size_t c_record_size(int kind);

#define EXPECT_FIELD(type, field, offset) EXPECT_EQ(offsetof(type, field), static_cast<size_t>(offset)) << #field

TEST(RecordLayout, BaseAndObjectIdAreEightBytes) {
    EXPECT_EQ(sizeof(msptiActivity), 8u);
    EXPECT_EQ(sizeof(msptiObjectId), 8u);
    EXPECT_EQ(alignof(msptiObjectId), 8u);
    EXPECT_EQ(offsetof(msptiObjectId, pt.threadId), 4u);
    EXPECT_EQ(offsetof(msptiObjectId, ds.streamId), 4u);
}

TEST(RecordLayout, Marker) {
    EXPECT_EQ(sizeof(msptiActivityMarker), 56u);
    EXPECT_EQ(alignof(msptiActivityMarker), 8u);
    EXPECT_FIELD(msptiActivityMarker, kind, 0);
    EXPECT_FIELD(msptiActivityMarker, flag, 4);
    EXPECT_FIELD(msptiActivityMarker, sourceKind, 8);
    EXPECT_FIELD(msptiActivityMarker, timestamp, 12);
    EXPECT_FIELD(msptiActivityMarker, id, 20);
    EXPECT_FIELD(msptiActivityMarker, objectId, 28);
    EXPECT_FIELD(msptiActivityMarker, name, 36);
    EXPECT_FIELD(msptiActivityMarker, domain, 44);
}

TEST(RecordLayout, Api) {
    EXPECT_EQ(sizeof(msptiActivityApi), 48u);
    EXPECT_FIELD(msptiActivityApi, kind, 0);
    EXPECT_FIELD(msptiActivityApi, start, 4);
    EXPECT_FIELD(msptiActivityApi, end, 12);
    EXPECT_FIELD(msptiActivityApi, pt, 20);
    EXPECT_FIELD(msptiActivityApi, pt.threadId, 24);
    EXPECT_FIELD(msptiActivityApi, correlationId, 28);
    EXPECT_FIELD(msptiActivityApi, name, 36);
}

TEST(RecordLayout, Kernel) {
    EXPECT_EQ(sizeof(msptiActivityKernel), 56u);
    EXPECT_FIELD(msptiActivityKernel, kind, 0);
    EXPECT_FIELD(msptiActivityKernel, start, 4);
    EXPECT_FIELD(msptiActivityKernel, end, 12);
    EXPECT_FIELD(msptiActivityKernel, ds, 20);
    EXPECT_FIELD(msptiActivityKernel, ds.streamId, 24);
    EXPECT_FIELD(msptiActivityKernel, correlationId, 28);
    EXPECT_FIELD(msptiActivityKernel, type, 36);
    EXPECT_FIELD(msptiActivityKernel, name, 44);
}

TEST(RecordLayout, Hccl) {
    EXPECT_EQ(sizeof(msptiActivityHccl), 56u);
    EXPECT_FIELD(msptiActivityHccl, kind, 0);
    EXPECT_FIELD(msptiActivityHccl, start, 4);
    EXPECT_FIELD(msptiActivityHccl, end, 12);
    EXPECT_FIELD(msptiActivityHccl, ds, 20);
    EXPECT_FIELD(msptiActivityHccl, bandWidth, 28);
    EXPECT_FIELD(msptiActivityHccl, name, 36);
    EXPECT_FIELD(msptiActivityHccl, commName, 44);
    static_assert(sizeof(msptiActivityHccl::bandWidth) == sizeof(double), "bandWidth is a double");
}

TEST(RecordLayout, Memory) {
    EXPECT_EQ(sizeof(msptiActivityMemory), 64u);
    EXPECT_FIELD(msptiActivityMemory, kind, 0);
    EXPECT_FIELD(msptiActivityMemory, memoryOperationType, 4);
    EXPECT_FIELD(msptiActivityMemory, memoryKind, 8);
    EXPECT_FIELD(msptiActivityMemory, correlationId, 12);
    EXPECT_FIELD(msptiActivityMemory, start, 20);
    EXPECT_FIELD(msptiActivityMemory, end, 28);
    EXPECT_FIELD(msptiActivityMemory, address, 36);
    EXPECT_FIELD(msptiActivityMemory, bytes, 44);
    EXPECT_FIELD(msptiActivityMemory, processId, 52);
    EXPECT_FIELD(msptiActivityMemory, deviceId, 56);
    EXPECT_FIELD(msptiActivityMemory, streamId, 60);
}

TEST(RecordLayout, Memset) {
    EXPECT_EQ(sizeof(msptiActivityMemset), 56u);
    EXPECT_FIELD(msptiActivityMemset, kind, 0);
    EXPECT_FIELD(msptiActivityMemset, value, 4);
    EXPECT_FIELD(msptiActivityMemset, bytes, 8);
    EXPECT_FIELD(msptiActivityMemset, start, 16);
    EXPECT_FIELD(msptiActivityMemset, end, 24);
    EXPECT_FIELD(msptiActivityMemset, deviceId, 32);
    EXPECT_FIELD(msptiActivityMemset, streamId, 36);
    EXPECT_FIELD(msptiActivityMemset, correlationId, 40);
    EXPECT_FIELD(msptiActivityMemset, isAsync, 48);
}

TEST(RecordLayout, Memcpy) {
    EXPECT_EQ(sizeof(msptiActivityMemcpy), 56u);
    EXPECT_FIELD(msptiActivityMemcpy, kind, 0);
    EXPECT_FIELD(msptiActivityMemcpy, copyKind, 4);
    EXPECT_FIELD(msptiActivityMemcpy, bytes, 8);
    EXPECT_FIELD(msptiActivityMemcpy, start, 16);
    EXPECT_FIELD(msptiActivityMemcpy, end, 24);
    EXPECT_FIELD(msptiActivityMemcpy, deviceId, 32);
    EXPECT_FIELD(msptiActivityMemcpy, streamId, 36);
    EXPECT_FIELD(msptiActivityMemcpy, correlationId, 40);
    EXPECT_FIELD(msptiActivityMemcpy, isAsync, 48);
}

TEST(RecordLayout, ExternalCorrelation) {
    EXPECT_EQ(sizeof(msptiActivityExternalCorrelation), 24u);
    EXPECT_FIELD(msptiActivityExternalCorrelation, kind, 0);
    EXPECT_FIELD(msptiActivityExternalCorrelation, externalKind, 4);
    EXPECT_FIELD(msptiActivityExternalCorrelation, externalId, 8);
    EXPECT_FIELD(msptiActivityExternalCorrelation, correlationId, 16);
}

TEST(RecordLayout, Communication) {
    EXPECT_EQ(sizeof(msptiActivityCommunication), 72u);
    EXPECT_FIELD(msptiActivityCommunication, kind, 0);
    EXPECT_FIELD(msptiActivityCommunication, dataType, 4);
    EXPECT_FIELD(msptiActivityCommunication, count, 8);
    EXPECT_FIELD(msptiActivityCommunication, ds, 16);
    EXPECT_FIELD(msptiActivityCommunication, start, 24);
    EXPECT_FIELD(msptiActivityCommunication, end, 32);
    EXPECT_FIELD(msptiActivityCommunication, algType, 40);
    EXPECT_FIELD(msptiActivityCommunication, name, 48);
    EXPECT_FIELD(msptiActivityCommunication, commName, 56);
    EXPECT_FIELD(msptiActivityCommunication, correlationId, 64);
}

TEST(RecordLayout, CallbackDataIsNaturallyLaidOut) {
    EXPECT_EQ(sizeof(msptiCallbackData), 72u);
    EXPECT_FIELD(msptiCallbackData, callbackSite, 0);
    EXPECT_FIELD(msptiCallbackData, functionName, 8);
    EXPECT_FIELD(msptiCallbackData, functionParams, 16);
    EXPECT_FIELD(msptiCallbackData, functionReturnValue, 24);
    EXPECT_FIELD(msptiCallbackData, symbolName, 32);
    EXPECT_FIELD(msptiCallbackData, correlationId, 40);
    EXPECT_FIELD(msptiCallbackData, reserved1, 48);
    EXPECT_FIELD(msptiCallbackData, reserved2, 56);
    EXPECT_FIELD(msptiCallbackData, correlationData, 64);
}

TEST(RecordLayout, CAndCppAgree) {
    EXPECT_EQ(c_layout_size(0), sizeof(msptiActivityMarker));
    EXPECT_EQ(c_layout_size(1), offsetof(msptiActivityMarker, objectId));
    EXPECT_EQ(c_layout_size(2), sizeof(msptiActivityCommunication));
    EXPECT_EQ(c_layout_size(3), offsetof(msptiActivityCommunication, correlationId));
    EXPECT_EQ(c_layout_size(4), sizeof(msptiActivityMemory));
    EXPECT_EQ(c_layout_size(5), sizeof(msptiCallbackData));
}

// msptiExtRecordSize is generated from the record table: each kind's stride, per the msPTI
// layouts (shared/reference/mspti-spec.md), typed out here; 0 outside 1..12. The C copy of the
// header (compiled as C99) gives the same.
TEST(RecordLayout, RecordSizePerKind) {
    const size_t expected[] = {0, 56, 56, 48, 56, 64, 56, 56, 24, 72, 48, 48, 48, 0};
    for (int kind = 0; kind <= 13; ++kind) {
        EXPECT_EQ(msptiExtRecordSize(static_cast<msptiActivityKind>(kind)), expected[kind]) << "kind " << kind;
        EXPECT_EQ(c_record_size(kind), expected[kind]) << "kind " << kind << " (C)";
    }
    EXPECT_EQ(msptiExtRecordSize(MSPTI_ACTIVITY_KIND_KERNEL), sizeof(msptiActivityKernel));
    EXPECT_EQ(msptiExtRecordSize(MSPTI_ACTIVITY_KIND_RUNTIME_API), sizeof(msptiActivityApi));
    EXPECT_EQ(msptiExtRecordSize(MSPTI_ACTIVITY_KIND_FORCE_INT), 0u);
}

TEST(EnumValues, MatchMspti) {
    EXPECT_EQ(MSPTI_ERROR_INNER, 999);
    EXPECT_EQ(MSPTI_ERROR_WITHOUT_LD_PRELOAD, 6);
    EXPECT_EQ(MSPTI_ACTIVITY_KIND_RUNTIME_API, 12);
    EXPECT_EQ(MSPTI_ACTIVITY_KIND_COUNT, 13);
    EXPECT_EQ(MSPTI_ACTIVITY_FLAG_MARKER_END_WITH_DEVICE, 32);
    EXPECT_EQ(MSPTI_ACTIVITY_COMMUNICATION_HIF8, 14);
    EXPECT_EQ(MSPTI_ACTIVITY_COMMUNICATION_INVALID_TYPE, 0xFFFF);
    EXPECT_EQ(MSPTI_CBID_RUNTIME_MEM_SET_PID_TO_SHAREABLE_HANDLE, 36);
    EXPECT_EQ(MSPTI_CBID_RUNTIME_SIZE, 37);
    EXPECT_EQ(MSPTI_CBID_HCCL_SENDRECV, 12);
    EXPECT_EQ(MSPTI_CB_DOMAIN_HCCL, 2);
    EXPECT_EQ(MSPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2, 4);
    EXPECT_EQ(MSPTI_INVALID_DEVICE_ID, 0xFFFFFFFFu);
    EXPECT_EQ(sizeof(msptiActivityKind), 4u);
}

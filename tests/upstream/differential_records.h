/* Shared by the differential test's C workloads (differential_workload.c, differential_hccl.c): each
 * record received printed as one line of JSON on stdout: string fields as text, pointers left out,
 * numbers as numbers; stdout holds records alone. Written against msPTI's public headers only. */
#ifndef DIFFERENTIAL_RECORDS_H
#define DIFFERENTIAL_RECORDS_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mspti/mspti.h"

#define BUFFER_SIZE (4u * 1024u * 1024u)

#define CHECK(expr) \
    do { \
        long long rc_ = (long long)(expr); \
        if (rc_ != 0) { \
            fprintf(stderr, "FAIL: %s returned %lld at line %d\n", #expr, rc_, __LINE__); \
            exit(1); \
        } \
    } while (0)

/* Prints a string field as a JSON string (NULL as null); the names here hold no control characters but
 * quotes and backslashes are escaped all the same. */
static void print_str(const char *key, const char *value) {
    if (value == NULL) {
        printf(",\"%s\":null", key);
        return;
    }
    printf(",\"%s\":\"", key);
    for (const char *p = value; *p != '\0'; ++p) {
        if (*p == '"' || *p == '\\') putchar('\\');
        if ((unsigned char)*p < 0x20) {
            printf("\\u%04x", (unsigned)(unsigned char)*p);
            continue;
        }
        putchar(*p);
    }
    putchar('"');
}

static void print_record(const msptiActivity *record) {
    printf("{\"kind\":%d", (int)record->kind);
    switch (record->kind) {
    case MSPTI_ACTIVITY_KIND_MARKER: {
        const msptiActivityMarker *m = (const msptiActivityMarker *)record;
        printf(",\"flag\":%d,\"sourceKind\":%d,\"timestamp\":%" PRIu64 ",\"id\":%" PRIu64, (int)m->flag,
               (int)m->sourceKind, m->timestamp, m->id);
        if (m->sourceKind == MSPTI_ACTIVITY_SOURCE_KIND_HOST)
            printf(",\"processId\":%u,\"threadId\":%u", m->objectId.pt.processId, m->objectId.pt.threadId);
        else
            printf(",\"deviceId\":%u,\"streamId\":%u", m->objectId.ds.deviceId, m->objectId.ds.streamId);
        print_str("name", m->name);
        print_str("domain", m->domain);
        break;
    }
    case MSPTI_ACTIVITY_KIND_API:
    case MSPTI_ACTIVITY_KIND_ACL_API:
    case MSPTI_ACTIVITY_KIND_NODE_API:
    case MSPTI_ACTIVITY_KIND_RUNTIME_API: {
        const msptiActivityApi *a = (const msptiActivityApi *)record;
        printf(",\"start\":%" PRIu64 ",\"end\":%" PRIu64 ",\"processId\":%u,\"threadId\":%u,\"correlationId\":%" PRIu64,
               a->start, a->end, a->pt.processId, a->pt.threadId, a->correlationId);
        print_str("name", a->name);
        break;
    }
    case MSPTI_ACTIVITY_KIND_KERNEL: {
        const msptiActivityKernel *k = (const msptiActivityKernel *)record;
        printf(",\"start\":%" PRIu64 ",\"end\":%" PRIu64 ",\"deviceId\":%u,\"streamId\":%u,\"correlationId\":%" PRIu64,
               k->start, k->end, k->ds.deviceId, k->ds.streamId, k->correlationId);
        print_str("type", k->type);
        print_str("name", k->name);
        break;
    }
    case MSPTI_ACTIVITY_KIND_HCCL: {
        const msptiActivityHccl *h = (const msptiActivityHccl *)record;
        printf(",\"start\":%" PRIu64 ",\"end\":%" PRIu64 ",\"deviceId\":%u,\"streamId\":%u,\"bandWidth\":%g", h->start,
               h->end, h->ds.deviceId, h->ds.streamId, h->bandWidth);
        print_str("name", h->name);
        print_str("commName", h->commName);
        break;
    }
    case MSPTI_ACTIVITY_KIND_MEMORY: {
        const msptiActivityMemory *m = (const msptiActivityMemory *)record;
        printf(",\"memoryOperationType\":%d,\"memoryKind\":%d,\"correlationId\":%" PRIu64 ",\"start\":%" PRIu64
               ",\"end\":%" PRIu64 ",\"bytes\":%" PRIu64 ",\"processId\":%u,\"deviceId\":%u,\"streamId\":%u",
               (int)m->memoryOperationType, (int)m->memoryKind, m->correlationId, m->start, m->end, m->bytes,
               m->processId, m->deviceId, m->streamId);
        break;
    }
    case MSPTI_ACTIVITY_KIND_MEMSET: {
        const msptiActivityMemset *m = (const msptiActivityMemset *)record;
        printf(",\"value\":%u,\"bytes\":%" PRIu64 ",\"start\":%" PRIu64 ",\"end\":%" PRIu64
               ",\"deviceId\":%u,\"streamId\":%u,\"correlationId\":%" PRIu64 ",\"isAsync\":%u",
               m->value, m->bytes, m->start, m->end, m->deviceId, m->streamId, m->correlationId, (unsigned)m->isAsync);
        break;
    }
    case MSPTI_ACTIVITY_KIND_MEMCPY: {
        const msptiActivityMemcpy *m = (const msptiActivityMemcpy *)record;
        printf(",\"copyKind\":%d,\"bytes\":%" PRIu64 ",\"start\":%" PRIu64 ",\"end\":%" PRIu64
               ",\"deviceId\":%u,\"streamId\":%u,\"correlationId\":%" PRIu64 ",\"isAsync\":%u",
               (int)m->copyKind, m->bytes, m->start, m->end, m->deviceId, m->streamId, m->correlationId,
               (unsigned)m->isAsync);
        break;
    }
    case MSPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: {
        const msptiActivityExternalCorrelation *e = (const msptiActivityExternalCorrelation *)record;
        printf(",\"externalKind\":%d,\"externalId\":%" PRIu64 ",\"correlationId\":%" PRIu64, (int)e->externalKind,
               e->externalId, e->correlationId);
        break;
    }
    case MSPTI_ACTIVITY_KIND_COMMUNICATION: {
        const msptiActivityCommunication *c = (const msptiActivityCommunication *)record;
        printf(",\"dataType\":%d,\"count\":%" PRIu64 ",\"deviceId\":%u,\"streamId\":%u,\"start\":%" PRIu64
               ",\"end\":%" PRIu64 ",\"correlationId\":%" PRIu64,
               (int)c->dataType, c->count, c->ds.deviceId, c->ds.streamId, c->start, c->end, c->correlationId);
        print_str("algType", c->algType);
        print_str("name", c->name);
        print_str("commName", c->commName);
        break;
    }
    default: break;
    }
    printf("}\n");
}

/* malloc's blocks are 16-byte aligned, more than the 8 records need. */
static void buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records) {
    *buffer = malloc(BUFFER_SIZE);
    *size = *buffer == NULL ? 0 : BUFFER_SIZE;
    *max_records = 0;
}

static void buffer_completed(uint8_t *buffer, size_t size, size_t valid_size) {
    (void)size;
    msptiActivity *record = NULL;
    while (valid_size > 0 && msptiActivityGetNextRecord(buffer, valid_size, &record) == MSPTI_SUCCESS)
        print_record(record);
    fflush(stdout);
    free(buffer);
}

#endif

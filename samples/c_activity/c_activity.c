/* c_activity: the Activity API from C.
 *
 * Registers buffer callbacks, enables MARKER, marks ranges in two domains (and the default
 * one), disables one domain by name, flushes, and prints every record it gets back.
 * Run: build/bin/c_activity */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "mspti/mspti.h"
#include "mspti/mspti_ext.h"
#include "mstx/ms_tools_ext.h"

#define BUFFER_BYTES (1u << 20)

static void request_buffer(uint8_t **buffer, size_t *size, size_t *max_records) {
    *buffer = malloc(BUFFER_BYTES); /* malloc's alignment (16) satisfies the 8 records need */
    *size = *buffer != NULL ? BUFFER_BYTES : 0;
    *max_records = 0;
}

static const char *flag_name(msptiActivityFlag flag) {
    switch (flag) {
    case MSPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS: return "MARK";
    case MSPTI_ACTIVITY_FLAG_MARKER_START: return "RANGE_START";
    case MSPTI_ACTIVITY_FLAG_MARKER_END: return "RANGE_END";
    case MSPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS_WITH_DEVICE: return "MARK_WITH_DEVICE";
    case MSPTI_ACTIVITY_FLAG_MARKER_START_WITH_DEVICE: return "RANGE_START_WITH_DEVICE";
    case MSPTI_ACTIVITY_FLAG_MARKER_END_WITH_DEVICE: return "RANGE_END_WITH_DEVICE";
    default: return "NONE";
    }
}

static void complete_buffer(uint8_t *buffer, size_t size, size_t valid) {
    msptiActivity *record = NULL;
    msptiResult result;
    (void)size;
    while ((result = msptiActivityGetNextRecord(buffer, valid, &record)) == MSPTI_SUCCESS) {
        if (record->kind == MSPTI_ACTIVITY_KIND_MARKER) {
            const msptiActivityMarker *m = (const msptiActivityMarker *)record;
            printf("[MARKER] %-11s id %" PRIu64 " timestamp %" PRIu64 " pid %u tid %u name \"%s\" domain \"%s\"\n",
                   flag_name(m->flag), m->id, m->timestamp, m->objectId.pt.processId, m->objectId.pt.threadId, m->name,
                   m->domain);
        } else {
            printf("[kind %d]\n", (int)record->kind);
        }
    }
    if (result != MSPTI_ERROR_MAX_LIMIT_REACHED) fprintf(stderr, "GetNextRecord: %s\n", msptiExtResultString(result));
    free(buffer);
}

static void check(msptiResult result, const char *what) {
    if (result != MSPTI_SUCCESS) {
        fprintf(stderr, "%s failed: %s (%s)\n", what, msptiExtResultString(result), msptiExtGetLastError());
        exit(1);
    }
}

int main(void) {
    mstxDomainHandle_t io, compute;
    mstxRangeId r;
    msptiExtActivityStats stats;

    check(msptiActivityRegisterCallbacks(request_buffer, complete_buffer), "msptiActivityRegisterCallbacks");
    check(msptiActivityEnable(MSPTI_ACTIVITY_KIND_MARKER), "msptiActivityEnable(MARKER)");

    io = mstxDomainCreateA("io");
    compute = mstxDomainCreateA("compute");

    mstxMarkA("program start", NULL);
    r = mstxDomainRangeStartA(io, "load batch", NULL);
    mstxDomainRangeEnd(io, r);
    r = mstxDomainRangeStartA(compute, "forward", NULL);
    mstxDomainMarkA(compute, "halfway", NULL);
    mstxDomainRangeEnd(compute, r);

    /* Turn the "io" domain off by name: its markers stop, the others go on. */
    check(msptiActivityDisableMarkerDomain("io"), "msptiActivityDisableMarkerDomain(io)");
    r = mstxDomainRangeStartA(io, "load batch (not recorded)", NULL);
    mstxDomainRangeEnd(io, r);
    r = mstxRangeStartA("step", NULL);
    mstxRangeEnd(r);

    check(msptiActivityFlushAll(1), "msptiActivityFlushAll");
    check(msptiExtActivityGetStats(MSPTI_ACTIVITY_KIND_MARKER, &stats), "msptiExtActivityGetStats");
    printf("MARKER records: produced %" PRIu64 ", delivered %" PRIu64 ", dropped %" PRIu64 "\n", stats.produced,
           stats.delivered, stats.dropped);
    check(msptiActivityDisable(MSPTI_ACTIVITY_KIND_MARKER), "msptiActivityDisable(MARKER)");
    return stats.produced == stats.delivered + stats.dropped ? 0 : 1;
}

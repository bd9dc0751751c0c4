// msPTI activity buffers, written the way msPTI's own samples write their helper: only securec.h
// and mspti.h are included, and malloc, free and printf come through securec.h.
#ifndef FOREIGN_TOOL_BUFFERS_H
#define FOREIGN_TOOL_BUFFERS_H

#include <mspti.h>  // found through $ASCEND_HOME_PATH/include/mspti

#include "securec.h"

static const size_t kToolBufferSize = 1 << 20;
static int g_kernels = 0;
static int g_markers = 0;

static void ToolBufferRequest(uint8_t **buffer, size_t *size, size_t *maxNumRecords) {
    *buffer = static_cast<uint8_t *>(malloc(kToolBufferSize));
    *size = *buffer != NULL ? kToolBufferSize : 0;
    *maxNumRecords = 0;
}

static void ToolBufferComplete(uint8_t *buffer, size_t size, size_t validSize) {
    (void)size;
    msptiActivity *record = NULL;
    while (validSize > 0 && msptiActivityGetNextRecord(buffer, validSize, &record) == MSPTI_SUCCESS) {
        if (record->kind == MSPTI_ACTIVITY_KIND_KERNEL) {
            const msptiActivityKernel *k = reinterpret_cast<const msptiActivityKernel *>(record);
            printf("[KERNEL] type: %s, name: %s, duration_ok: %d\n", k->type, k->name, k->end > k->start ? 1 : 0);
            ++g_kernels;
        } else if (record->kind == MSPTI_ACTIVITY_KIND_MARKER) {
            const msptiActivityMarker *m = reinterpret_cast<const msptiActivityMarker *>(record);
            printf("[MARKER] name: %s, name_length: %zu\n", m->name, strlen(m->name));
            ++g_markers;
        }
    }
    free(buffer);
}

#endif

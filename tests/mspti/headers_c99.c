/* Compiled as C99: the public headers must build as C, and give C the same layouts as C++. */
#include "mspti/mspti.h"
#include "mspti/mspti_ext.h"
#include "mstx/ms_tools_ext.h"

#include <stddef.h>

size_t c_layout_size(int which);
size_t c_layout_size(int which) {
    switch (which) {
    case 0: return sizeof(msptiActivityMarker);
    case 1: return offsetof(msptiActivityMarker, objectId);
    case 2: return sizeof(msptiActivityCommunication);
    case 3: return offsetof(msptiActivityCommunication, correlationId);
    case 4: return sizeof(msptiActivityMemory);
    case 5: return sizeof(msptiCallbackData);
    default: return 0;
    }
}

/* The mstx header is usable from C: taking the inline functions' addresses forces them to compile. */
void *c_mstx_entry(void);
void *c_mstx_entry(void) { return (void *)&mstxMarkA; }

size_t c_record_size(int kind);
size_t c_record_size(int kind) { return msptiExtRecordSize((msptiActivityKind)kind); }

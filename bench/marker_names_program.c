/* The whole cost of collecting marks, for instruction counts (callgrind): N marks with one
 * repeated name ("same") or a new name each ("unique"), every record read by the client (its
 * name's bytes included), one flush at the end. Compares libmspti builds: run it against each
 * with LD_LIBRARY_PATH. usage: marker_names_program same|unique|none N */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mspti/mspti.h"
#include "mstx/ms_tools_ext.h"

static size_t g_name_bytes;

static void request(uint8_t **buffer, size_t *size, size_t *max_records) {
    *size = 8u << 20;
    *buffer = (uint8_t *)malloc(*size); /* 16-aligned: more than the records need */
    *max_records = 0;
}

static void complete(uint8_t *buffer, size_t size, size_t valid) {
    (void)size;
    msptiActivity *record = NULL;
    while (msptiActivityGetNextRecord(buffer, valid, &record) == MSPTI_SUCCESS)
        if (record->kind == MSPTI_ACTIVITY_KIND_MARKER) g_name_bytes += strlen(((msptiActivityMarker *)record)->name);
    free(buffer);
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s same|unique|none N\n", argv[0]);
        return 2;
    }
    int unique = strcmp(argv[1], "unique") == 0, none = strcmp(argv[1], "none") == 0;
    long n = atol(argv[2]);
    if (!none) {
        msptiActivityRegisterCallbacks(request, complete);
        msptiActivityEnable(MSPTI_ACTIVITY_KIND_MARKER);
    }
    char name[32] = "same";
    for (long i = 0; i < n; ++i) {
        if (unique) snprintf(name, sizeof(name), "step %ld", i);
        mstxMarkA(name, NULL);
    }
    if (!none) msptiActivityFlushAll(1);
    printf("%zu name bytes read\n", g_name_bytes);
    return 0;
}

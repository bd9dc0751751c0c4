/* Loads libmspti privately (RTLD_LOCAL, path in MSPTI_LIBRARY), so the only way the mstx
 * header can find it is MSTX_INJECTION_PATH. argv[1] = expected number of marker records. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include "mspti/mspti.h"
#include "mstx/ms_tools_ext.h"

static unsigned long g_records;
static msptiResult (*p_next)(uint8_t *, size_t, msptiActivity **);

static void request(uint8_t **buffer, size_t *size, size_t *max) {
    *buffer = malloc(1 << 16); /* malloc is 16-aligned */
    *size = 1 << 16;
    *max = 0;
}

static void complete(uint8_t *buffer, size_t size, size_t valid) {
    msptiActivity *record = NULL;
    (void)size;
    while (p_next(buffer, valid, &record) == MSPTI_SUCCESS) g_records += record->kind == MSPTI_ACTIVITY_KIND_MARKER;
    free(buffer);
}

int main(int argc, char **argv) {
    const char *path = getenv("MSPTI_LIBRARY");
    void *lib = path != NULL ? dlopen(path, RTLD_NOW | RTLD_LOCAL) : NULL;
    msptiResult (*p_register)(msptiBuffersCallbackRequestFunc, msptiBuffersCallbackCompleteFunc);
    msptiResult (*p_enable)(msptiActivityKind);
    msptiResult (*p_flush)(uint32_t);
    unsigned long expected = argc > 1 ? strtoul(argv[1], NULL, 10) : 0;
    mstxRangeId range;
    if (lib == NULL) {
        fprintf(stderr, "cannot load MSPTI_LIBRARY: %s\n", dlerror());
        return 2;
    }
    *(void **)&p_register = dlsym(lib, "msptiActivityRegisterCallbacks");
    *(void **)&p_enable = dlsym(lib, "msptiActivityEnable");
    *(void **)&p_flush = dlsym(lib, "msptiActivityFlushAll");
    *(void **)&p_next = dlsym(lib, "msptiActivityGetNextRecord");
    p_register(request, complete);
    p_enable(MSPTI_ACTIVITY_KIND_MARKER);

    mstxMarkA("via_injection_path", NULL);
    range = mstxRangeStartA("range_via_injection_path", NULL);
    mstxRangeEnd(range);

    p_flush(1);
    printf("injection_path_program: %lu marker records (expected %lu)\n", g_records, expected);
    return g_records == expected ? 0 : 1;
}

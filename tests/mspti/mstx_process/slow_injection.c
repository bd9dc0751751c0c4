/* An mstx tool whose first InitInjectionMstx blocks until released, so that a test can fork
 * while another thread is inside the mstx header's one-time initialisation. Its first call
 * writes a byte to the fd in SLOW_INIT_ENTERED_FD, then waits for a byte on SLOW_INIT_RELEASE_FD.
 * Later calls (a forked child's own initialisation) do not block. */
#include <stdlib.h>
#include <unistd.h>

#include "mstx/ms_tools_ext.h"

static int g_inits;
int slow_injection_marks; /* mstxMarkA calls that reached this tool, read by the test */

static void count_mark(const char *message, aclrtStream stream) {
    (void)message;
    (void)stream;
    ++slow_injection_marks;
}

static int fd_from(const char *name) {
    const char *value = getenv(name);
    return value != NULL ? atoi(value) : -1;
}

__attribute__((visibility("default"))) int InitInjectionMstx(mstxGetModuleFuncTableFunc getFuncTable) {
    mstxFuncTable table = NULL;
    unsigned int size = 0;
    if (g_inits++ == 0) {
        char byte = 1;
        int entered = fd_from("SLOW_INIT_ENTERED_FD"), release = fd_from("SLOW_INIT_RELEASE_FD");
        if (entered < 0 || release < 0 || write(entered, &byte, 1) != 1 || read(release, &byte, 1) != 1)
            return MSTX_FAIL;
    }
    if (getFuncTable(MSTX_API_MODULE_CORE, &table, &size) != MSTX_SUCCESS || table == NULL) return MSTX_FAIL;
    if (MSTX_API_CORE_MARK_A < size && table[MSTX_API_CORE_MARK_A] != NULL)
        *table[MSTX_API_CORE_MARK_A] = (mstxFuncPointer)count_mark;
    return MSTX_SUCCESS;
}

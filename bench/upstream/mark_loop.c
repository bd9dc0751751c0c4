/* Marks for bench/upstream/python_delivery.py, made in C (the header-only mstx API, built against one
 * CANN tree) so that what is timed in Python is delivery alone, the same for either package. */
#include "mstx/ms_tools_ext.h"

__attribute__((visibility("default"))) void mark_loop(long count) {
    for (long i = 0; i < count; ++i) mstxMarkA("step", 0);
}

/* libmspti loaded first (RTLD_GLOBAL), the runtime after it privately (RTLD_LOCAL), as when a
 * Python package opens libmspti before the runtime: libmspti's entry points must still reach the
 * real runtime (dlsym(RTLD_NEXT) alone does not find it). Paths in MSPTI_LIBRARY, VNPU_LIBRARY. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

int main(void) {
    void *mspti = dlopen(getenv("MSPTI_LIBRARY"), RTLD_NOW | RTLD_GLOBAL);
    void *vnpu = dlopen(getenv("VNPU_LIBRARY"), RTLD_NOW | RTLD_LOCAL);
    int (*set_device)(int);
    int (*get_device_count)(unsigned *);
    unsigned count = 0;
    int rc_set, rc_count;
    if (mspti == NULL || vnpu == NULL) {
        fprintf(stderr, "load failed: %s\n", dlerror());
        return 2;
    }
    *(void **)&set_device = dlsym(mspti, "aclrtSetDevice");
    *(void **)&get_device_count = dlsym(vnpu, "aclrtGetDeviceCount");
    rc_set = set_device(0);
    rc_count = get_device_count(&count);
    printf("late_runtime_program: aclrtSetDevice through libmspti -> %d, devices %u\n", rc_set, count);
    return rc_set == 0 && rc_count == 0 && count > 0 ? 0 : 1;
}

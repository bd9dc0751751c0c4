/* Loads libmspti (path in MSPTI_LIBRARY) and checks the MSPTI_ERROR_WITHOUT_LD_PRELOAD gate.
 * argv[1] = "private": libmspti is opened RTLD_LOCAL, so its entry points are not the ones the
 * process resolves: the gate must close. argv[1] = "preloaded": run with LD_PRELOAD=libmspti.so,
 * the gate must open. Exit status 0 when every expectation holds. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mspti/mspti.h"

static int failures;

static void expect(const char *what, int got, int want) {
    if (got != want) {
        fprintf(stderr, "%s: got %d, want %d\n", what, got, want);
        ++failures;
    }
}

int main(int argc, char **argv) {
    int preloaded = argc > 1 && strcmp(argv[1], "preloaded") == 0;
    const char *path = getenv("MSPTI_LIBRARY");
    void *lib = path != NULL ? dlopen(path, RTLD_NOW | RTLD_LOCAL) : NULL;
    msptiResult (*enable)(msptiActivityKind);
    msptiResult (*subscribe)(msptiSubscriberHandle *, msptiCallbackFunc, void *);
    msptiResult (*unsubscribe)(msptiSubscriberHandle);
    msptiResult (*enable_callback)(uint32_t, msptiSubscriberHandle, msptiCallbackDomain, msptiCallbackId);
    msptiResult (*enable_domain)(uint32_t, msptiSubscriberHandle, msptiCallbackDomain);
    bool (*is_interposing)(void);
    msptiSubscriberHandle handle = NULL;
    int gate = preloaded ? MSPTI_SUCCESS : MSPTI_ERROR_WITHOUT_LD_PRELOAD;
    if (lib == NULL) {
        fprintf(stderr, "cannot load MSPTI_LIBRARY: %s\n", dlerror());
        return 2;
    }
    *(void **)&enable = dlsym(lib, "msptiActivityEnable");
    *(void **)&subscribe = dlsym(lib, "msptiSubscribe");
    *(void **)&unsubscribe = dlsym(lib, "msptiUnsubscribe");
    *(void **)&enable_callback = dlsym(lib, "msptiEnableCallback");
    *(void **)&enable_domain = dlsym(lib, "msptiEnableDomain");
    *(void **)&is_interposing = dlsym(lib, "msptiExtIsInterposing");

    expect("msptiExtIsInterposing", is_interposing(), preloaded);
    expect("Enable(HCCL)", enable(MSPTI_ACTIVITY_KIND_HCCL), gate);
    expect("Enable(MEMORY)", enable(MSPTI_ACTIVITY_KIND_MEMORY), gate);
    expect("Enable(MEMSET)", enable(MSPTI_ACTIVITY_KIND_MEMSET), gate);
    expect("Enable(MEMCPY)", enable(MSPTI_ACTIVITY_KIND_MEMCPY), gate);
    expect("Enable(KERNEL)", enable(MSPTI_ACTIVITY_KIND_KERNEL), MSPTI_SUCCESS);
    expect("Enable(MARKER)", enable(MSPTI_ACTIVITY_KIND_MARKER), MSPTI_SUCCESS);
    expect("Subscribe", subscribe(&handle, NULL, NULL), MSPTI_SUCCESS);
    /* The gate comes before every other check, even a bad domain. */
    expect("EnableCallback", enable_callback(1, handle, MSPTI_CB_DOMAIN_RUNTIME, MSPTI_CBID_RUNTIME_LAUNCH), gate);
    expect("EnableDomain", enable_domain(1, handle, MSPTI_CB_DOMAIN_HCCL), gate);
    expect("EnableDomain(bad domain)", enable_domain(1, handle, MSPTI_CB_DOMAIN_SIZE),
           preloaded ? MSPTI_ERROR_INVALID_PARAMETER : MSPTI_ERROR_WITHOUT_LD_PRELOAD);
    expect("Unsubscribe", unsubscribe(handle), MSPTI_SUCCESS);
    printf("interposition_probe_program (%s): %d failures\n", preloaded ? "preloaded" : "private", failures);
    return failures == 0 ? 0 : 1;
}

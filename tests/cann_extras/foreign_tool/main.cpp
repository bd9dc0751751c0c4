// A small tool built for Ascend: it logs through dlog (linked, and loaded by dlopen the way msPTI
// loads it), uses the securec functions, and profiles an aclnnAdd with msPTI's Activity API.
// It prints what it checked; run_foreign_tool.sh compares the output.
#include "tool_buffers.h"  // first: it relies on securec.h alone for the C library

#include <dlfcn.h>
#include <unistd.h>

#include "acl/acl.h"
#include "aclnnop/aclnn_add.h"
#include "mstx/ms_tools_ext.h"
#include "toolchain/slog.h"

#define CHECK(cond) \
    do { \
        if (!(cond)) { \
            printf("check failed: %s (main.cpp:%d)\n", #cond, __LINE__); \
            return 1; \
        } \
    } while (0)

static int UseSecurec() {
    char name[32];
    CHECK(sprintf_s(name, sizeof(name), "foreign_tool.rank%d", 0) == 18);
    int device = -1;
    unsigned size = 0;
    char tag[8];
    CHECK(sscanf_s("device=0 size=8 tag=add", "device=%d size=%u tag=%7s", &device, &size, tag, 8u) == 3);
    char path[16];
    CHECK(strcpy_s(path, sizeof(path), "/tmp") == EOK);
    CHECK(strcat_s(path, sizeof(path), "/plog") == EOK);
    CHECK(strcat_s(path, sizeof(path), "/much/too/long") == ERANGE_AND_RESET && path[0] == '\0');
    char shortBuf[4];
    CHECK(snprintf_s(shortBuf, sizeof(shortBuf), sizeof(shortBuf) - 1, "%s", "truncated") == -1);
    float values[8];
    CHECK(memset_s(values, sizeof(values), 0, sizeof(values)) == EOK);
    printf("securec: ok name=%s device=%d size=%u tag=%s short=%s\n", name, device, size, tag, shortBuf);
    return 0;
}

typedef int (*CheckLogLevelFn)(int, int);
typedef void (*DlogInnerFn)(int, int, const char *, ...);

static int LogByDlopen() {
    void *lib = dlopen("libascendalog.so", RTLD_NOW | RTLD_LOCAL);
    CHECK(lib != NULL);
    CheckLogLevelFn check = reinterpret_cast<CheckLogLevelFn>(dlsym(lib, "CheckLogLevelForC"));
    DlogInnerFn inner = reinterpret_cast<DlogInnerFn>(dlsym(lib, "DlogInnerForC"));
    CHECK(check != NULL && inner != NULL);
    if (check(PROFILING, DLOG_INFO) == 1) {
        inner(PROFILING, DLOG_INFO, "(foreign)[main.cpp:%d] >>> (tid:%d) libascendalog loaded by dlopen\n", __LINE__,
              1);
    }
    return 0;
}

static aclTensor *MakeTensor(void *dev) {
    const int64_t shape[] = {4, 2};
    const int64_t strides[] = {2, 1};
    return aclCreateTensor(shape, 2, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, shape, 2, dev);
}

static int RunAdd() {
    CHECK(aclInit(NULL) == ACL_SUCCESS);
    CHECK(aclrtSetDevice(0) == ACL_SUCCESS);
    aclrtStream stream = NULL;
    CHECK(aclrtCreateStream(&stream) == ACL_SUCCESS);
    const size_t bytes = 8 * sizeof(float);
    float self[8], other[8], out[8];
    for (int i = 0; i < 8; ++i) {
        self[i] = static_cast<float>(i);
        other[i] = 2.0f;
    }
    void *dSelf = NULL, *dOther = NULL, *dOut = NULL;
    CHECK(aclrtMalloc(&dSelf, bytes, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS);
    CHECK(aclrtMalloc(&dOther, bytes, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS);
    CHECK(aclrtMalloc(&dOut, bytes, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS);
    CHECK(aclrtMemcpy(dSelf, bytes, self, bytes, ACL_MEMCPY_HOST_TO_DEVICE) == ACL_SUCCESS);
    CHECK(aclrtMemcpy(dOther, bytes, other, bytes, ACL_MEMCPY_HOST_TO_DEVICE) == ACL_SUCCESS);

    aclTensor *tSelf = MakeTensor(dSelf), *tOther = MakeTensor(dOther), *tOut = MakeTensor(dOut);
    float alphaValue = 0.5f;
    aclScalar *alpha = aclCreateScalar(&alphaValue, ACL_FLOAT);
    uint64_t workspaceSize = 0;
    aclOpExecutor *executor = NULL;
    CHECK(aclnnAddGetWorkspaceSize(tSelf, tOther, alpha, tOut, &workspaceSize, &executor) == ACL_SUCCESS);
    void *workspace = NULL;
    if (workspaceSize > 0) {
        CHECK(aclrtMalloc(&workspace, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS);
    }
    mstxMarkA("foreign_tool_add", NULL);
    CHECK(aclnnAdd(workspace, workspaceSize, executor, stream) == ACL_SUCCESS);
    CHECK(aclrtSynchronizeStream(stream) == ACL_SUCCESS);
    CHECK(aclrtMemcpy(out, bytes, dOut, bytes, ACL_MEMCPY_DEVICE_TO_HOST) == ACL_SUCCESS);
    for (int i = 0; i < 8; ++i) {
        CHECK(out[i] == static_cast<float>(i) + 1.0f);
    }
    printf("add: ok out[7]=%.1f\n", out[7]);
    dlog_info(APP, "aclnnAdd done, workspace %llu bytes", static_cast<unsigned long long>(workspaceSize));

    aclDestroyTensor(tSelf);
    aclDestroyTensor(tOther);
    aclDestroyTensor(tOut);
    aclDestroyScalar(alpha);
    if (workspace != NULL) {
        aclrtFree(workspace);
    }
    aclrtFree(dSelf);
    aclrtFree(dOther);
    aclrtFree(dOut);
    CHECK(aclrtDestroyStream(stream) == ACL_SUCCESS);
    CHECK(aclrtResetDevice(0) == ACL_SUCCESS);
    aclFinalize();
    return 0;
}

int main() {
    dlog_info(APP, "foreign tool starting, pid %d", static_cast<int>(getpid()));
    if (UseSecurec() != 0 || LogByDlopen() != 0) {
        return 1;
    }
    msptiSubscriberHandle subscriber = NULL;
    CHECK(msptiSubscribe(&subscriber, NULL, NULL) == MSPTI_SUCCESS);
    CHECK(msptiActivityRegisterCallbacks(ToolBufferRequest, ToolBufferComplete) == MSPTI_SUCCESS);
    CHECK(msptiActivityEnable(MSPTI_ACTIVITY_KIND_KERNEL) == MSPTI_SUCCESS);
    CHECK(msptiActivityEnable(MSPTI_ACTIVITY_KIND_MARKER) == MSPTI_SUCCESS);
    if (RunAdd() != 0) {
        return 1;
    }
    CHECK(msptiUnsubscribe(subscriber) == MSPTI_SUCCESS);
    CHECK(msptiActivityFlushAll(1) == MSPTI_SUCCESS);
    printf("records: kernels=%d markers=%d\n", g_kernels, g_markers);
    DlogFlush();
    return g_kernels == 1 && g_markers == 1 ? 0 : 1;
}

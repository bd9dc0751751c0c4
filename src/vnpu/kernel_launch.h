// Kernels the virtual NPU can launch. An aclrtFuncHandle is the address of one of these descriptors.
#pragma once

#include <cstddef>

namespace vnpu {

struct KernelFunction {
    const char *name;  // as the profiler reports it
    const char *type;  // "KERNEL_AIVEC", "KERNEL_AICORE", ...
    size_t args_size;  // exact size of the argument block
    void (*run)(const void *args);  // on the stream worker
    void (*release)(const void *args);  // once per launch that passed validation, run or not (may be null)
};

/// The descriptor behind a function handle, or nullptr if the handle is not a known kernel.
const KernelFunction *find_kernel(const void *func_handle);

}  // namespace vnpu

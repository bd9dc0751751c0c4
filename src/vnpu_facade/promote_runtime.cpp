// libvnpu.so reaches a language binding as a dependency of its module, which the language runtime
// (Python, the JVM) dlopen()s RTLD_LOCAL, so libvnpu's symbols are not in the global scope. An
// LD_PRELOADed libmspti.so looks the runtime up there (it interposes ACL and HCCL for KERNEL and
// COMMUNICATION records): the module promotes the library it already has, once, at load.
#include <dlfcn.h>

#include "vnpu_facade.h"
#include "vnpu/vnpu_stream.h"

namespace vnpu::api {

void promote_runtime_to_global_scope() {
    Dl_info info;
    if (dladdr(reinterpret_cast<void *>(&vnpuStreamGetIds), &info) != 0 && info.dli_fname != nullptr)
        dlopen(info.dli_fname, RTLD_NOW | RTLD_GLOBAL | RTLD_NOLOAD);  // a reference the process keeps
}

}  // namespace vnpu::api

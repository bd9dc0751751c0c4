// The test runtime's extras beyond the ACL/HCCL C interface (see fake_runtime.cpp).
#pragma once

#include "interpose/acl_abi.h"

extern "C" {
// A node-level operator: NODE API span around one aclrtLaunchKernelWithHostArgs.
aclError fakeNodeOp(void *stream);
// A communicator of `ranks` ranks in one process, named `name`.
HcclResult fakeCommCreate(uint32_t ranks, const char *name, HcclComm *comm);
HcclResult HcclCommDestroy(HcclComm comm);
}

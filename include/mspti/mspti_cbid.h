/**
 * @file mspti_cbid.h
 * @brief Callback ids of the RUNTIME and HCCL callback domains.
 *
 * Values are identical to Ascend msPTI's. Ids marked "never fired" exist for
 * compatibility; no interposed entry point reports them.
 */
#ifndef MSPTI_CBID_H
#define MSPTI_CBID_H

#ifdef __cplusplus
extern "C" {
#endif

/** @brief Callback ids of the MSPTI_CB_DOMAIN_RUNTIME domain (ACL runtime entry points). */
typedef enum {
    MSPTI_CBID_RUNTIME_INVALID = 0,
    MSPTI_CBID_RUNTIME_DEVICE_SET = 1,          /**< aclrtSetDevice */
    MSPTI_CBID_RUNTIME_DEVICE_RESET = 2,        /**< aclrtResetDevice */
    MSPTI_CBID_RUNTIME_DEVICE_SET_EX = 3,       /**< never fired */
    MSPTI_CBID_RUNTIME_CONTEXT_CREATED_EX = 4,  /**< never fired */
    MSPTI_CBID_RUNTIME_CONTEXT_CREATED = 5,     /**< aclrtCreateContext */
    MSPTI_CBID_RUNTIME_CONTEXT_DESTROY = 6,     /**< aclrtDestroyContext */
    MSPTI_CBID_RUNTIME_STREAM_CREATED = 7,      /**< aclrtCreateStream */
    MSPTI_CBID_RUNTIME_STREAM_DESTROY = 8,      /**< aclrtDestroyStream */
    MSPTI_CBID_RUNTIME_STREAM_SYNCHRONIZED = 9, /**< aclrtSynchronizeStream */
    MSPTI_CBID_RUNTIME_LAUNCH = 10,             /**< aclrtLaunchKernel and its variants */
    MSPTI_CBID_RUNTIME_CPU_LAUNCH = 11,         /**< never fired */
    MSPTI_CBID_RUNTIME_AICPU_LAUNCH = 12,       /**< never fired */
    MSPTI_CBID_RUNTIME_AIV_LAUNCH = 13,         /**< never fired */
    MSPTI_CBID_RUNTIME_FFTS_LAUNCH = 14,        /**< never fired */
    MSPTI_CBID_RUNTIME_MALLOC = 15,             /**< aclrtMalloc and variants, aclrtMallocCached */
    MSPTI_CBID_RUNTIME_FREE = 16,               /**< aclrtFree */
    MSPTI_CBID_RUNTIME_MALLOC_HOST = 17,        /**< aclrtMallocHost */
    MSPTI_CBID_RUNTIME_FREE_HOST = 18,          /**< aclrtFreeHost */
    MSPTI_CBID_RUNTIME_MALLOC_CACHED = 19,      /**< never fired (aclrtMallocCached reports MALLOC) */
    MSPTI_CBID_RUNTIME_FLUSH_CACHE = 20,        /**< aclrtMemFlush */
    MSPTI_CBID_RUNTIME_INVALID_CACHE = 21,      /**< aclrtMemInvalidate */
    MSPTI_CBID_RUNTIME_MEMCPY = 22,             /**< aclrtMemcpy */
    MSPTI_CBID_RUNTIME_MEMCPY_HOST = 23,        /**< never fired */
    MSPTI_CBID_RUNTIME_MEMCPY_ASYNC = 24,       /**< aclrtMemcpyAsync */
    MSPTI_CBID_RUNTIME_MEM_CPY2D = 25,          /**< aclrtMemcpy2d */
    MSPTI_CBID_RUNTIME_MEM_CPY2D_ASYNC = 26,    /**< aclrtMemcpy2dAsync */
    MSPTI_CBID_RUNTIME_MEM_SET = 27,            /**< aclrtMemset */
    MSPTI_CBID_RUNTIME_MEM_SET_ASYNC = 28,      /**< aclrtMemsetAsync */
    MSPTI_CBID_RUNTIME_MEM_GET_INFO = 29,       /**< aclrtGetMemInfo */
    MSPTI_CBID_RUNTIME_RESERVE_MEM_ADDRESS = 30, /**< aclrtReserveMemAddress */
    MSPTI_CBID_RUNTIME_RELEASE_MEM_ADDRESS = 31, /**< aclrtReleaseMemAddress */
    MSPTI_CBID_RUNTIME_MALLOC_PHYSICAL = 32,    /**< aclrtMallocPhysical */
    MSPTI_CBID_RUNTIME_FREE_PHYSICAL = 33,      /**< aclrtFreePhysical */
    MSPTI_CBID_RUNTIME_MEM_EXPORT_TO_SHAREABLE_HANDLE = 34,   /**< aclrtMemExportToShareableHandle */
    MSPTI_CBID_RUNTIME_MEM_IMPORT_FROM_SHAREABLE_HANDLE = 35, /**< aclrtMemImportFromShareableHandle */
    MSPTI_CBID_RUNTIME_MEM_SET_PID_TO_SHAREABLE_HANDLE = 36,  /**< aclrtMemSetPidToShareableHandle */
    MSPTI_CBID_RUNTIME_SIZE = 37,
    MSPTI_CBID_RUNTIME_FORCE_INT = 0x7fffffff
} msptiCallbackIdRuntime;

/** @brief Callback ids of the MSPTI_CB_DOMAIN_HCCL domain (HCCL collectives). */
typedef enum {
    MSPTI_CBID_HCCL_INVALID = 0,
    MSPTI_CBID_HCCL_ALLREDUCE = 1,      /**< HcclAllReduce */
    MSPTI_CBID_HCCL_BROADCAST = 2,      /**< HcclBroadcast */
    MSPTI_CBID_HCCL_ALLGATHER = 3,      /**< HcclAllGather */
    MSPTI_CBID_HCCL_REDUCE_SCATTER = 4, /**< HcclReduceScatter */
    MSPTI_CBID_HCCL_REDUCE = 5,         /**< HcclReduce */
    MSPTI_CBID_HCCL_ALL_TO_ALL = 6,     /**< HcclAlltoAll */
    MSPTI_CBID_HCCL_ALL_TO_ALLV = 7,    /**< HcclAlltoAllV */
    MSPTI_CBID_HCCL_BARRIER = 8,        /**< HcclBarrier */
    MSPTI_CBID_HCCL_SCATTER = 9,        /**< HcclScatter */
    MSPTI_CBID_HCCL_SEND = 10,          /**< HcclSend */
    MSPTI_CBID_HCCL_RECV = 11,          /**< HcclRecv */
    MSPTI_CBID_HCCL_SENDRECV = 12,      /**< HcclBatchSendRecv */
    MSPTI_CBID_HCCL_SIZE = 13,
    MSPTI_CBID_HCCL_FORCE_INT = 0x7fffffff
} msptiCallbackIdHccl;

#ifdef __cplusplus
}
#endif

#endif /* MSPTI_CBID_H */

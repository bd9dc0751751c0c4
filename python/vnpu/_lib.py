"""ctypes bindings to the virtual NPU's CANN C API (libvnpu.so).

Why ctypes and not SWIG: the ACL/aclnn/HCCL API is already a plain C ABI, so there is nothing
for a generator to adapt; ctypes releases the GIL on every foreign call, which the blocking calls
(stream synchronisation, collectives waiting for other ranks) need so that msPTI's delivery thread
can run Python callbacks meanwhile; and there is no compiled glue to keep in step with the headers.

libvnpu is loaded with RTLD_GLOBAL (the msPTI interposer finds it through dlsym), and every
function is resolved as a program linked against libascendcl would resolve it: an LD_PRELOADed
libmspti.so interposes on them (see _resolve).
"""

import ctypes
import os

try:
    from ._paths import LIB_DIR as _BUILD_LIB_DIR
except ImportError:  # installed without the build-tree path file
    _BUILD_LIB_DIR = None

c_void_p = ctypes.c_void_p
c_int = ctypes.c_int
c_int32 = ctypes.c_int32
c_int64 = ctypes.c_int64
c_uint32 = ctypes.c_uint32
c_uint64 = ctypes.c_uint64
c_size_t = ctypes.c_size_t

ACL_SUCCESS = 0
ACL_MEMCPY_HOST_TO_DEVICE = 1
ACL_MEMCPY_DEVICE_TO_HOST = 2
ACL_MEMCPY_DEVICE_TO_DEVICE = 3
ACL_MEM_MALLOC_HUGE_FIRST = 0
ACL_FORMAT_ND = 2
HCCL_ROOT_INFO_BYTES = 4108


class NpuError(RuntimeError):
    """A virtual-NPU call failed; ``code`` is the aclError / aclnnStatus / HcclResult."""

    def __init__(self, function, code):
        super().__init__(f"{function} failed with code {code}")
        self.function = function
        self.code = code


def _candidates():
    env = os.environ.get("VNPU_LIB_DIR")
    if env:
        yield os.path.join(env, "libvnpu.so")
    if _BUILD_LIB_DIR:
        yield os.path.join(_BUILD_LIB_DIR, "libvnpu.so")
    yield "libvnpu.so"


def _load():
    last = None
    for path in _candidates():
        if os.path.sep in path and not os.path.exists(path):
            continue
        try:
            return ctypes.CDLL(path, mode=os.RTLD_GLOBAL)
        except OSError as exc:
            last = exc
    raise ImportError(f"libvnpu.so not found (set VNPU_LIB_DIR): {last}")


LIBRARY = _load()
# The global scope: LD_PRELOADed interposers come first, as for a linked program.
_GLOBAL = ctypes.CDLL(None)


class _DlInfo(ctypes.Structure):
    _fields_ = [("dli_fname", ctypes.c_char_p), ("dli_fbase", c_void_p), ("dli_sname", ctypes.c_char_p),
                ("dli_saddr", c_void_p)]


_dladdr = _GLOBAL.dladdr
_dladdr.argtypes = [c_void_p, ctypes.POINTER(_DlInfo)]


def _preloaded():
    entries = [e for e in os.environ.get("LD_PRELOAD", "").replace(":", " ").split() if e]
    return {os.path.realpath(e) for e in entries} | {os.path.basename(e) for e in entries}


_PRELOADED = _preloaded()


def _defining_file(function):
    info = _DlInfo()
    if not _dladdr(ctypes.cast(function, c_void_p), ctypes.byref(info)) or not info.dli_fname:
        return None
    return info.dli_fname.decode()


def _resolve(name):
    """The definition a program linked against the runtime would call.

    That is the global one when an LD_PRELOADed library (libmspti.so) interposes on it. A library
    that was only dlopen'ed RTLD_GLOBAL ahead of libvnpu (``import mspti`` first) also shadows
    the name globally but cannot reach the runtime behind it (RTLD_NEXT does not see libraries
    dlopen'ed after it), so then the runtime's own definition is used.
    """
    own = getattr(LIBRARY, name)
    first = getattr(_GLOBAL, name)
    if ctypes.cast(first, c_void_p).value == ctypes.cast(own, c_void_p).value:
        return first
    path = _defining_file(first)
    if path and (os.path.realpath(path) in _PRELOADED or os.path.basename(path) in _PRELOADED):
        return first
    return own


def _fn(name, argtypes, restype=c_int):
    f = _resolve(name)
    f.argtypes = argtypes
    f.restype = restype
    return f


P = ctypes.POINTER
# ACL runtime
aclInit = _fn("aclInit", [ctypes.c_char_p])
aclrtSetDevice = _fn("aclrtSetDevice", [c_int32])
aclrtGetDevice = _fn("aclrtGetDevice", [P(c_int32)])
aclrtGetDeviceCount = _fn("aclrtGetDeviceCount", [P(c_uint32)])
aclrtSynchronizeDevice = _fn("aclrtSynchronizeDevice", [])
aclrtCreateStream = _fn("aclrtCreateStream", [P(c_void_p)])
aclrtDestroyStream = _fn("aclrtDestroyStream", [c_void_p])
aclrtSynchronizeStream = _fn("aclrtSynchronizeStream", [c_void_p])
aclrtStreamGetId = _fn("aclrtStreamGetId", [c_void_p, P(c_int32)])
aclrtMalloc = _fn("aclrtMalloc", [P(c_void_p), c_size_t, c_int])
aclrtFree = _fn("aclrtFree", [c_void_p])
aclrtMemcpy = _fn("aclrtMemcpy", [c_void_p, c_size_t, c_void_p, c_size_t, c_int])
# aclnn
aclCreateTensor = _fn("aclCreateTensor", [P(c_int64), c_uint64, c_int, P(c_int64), c_int64, c_int, P(c_int64),
                                          c_uint64, c_void_p], c_void_p)
aclDestroyTensor = _fn("aclDestroyTensor", [c_void_p])
aclCreateScalar = _fn("aclCreateScalar", [c_void_p, c_int], c_void_p)
aclDestroyScalar = _fn("aclDestroyScalar", [c_void_p])
aclnnAddGetWorkspaceSize = _fn("aclnnAddGetWorkspaceSize", [c_void_p, c_void_p, c_void_p, c_void_p, P(c_uint64),
                                                            P(c_void_p)])
aclnnAdd = _fn("aclnnAdd", [c_void_p, c_uint64, c_void_p, c_void_p])
aclnnMulGetWorkspaceSize = _fn("aclnnMulGetWorkspaceSize", [c_void_p, c_void_p, c_void_p, P(c_uint64), P(c_void_p)])
aclnnMul = _fn("aclnnMul", [c_void_p, c_uint64, c_void_p, c_void_p])
aclnnMatmulGetWorkspaceSize = _fn("aclnnMatmulGetWorkspaceSize", [c_void_p, c_void_p, c_void_p, ctypes.c_int8,
                                                                  P(c_uint64), P(c_void_p)])
aclnnMatmul = _fn("aclnnMatmul", [c_void_p, c_uint64, c_void_p, c_void_p])
aclnnReluGetWorkspaceSize = _fn("aclnnReluGetWorkspaceSize", [c_void_p, c_void_p, P(c_uint64), P(c_void_p)])
aclnnRelu = _fn("aclnnRelu", [c_void_p, c_uint64, c_void_p, c_void_p])
# HCCL
HcclGetRootInfo = _fn("HcclGetRootInfo", [c_void_p])
HcclCommInitRootInfo = _fn("HcclCommInitRootInfo", [c_uint32, c_void_p, c_uint32, P(c_void_p)])
vnpuHcclGetWorldRootInfo = _fn("vnpuHcclGetWorldRootInfo", [c_void_p])
HcclCommDestroy = _fn("HcclCommDestroy", [c_void_p])
HcclGetCommName = _fn("HcclGetCommName", [c_void_p, ctypes.c_char_p])
HcclAllReduce = _fn("HcclAllReduce", [c_void_p, c_void_p, c_uint64, c_int, c_int, c_void_p, c_void_p])
HcclBroadcast = _fn("HcclBroadcast", [c_void_p, c_uint64, c_int, c_uint32, c_void_p, c_void_p])
HcclAllGather = _fn("HcclAllGather", [c_void_p, c_void_p, c_uint64, c_int, c_void_p, c_void_p])
HcclReduceScatter = _fn("HcclReduceScatter", [c_void_p, c_void_p, c_uint64, c_int, c_int, c_void_p, c_void_p])
HcclBarrier = _fn("HcclBarrier", [c_void_p, c_void_p])


def check(function, code):
    """Raises NpuError unless ``code`` is 0."""
    if code != ACL_SUCCESS:
        raise NpuError(function, code)


def call(function, *args):
    """Calls a bound function and raises NpuError on a non-zero result."""
    check(function.__name__, function(*args))

"""aclnn operators on device tensors: add, mul, matmul, relu (fp32 and fp16).

Each call follows CANN's two phases (GetWorkspaceSize, then launch on the current stream) and
returns at once; the result is ready after ``synchronize()``.
"""

import ctypes

import numpy as np

from . import _lib
from .device import current_stream
from .tensors import Tensor, _ACL_DTYPE, empty


class _Descriptor:
    """An aclTensor describing a contiguous device tensor (destroyed on exit)."""

    def __init__(self, t):
        shape = t.shape
        strides = [1] * len(shape)
        for i in range(len(shape) - 2, -1, -1):
            strides[i] = strides[i + 1] * shape[i + 1]
        n = len(shape)
        dims = (ctypes.c_int64 * max(n, 1))(*shape)
        st = (ctypes.c_int64 * max(n, 1))(*strides)
        self.handle = _lib.aclCreateTensor(dims, n, _ACL_DTYPE[t.dtype], st, 0, _lib.ACL_FORMAT_ND, dims, n,
                                           t.data_ptr)
        if not self.handle:
            raise _lib.NpuError("aclCreateTensor", -1)

    def __enter__(self):
        return self.handle

    def __exit__(self, *exc):
        _lib.aclDestroyTensor(self.handle)


def _device_operands(*tensors):
    device = None
    for t in tensors:
        if not isinstance(t, Tensor):
            raise TypeError(f"expected a vnpu.Tensor, got {type(t).__name__}")
        if t.device is None:
            raise ValueError("operands must be on a device: call .npu() first")
        if device is not None and t.device != device:
            raise ValueError(f"operands on different devices ({device} and {t.device})")
        device = t.device
    dtypes = {t.dtype for t in tensors}
    if len(dtypes) != 1 or next(iter(dtypes)) not in _ACL_DTYPE:
        raise TypeError(f"unsupported or mixed dtypes: {sorted(str(d) for d in dtypes)}")
    return device, tensors[0].dtype


def _launch(name, get_workspace, launch, device, *args):
    """Runs phase 1 with ``args`` + (workspaceSize, executor) and phase 2 on the current stream."""
    ws_size = ctypes.c_uint64()
    executor = ctypes.c_void_p()
    _lib.check(name + "GetWorkspaceSize", get_workspace(*args, ctypes.byref(ws_size), ctypes.byref(executor)))
    workspace = empty(ws_size.value, dtype=np.uint8, device=device) if ws_size.value else None
    _lib.check(name, launch(workspace.data_ptr if workspace else None, ws_size.value, executor,
                            current_stream(device).handle))


def add(x, y, alpha=1.0):
    """x + alpha * y, with broadcasting (aclnnAdd: one KERNEL_AIVEC kernel)."""
    device, dtype = _device_operands(x, y)
    out = empty(np.broadcast_shapes(x.shape, y.shape), dtype=dtype, device=device)
    value = ctypes.c_float(alpha)
    scalar = _lib.aclCreateScalar(ctypes.byref(value), 0)
    try:
        with _Descriptor(x) as a, _Descriptor(y) as b, _Descriptor(out) as o:
            _launch("aclnnAdd", _lib.aclnnAddGetWorkspaceSize, _lib.aclnnAdd, device, a, b, scalar, o)
    finally:
        _lib.aclDestroyScalar(scalar)
    return out


def mul(x, y):
    """x * y elementwise, with broadcasting (aclnnMul)."""
    device, dtype = _device_operands(x, y)
    out = empty(np.broadcast_shapes(x.shape, y.shape), dtype=dtype, device=device)
    with _Descriptor(x) as a, _Descriptor(y) as b, _Descriptor(out) as o:
        _launch("aclnnMul", _lib.aclnnMulGetWorkspaceSize, _lib.aclnnMul, device, a, b, o)
    return out


def _matmul_shape(a, b):
    if not a or not b:
        raise ValueError("matmul needs at least 1-D operands")
    a2 = (1,) + a if len(a) == 1 else a
    b2 = b + (1,) if len(b) == 1 else b
    if a2[-1] != b2[-2]:
        raise ValueError(f"matmul shape mismatch: {a} @ {b}")
    shape = np.broadcast_shapes(a2[:-2], b2[:-2]) + (a2[-2], b2[-1])
    if len(a) == 1:
        shape = shape[:-2] + shape[-1:]
    if len(b) == 1:
        shape = shape[:-1]
    return shape


def matmul(x, y):
    """x @ y with torch.matmul semantics (aclnnMatmul: one KERNEL_AICORE kernel)."""
    device, dtype = _device_operands(x, y)
    out = empty(_matmul_shape(x.shape, y.shape), dtype=dtype, device=device)
    with _Descriptor(x) as a, _Descriptor(y) as b, _Descriptor(out) as o:
        _launch("aclnnMatmul", _lib.aclnnMatmulGetWorkspaceSize, _lib.aclnnMatmul, device, a, b, o, 0)
    return out


def relu(x):
    """max(x, 0) (aclnnRelu)."""
    device, dtype = _device_operands(x)
    out = empty(x.shape, dtype=dtype, device=device)
    with _Descriptor(x) as a, _Descriptor(out) as o:
        _launch("aclnnRelu", _lib.aclnnReluGetWorkspaceSize, _lib.aclnnRelu, device, a, o)
    return out

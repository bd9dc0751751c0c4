"""aclnn operators on device tensors: add, mul, matmul, relu (fp32 and fp16), on :mod:`vnpu.native`.

Each call follows CANN's two phases (GetWorkspaceSize, then launch on the current stream) and
returns at once; the result is ready after ``synchronize()``. Result shapes (broadcasting, matmul)
and the checks of devices and dtypes are the facade's, shared with every language.
"""

from . import native
from ._errors import describe
from .tensors import Tensor


def _device_operands(*tensors):
    """The operands' native tensors; TypeError for non-tensors, ValueError for host tensors."""
    out = []
    for t in tensors:
        if not isinstance(t, Tensor):
            raise TypeError(f"expected a vnpu.Tensor, got {describe(t)} ({type(t).__name__})")
        if t.device is None:
            raise ValueError(f"operands must be on a device, not {t!r}: call .npu() first")
        out.append(t._native)
    return out


def _wrap(result, like):
    return Tensor(shape=result.shape(), dtype=like.dtype, device=result.device(), _native=result)


def add(x, y, alpha=1.0):
    """x + alpha * y, with broadcasting (aclnnAdd: one KERNEL_AIVEC kernel)."""
    a, b = _device_operands(x, y)
    return _wrap(native.add(a, b, None, float(alpha)), x)


def mul(x, y):
    """x * y elementwise, with broadcasting (aclnnMul)."""
    a, b = _device_operands(x, y)
    return _wrap(native.mul(a, b), x)


def matmul(x, y):
    """x @ y with torch.matmul semantics (aclnnMatmul: one KERNEL_AICORE kernel)."""
    a, b = _device_operands(x, y)
    return _wrap(native.matmul(a, b), x)


def relu(x):
    """max(x, 0) (aclnnRelu)."""
    (a,) = _device_operands(x)
    return _wrap(native.relu(a), x)

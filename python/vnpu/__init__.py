"""vnpu: the virtual NPU from Python, a small torch/torch_npu stand-in.

    import vnpu
    vnpu.set_device(0)
    x = vnpu.randn(1024, 1024, dtype=vnpu.float16).npu()
    y = vnpu.randn(1024, 1024, dtype=vnpu.float16).npu()
    z = vnpu.matmul(x, y)          # or x @ y; also x + y, x * y, vnpu.relu(x)
    vnpu.synchronize()
    print(z.numpy())

Devices and streams: :func:`set_device`, :func:`current_device`, :func:`device_count`,
:func:`current_stream`, :func:`synchronize`, :class:`Stream`. Collectives: :mod:`vnpu.distributed`.
Launcher: ``python3 -m vnpu.run --nproc_per_node N script.py``.
"""

from ._errors import NpuError
from .device import Stream, current_device, current_stream, device_count, set_device, synchronize
from .ops import add, matmul, mul, relu
from .tensors import Tensor, empty, float16, float32, from_numpy, ones, randn, tensor, zeros
from . import distributed

__all__ = ["NpuError", "Stream", "current_device", "current_stream", "device_count", "set_device", "synchronize",
           "add", "matmul", "mul", "relu", "Tensor", "empty", "float16", "float32", "from_numpy", "ones", "randn",
           "tensor", "zeros", "distributed"]

"""vnpu: the virtual NPU from Python, a small torch/torch_npu stand-in (typed)."""

from . import distributed as distributed, native as native
from ._errors import NpuError as NpuError
from .device import (Stream as Stream, current_device as current_device, current_stream as current_stream,
                     device_count as device_count, set_device as set_device, synchronize as synchronize)
from .ops import add as add, matmul as matmul, mul as mul, relu as relu
from .tensors import (Tensor as Tensor, empty as empty, float16 as float16, float32 as float32,
                      from_numpy as from_numpy, ones as ones, randn as randn, tensor as tensor, zeros as zeros)

__all__ = ["NpuError", "Stream", "current_device", "current_stream", "device_count", "set_device", "synchronize",
           "add", "matmul", "mul", "relu", "Tensor", "empty", "float16", "float32", "from_numpy", "ones", "randn",
           "tensor", "zeros", "distributed"]

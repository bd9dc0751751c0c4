"""aclnn operators on device tensors: add, mul, matmul, relu (fp32 and fp16)."""

from .tensors import Tensor


def add(x: Tensor, y: Tensor, alpha: float = 1.0) -> Tensor:
    """x + alpha * y, with broadcasting (aclnnAdd)."""
def mul(x: Tensor, y: Tensor) -> Tensor:
    """x * y elementwise, with broadcasting (aclnnMul)."""
def matmul(x: Tensor, y: Tensor) -> Tensor:
    """x @ y with torch.matmul semantics (aclnnMatmul)."""
def relu(x: Tensor) -> Tensor:
    """max(x, 0) (aclnnRelu)."""

from typing import Optional


class NpuError(RuntimeError):
    """A virtual-NPU call failed; ``code`` is the aclError / aclnnStatus / HcclResult."""

    function: str
    code: int
    def __init__(self, function: str, code: int, message: Optional[str] = None) -> None: ...
def describe(value: object) -> str:
    """A bad argument as messages show it: its repr, shortened past 80 characters."""

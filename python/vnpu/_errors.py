"""The exception the virtual NPU raises when a runtime call fails (vnpu.native raises it too)."""


class NpuError(RuntimeError):
    """A virtual-NPU call failed; ``code`` is the aclError / aclnnStatus / HcclResult."""

    def __init__(self, function, code, message=None):
        # message: the whole text when the runtime says why (e.g. which ranks of a collective disagreed)
        super().__init__(message or f"{function} failed with code {code}")
        self.function = function
        self.code = code

"""The exception the virtual NPU raises when a runtime call fails (vnpu.native raises it too), and
how error messages show a bad argument."""

import reprlib

_shortened = reprlib.Repr()
_shortened.maxother = _shortened.maxstring = 80  # a tensor's repr fits; a huge list does not


def describe(value):
    """A bad argument as messages show it: its repr, shortened past 80 characters."""
    return _shortened.repr(value)


class NpuError(RuntimeError):
    """A virtual-NPU call failed; ``code`` is the aclError / aclnnStatus / HcclResult."""

    def __init__(self, function, code, message=None):
        # message: the whole text when the runtime says why (e.g. which ranks of a collective disagreed)
        super().__init__(message or f"{function} failed with code {code}")
        self.function = function
        self.code = code

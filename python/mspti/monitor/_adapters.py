"""Director adapters: Python callables as implementations of the native callback interfaces.

The callable is stored as the instance attribute ``on_record`` (``on_batch``), so the native
director calls it directly, without an extra Python frame in between.
"""

from .._loader import native


def _describe(fn):
    return getattr(fn, "__qualname__", None) or repr(fn)


def _adapter_class(base, method):
    def __init__(self, fn):
        base.__init__(self)
        setattr(self, method, fn)

    def __repr__(self):
        return f"<mspti {base.__name__} for {_describe(getattr(self, method))}>"

    return type(f"Function{base.__name__}", (base,), {"__init__": __init__, "__repr__": __repr__,
                                                      "__doc__": f"Calls a Python callable per {method} call."})


FunctionMarkCallback = _adapter_class(native.MarkCallback, "on_record")
FunctionRangeCallback = _adapter_class(native.RangeCallback, "on_record")
FunctionBatchCallback = _adapter_class(native.BatchCallback, "on_batch")


def as_director(callback, interface, adapter):
    """``callback`` itself if it implements ``interface``, an adapter if it is callable, else None."""
    if isinstance(callback, interface):
        return callback
    if callable(callback):
        return adapter(callback)
    return None

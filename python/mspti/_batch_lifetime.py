"""Lifetime of a batch callback's array: zero-copy during the call, an error after it.

The array views the library's activity buffer through a memoryview the native module releases
once the callback has returned. Every Python-level use of the array (or of any view derived from
it) checks that memoryview first and raises ValueError after the callback instead of reading
memory the library reuses. Copies (``batch.copy()``, ``np.array(batch)``, arithmetic results)
own their data and stay valid. A batch still referenced after its callback also keeps the
buffer's memory (the native module hands it over), so even C-level access cannot crash.
"""

import numpy as np

EXPIRED = ("mspti batch used after its callback returned: it viewed the library's buffer, which is "
           "no longer valid; keep batch.copy() (or np.array(batch)) made inside the callback instead")


def _check(array):
    view = np.ndarray.__getattribute__(array, "__dict__").get("_mspti_view")
    if view is not None:
        try:
            view.nbytes
        except ValueError:
            raise ValueError(EXPIRED) from None


def _plain(value):
    """``value`` with batch arrays turned into plain ndarray views (checked first)."""
    if isinstance(value, BatchArray):
        _check(value)
        return value.view(np.ndarray)
    if isinstance(value, (tuple, list)):
        return type(value)(_plain(v) for v in value)
    return value


class BatchArray(np.ndarray):
    """A structured array over one block of records, valid only during its batch callback."""

    def __array_finalize__(self, obj):
        # Views share the parent's memoryview (and so its lifetime); arrays that own their data do not.
        view = None if obj is None or self.flags.owndata else getattr(obj, "_mspti_view", None)
        self.__dict__["_mspti_view"] = view

    def __getattribute__(self, name):
        if not name.startswith("__"):
            _check(self)
        return super().__getattribute__(name)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        if "out" in kwargs:
            kwargs["out"] = _plain(kwargs["out"])
        return getattr(ufunc, method)(*_plain(inputs), **kwargs)

    def __array_function__(self, func, types, args, kwargs):
        return func(*_plain(args), **{k: _plain(v) for k, v in kwargs.items()})

    def __array__(self, *args, **kwargs):
        _check(self)
        return super().__array__(*args, **kwargs)


def _checked(name):
    base = getattr(np.ndarray, name)

    def method(self, *args, **kwargs):
        _check(self)
        return base(self, *args, **kwargs)

    method.__name__ = name
    return method


for _name in ("__getitem__", "__setitem__", "__iter__", "__len__", "__repr__", "__str__", "__contains__",
              "__bool__", "__reduce__", "__reduce_ex__", "__copy__", "__deepcopy__", "__format__"):
    setattr(BatchArray, _name, _checked(_name))


def batch_array(view, dtype, count):
    """The array a batch callback receives: zero-copy over ``view`` (a memoryview the native
    module releases after the callback)."""
    # Built on the memoryview directly, so that every array derived from it keeps this one as its
    # base: the native module then sees whether anything still references the buffer.
    array = np.ndarray.__new__(BatchArray, (count,), dtype=dtype, buffer=view)
    array.__dict__["_mspti_view"] = view
    return array

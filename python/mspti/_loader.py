"""Loads libmspti.so into the global symbol scope (unless LD_PRELOADed) and the native module.

libmspti must be global so that mstx calls compiled into other native code, and the runtime's
dlsym lookups, find it; it is loaded before the extension so that the extension binds to it.
"""

import ctypes
import os

try:
    from ._paths import LIB_DIR as _BUILD_LIB_DIR
except ImportError:
    _BUILD_LIB_DIR = None

_SONAMES = ("libmspti.so.0", "libmspti.so")


def _already_loaded():
    for name in _SONAMES:
        try:
            return ctypes.CDLL(name, mode=os.RTLD_NOLOAD | os.RTLD_GLOBAL)
        except OSError:
            pass
    return None


def _lib_dirs():
    ascend = os.environ.get("ASCEND_HOME_PATH")
    return [d for d in (os.environ.get("MSPTI_LIB_DIR"), _BUILD_LIB_DIR,
                        os.path.join(ascend, "lib64") if ascend else None) if d]


def _load_runtime_first():
    """Loads the ACL runtime (libascendcl.so) globally ahead of libmspti, when there is one.

    libmspti's interposers find the real runtime functions with RTLD_NEXT, which for a library
    dlopen'ed by this package only sees libraries that were global before it: as when a program
    links the runtime, the runtime must come first. (With LD_PRELOAD this is not needed.)
    """
    for path in [os.path.join(d, "libascendcl.so") for d in _lib_dirs()]:
        if os.path.exists(path):
            try:
                ctypes.CDLL(path, mode=os.RTLD_GLOBAL)
                return
            except OSError:
                pass


def _load_libmspti():
    lib = _already_loaded()  # LD_PRELOAD=libmspti.so, or linked into the program
    if lib is not None:
        return lib
    _load_runtime_first()
    dirs = _lib_dirs()
    paths = [os.path.join(d, "libmspti.so") for d in dirs if d] + ["libmspti.so"]
    errors = []
    for path in paths:
        if os.path.sep in path and not os.path.exists(path):
            continue
        try:
            return ctypes.CDLL(path, mode=os.RTLD_GLOBAL)
        except OSError as exc:
            errors.append(str(exc))
    raise ImportError("libmspti.so could not be loaded (set MSPTI_LIB_DIR or LD_LIBRARY_PATH): "
                      + "; ".join(errors))


LIBMSPTI = _load_libmspti()

from . import native  # noqa: E402  (the SWIG module; needs libmspti loaded first)
from . import _enums, activity_data as _data, batch as _batch  # noqa: E402

# The record classes and enum maps the native module builds records from (all generated from the
# record schema, schema/records.py, as is the native side's list of what it needs).
_spec = dict(_data.RECORD_CLASSES)
_spec.update({e.__name__: {m.value: m for m in e} for e in _enums.ENUMS})
_spec["batch_factory"] = _batch.make_batch
native.register_types(_spec)
del _spec

ext = native._native
"""The compiled extension itself (its functions without the generated Python wrappers)."""

"""Chooses libmspti.so, loads it into the global symbol scope, then the native module.

Which libmspti.so is used (the rule of docs/install.md, "Which libmspti.so is used"):

1. one already loaded in the process (``LD_PRELOAD=.../libmspti.so``, or linked into the program);
2. else the file named by the environment variable ``MSPTI_LIBRARY``;
3. else the bundled one (``MSPTI_LIB_DIR``, the build tree's, ``$ASCEND_HOME_PATH/lib64``, the
   dynamic linker's path).

A bad ``MSPTI_LIBRARY`` (missing, or not a libmspti.so) raises ImportError naming the path. msPTI's
own library lacks our ``msptiExt*`` extensions: what they give is then unavailable, said once.
libmspti must be global so that the mstx header in the extensions (and libprofapi, for msPTI's
library) and the runtime's dlsym lookups find it; the extension links no libmspti of its own.
"""

import ctypes
import logging
import os

try:
    from ._paths import LIB_DIR as _BUILD_LIB_DIR
except ImportError:
    _BUILD_LIB_DIR = None

_SONAMES = ("libmspti.so.0", "libmspti.so")


_PROBE = "msptiActivityRegisterCallbacks"  # what every libmspti exports


def _mapped_libmspti():
    """The file of a libmspti.so* mapped in this process, or None."""
    try:
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as maps:
            for line in maps:
                path = line[line.find("/"):].strip() if "/" in line else ""
                name = os.path.basename(path)
                if name == "libmspti.so" or name.startswith("libmspti.so."):
                    return path
    except OSError:
        pass
    return None


def _already_loaded():
    """(library, its file) of a libmspti already in the process, made global; else None."""
    for name in (*_SONAMES, _mapped_libmspti()):
        if not name:
            continue
        try:
            lib = ctypes.CDLL(name, mode=os.RTLD_NOLOAD | os.RTLD_GLOBAL)
        except OSError:
            continue
        if hasattr(lib, _PROBE):
            return lib, _mapped_libmspti() or name
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


def _load_from_env(path):
    """MSPTI_LIBRARY=path, checked: a clear ImportError naming it when it is not a libmspti.so."""
    what = f"MSPTI_LIBRARY={path}"
    if not os.path.isfile(path):
        raise ImportError(f"{what}: no such file")
    _load_runtime_first()
    try:
        lib = ctypes.CDLL(path, mode=os.RTLD_GLOBAL)
    except OSError as exc:
        raise ImportError(f"{what}: cannot be loaded: {exc}") from None
    if not hasattr(lib, _PROBE):
        raise ImportError(f"{what} is not a libmspti.so (it does not export {_PROBE})")
    return lib


def _choose():
    """(library, its file, which rule chose it: 'loaded', 'MSPTI_LIBRARY' or 'bundled')."""
    loaded = _already_loaded()  # LD_PRELOAD=libmspti.so, or linked into the program
    if loaded is not None:
        return loaded[0], loaded[1], "loaded"
    env = os.environ.get("MSPTI_LIBRARY")
    if env:
        return _load_from_env(env), env, "MSPTI_LIBRARY"
    lib = _load_bundled()
    return lib, _mapped_libmspti() or lib._name, "bundled"


def _load_bundled():
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


LIBMSPTI, LIBRARY_PATH, SOURCE = _choose()
"""The libmspti.so in use (ctypes), its file, and the rule that chose it."""

# What the library lacks of our extensions, and what that takes away (said once, at import).
_OPTIONAL = {
    "msptiExtGetVersionString": "mspti.__version__ (it is 'unknown')",
    "msptiExtGetLastError": "the check that a marker's stream was accepted",
    "msptiExtActivityGetNumDroppedRecords": "libmspti's dropped counts in stats().dropped",
}
MISSING = [name for name in _OPTIONAL if not hasattr(LIBMSPTI, name)]
if MISSING:
    logging.getLogger("mspti").warning("mspti: %s lacks %s: unavailable: %s", LIBRARY_PATH, ", ".join(MISSING),
                                       "; ".join(_OPTIONAL[name] for name in MISSING))

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

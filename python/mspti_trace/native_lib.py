"""Where libmspti_trace_reader.so (the native pftrace decoder, reader_native) is: the folder the
launcher passes (:func:`set_lib_dir`), ``MSPTI_TRACE_LIB_DIR``, then the one mspti's ``_paths.py``
names next to this package (the build tree, an installed prefix, the wheel's ``mspti/_libs``).
No import here loads anything: the launcher calls it before the traced program starts."""

import os

LIBRARY = "libmspti_trace_reader.so"
_explicit = [None]


def set_lib_dir(directory):
    """The folder the launcher found its libraries in (looked in first)."""
    _explicit[0] = directory


def _paths_lib_dir():
    """LIB_DIR of mspti/_paths.py beside this package, read without importing mspti (which would
    load libmspti)."""
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "mspti", "_paths.py")
    try:
        with open(path, encoding="utf-8") as f:
            code = f.read()
        scope = {"__file__": path}
        exec(compile(code, path, "exec"), scope)  # noqa: S102 -- our own generated file
        return scope.get("LIB_DIR")
    except (OSError, SyntaxError, NameError, ImportError):
        return None


def candidates():
    """The paths to try, in order."""
    for d in (_explicit[0], os.environ.get("MSPTI_TRACE_LIB_DIR"), _paths_lib_dir()):
        if d:
            yield os.path.join(d, LIBRARY)

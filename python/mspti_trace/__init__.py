"""mspti-trace: run a program with msPTI's trace client preloaded and read what it wrote.

The file layout and formats are in docs/trace.md. Modules: ``cli`` (the launcher),
``pftrace_reader`` (a small Perfetto wire-format reader, plus the JSON and SQLite loaders).
"""

# _trace_schema is generated from schema/records.py: a build or an install puts it beside these
# modules; the build tree's launcher runs these from the source tree and finds it in the build.
# (pkgutil.extend_path's rule, without importing pkgutil: a tenth of `summary`'s start-up.)
import os as _os
import sys as _sys

__path__ = list(__path__) + [d for d in dict.fromkeys(_os.path.join(p, __name__) for p in _sys.path
                                                      if isinstance(p, str) and p)
                             if d not in __path__ and _os.path.isdir(d)]
del _os, _sys

"""mspti-trace: run a program with msPTI's trace client preloaded and read what it wrote.

The file layout and formats are in docs/trace.md. Modules: ``cli`` (the launcher),
``pftrace_reader`` (a small Perfetto wire-format reader, plus the JSON and SQLite loaders).
"""

# _trace_schema is generated from schema/records.py: a build or an install puts it beside these
# modules; the build tree's launcher runs these from the source tree and finds it in the build.
__path__ = __import__("pkgutil").extend_path(__path__, __name__)

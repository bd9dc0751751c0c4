"""mspti-trace: run a program with msPTI's trace client preloaded and read what it wrote.

The file layout and formats are in docs/trace.md. Modules: ``cli`` (the launcher),
``pftrace_reader`` (a small Perfetto wire-format reader, plus the JSON and SQLite loaders).
"""

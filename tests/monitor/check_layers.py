#!/usr/bin/env python3
"""Each layer above libmspti reaches libmspti only through its public C ABI.

Checks the sources, not the binaries (monitor.UsesOnlyThePublicCAbi checks the symbols):
- the Monitors, mspti-trace and the SWIG bindings include no header of libmspti's own tree
  (src/mspti) and compile none of its sources;
- the user-facing Monitor headers carry no binding plumbing (that is src/monitor/binding/);
- the Python package calls no libmspti function through ctypes (it goes through the Monitors).
Usage: check_layers.py <source root>
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(sys.argv[1])
LIBMSPTI_TREE = (ROOT / "src/mspti").resolve()
QUOTED_INCLUDE = re.compile(r'#\s*include\s+"([^"]+)"')
PRIVATE_SOURCE = re.compile(r"\.\./mspti/")
PLUMBING = re.compile(r"\b(DeliveryThreadHooks|free_kept_buffer|record_run_\w+|RecordRunCallback|start_record_run|"
                      r"CallbackErrorReported|set_delivery_thread_hooks)\b")
CTYPES_CALL = re.compile(r"LIBMSPTI\b.*\bmspti[A-Z]\w*|\bmspti(?:Ext)?[A-Z]\w*\b.*LIBMSPTI|"
                         r"getattr\([^)]*LIBMSPTI")

problems = []


def private_include(path, line):
    """Whether a quoted include names a file of libmspti's own tree, however it is spelled."""
    match = QUOTED_INCLUDE.search(line)
    if match is None:
        return False
    name = match.group(1)
    candidates = [path.parent / name, ROOT / "src" / name, ROOT / "src/mspti" / name]
    return any(c.is_file() and LIBMSPTI_TREE in c.resolve().parents for c in candidates)


def check(paths, pattern, what):
    for path in paths:
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            if pattern(path, line) if callable(pattern) else pattern.search(line):
                problems.append(f"{path.relative_to(ROOT)}:{number}: {what}: {line.strip()}")


def files(*globs):
    return [p for g in globs for p in sorted(ROOT.glob(g)) if p.is_file()]


above = files("src/monitor/**/*.h", "src/monitor/**/*.cpp", "src/trace/**/*.h", "src/trace/**/*.cpp",
              "swig/**/*.i", "swig/**/*.h")
check(above, private_include, "includes a header of libmspti's own tree (src/mspti)")
check(files("src/monitor/CMakeLists.txt", "src/trace/CMakeLists.txt", "swig/**/CMakeLists.txt"), PRIVATE_SOURCE,
      "compiles a source of libmspti's own tree")
check(files("include/mspti/monitor*.h"), PLUMBING, "binding plumbing in a user-facing header")
check(files("python/mspti/**/*.py"), CTYPES_CALL, "calls libmspti through ctypes, past the Monitors")

if problems:
    print("\n".join(problems))
    sys.exit(f"{len(problems)} layer violation(s), listed above")
print(f"layers: {len(above)} sources above libmspti use only its public C ABI")

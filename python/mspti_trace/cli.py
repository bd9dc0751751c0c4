"""The mspti-trace launcher (docs/trace.md, "Command line").

    mspti-trace [-o DIR] [--kinds LIST] [--format pftrace|json|sqlite] [--gzip]
                [--delay S] [--duration S] [--capture-range NAME] [--flush-ms MS] [--allow-loss]
                -- PROGRAM ARGS...
    mspti-trace merge|summary|report|analyze ARGS...
    mspti-trace --version
"""

import argparse
import importlib
import json
import os
import sys
import time

# datetime, secrets, shutil, signal, socket, sqlite3, subprocess and threading are imported where a
# traced run uses them: `summary`, `analyze`, `merge` and `report` start without them.

from . import native_lib, text

KINDS = ("kernel", "api", "hccl", "communication", "marker", "memory", "memcpy", "memset")
SUBCOMMANDS = ("merge", "summary", "report", "analyze")


def _wheel_lib_dir():
    """The wheel's mspti/_libs, where an installed wheel keeps the libraries. Found, not imported:
    importing mspti would load libmspti into the launcher."""
    import importlib.util
    try:
        spec = importlib.util.find_spec("mspti")
    except (ImportError, ValueError):
        return None
    for d in (spec.submodule_search_locations or []) if spec else []:
        if os.path.isdir(os.path.join(d, "_libs")):
            return os.path.join(d, "_libs")
    return None


def _lib_dir(explicit):
    """Where libmspti.so and libmspti_trace.so are: given by the wrapper, else MSPTI_TRACE_LIB_DIR,
    else the installed wheel's library folder."""
    for d in (explicit, os.environ.get("MSPTI_TRACE_LIB_DIR"), _wheel_lib_dir()):
        if d and os.path.exists(os.path.join(d, "libmspti_trace.so")):
            return d
    return None


def _version(explicit):
    if explicit:
        return explicit
    try:
        from importlib import metadata
        return metadata.version("mspti")
    except Exception:  # not installed as a distribution: the source tree without the launcher
        return "unknown"


def _is_libmspti_name(path):
    name = os.path.basename(path)
    return name == "libmspti.so" or name.startswith("libmspti.so.")


def _exports_mspti_abi(path):
    """Whether the file is an ELF object naming msPTI's C ABI in its symbols (read, not loaded: loading
    msPTI's library would start its profiling machinery in the launcher)."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return False
    return data[:4] == b"\x7fELF" and b"\0msptiActivityRegisterCallbacks\0" in data


def choose_libmspti(environ, lib_dir):
    """The libmspti.so the traced program gets: (path, rule), by the rule of docs/install.md.

    A libmspti already preloaded (in environ's LD_PRELOAD) wins (path None: it stays where it is),
    then MSPTI_LIBRARY, then the bundled one in lib_dir. A bad MSPTI_LIBRARY raises ValueError naming it.
    """
    for entry in environ.get("LD_PRELOAD", "").replace(":", " ").split():
        if _is_libmspti_name(entry):
            return None, "loaded"
    env = environ.get("MSPTI_LIBRARY")
    if env:
        if not os.path.isfile(env):
            raise ValueError(f"MSPTI_LIBRARY={env}: no such file")
        if not _exports_mspti_abi(env):
            raise ValueError(f"MSPTI_LIBRARY={env} is not a libmspti.so (it does not export "
                             "msptiActivityRegisterCallbacks)")
        return os.path.abspath(env), "MSPTI_LIBRARY"
    return os.path.join(lib_dir, "libmspti.so"), "bundled"


def _parse(argv, version):
    p = argparse.ArgumentParser(
        prog="mspti-trace",
        description="Profile a program into a timeline (one file per process) with no code changes.",
        epilog="subcommands: mspti-trace merge DIR -o FILE | summary DIR | report DIR -o report.html | analyze DIR")
    p.add_argument("-o", "--output", metavar="DIR", help="output directory (default: a fresh mspti-trace-DATE-TIME)")
    p.add_argument("--kinds", default=",".join(KINDS), help="comma list of " + ",".join(KINDS) + " (default: all)")
    p.add_argument("--format", choices=("pftrace", "json", "sqlite"), default="pftrace")
    p.add_argument("--gzip", action="store_true", help="gzip the JSON (with --format json)")
    p.add_argument("--delay", type=float, default=0.0, metavar="S", help="start recording S seconds after launch")
    p.add_argument("--duration", type=float, default=0.0, metavar="S", help="record for S seconds (0: to the end)")
    p.add_argument("--capture-range", metavar="NAME", help="record only inside mstx ranges named NAME")
    p.add_argument("--flush-ms", type=int, default=250, metavar="MS", help="write to disk every MS ms (default 250)")
    p.add_argument("--force", action="store_true", help="write into an -o DIR that is not empty")
    p.add_argument("--allow-loss", action="store_true",
                   help="exit with the program's code even when records were lost to write failures "
                        "(disk full, I/O errors); without it such a run exits with code 3")
    p.add_argument("--version", action="version", version=f"mspti-trace {version}")
    p.add_argument("command", nargs=argparse.REMAINDER, help="-- PROGRAM ARGS...")
    ns = p.parse_args(argv)
    ns.dashes = bool(ns.command) and ns.command[0] == "--"
    if ns.dashes:
        ns.command = ns.command[1:]
    if not ns.command:
        p.error("no program given: mspti-trace [options] -- PROGRAM ARGS...")
    kinds = [k for k in ns.kinds.split(",") if k]
    bad = [k for k in kinds if k not in KINDS]
    if bad or not kinds:
        p.error(f"--kinds: unknown kind(s) {', '.join(bad) or '(none given)'}; choose from {','.join(KINDS)}")
    if ns.delay < 0 or ns.duration < 0:
        p.error("--delay and --duration must not be negative")
    if not 1 <= ns.flush_ms <= 3600000:
        p.error("--flush-ms must be in 1..3600000")
    if ns.gzip and ns.format != "json":
        p.error("--gzip goes with --format json")
    if ns.capture_range is not None and not ns.capture_range:
        p.error("--capture-range needs a range name")
    ns.kinds = kinds
    return ns


def _fresh_dir(base=None):
    import datetime
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    path = base or f"mspti-trace-{stamp}"
    n = 1
    candidate = path
    while os.path.exists(candidate):
        n += 1
        candidate = f"{path}-{n}"
    return candidate


def _subcommand(name, argv):
    try:
        module = importlib.import_module(f"mspti_trace.{name}")
    except ModuleNotFoundError as e:
        if e.name != f"mspti_trace.{name}":
            raise
        print(f"mspti-trace: '{name}' is not available in this installation", file=sys.stderr)
        return 2
    try:
        return module.main(argv)
    except Exception as e:  # noqa: BLE001 -- no input may end in a traceback: one line, exit 2
        print(f"mspti-trace {name}: {type(e).__name__}: {e}", file=sys.stderr)
        return 2
    finally:
        text.warn_once()


def _exit_code(returncode):
    return returncode if returncode >= 0 else 128 - returncode


def _program_found(program):
    """Whether PROGRAM can be started: a path to an executable file, or a name on PATH."""
    if os.sep in program:
        return os.path.isfile(program) and os.access(program, os.X_OK)
    import shutil
    return shutil.which(program) is not None


def _output_dir(ns):
    """(absolute DIR, created) for this run, or raises ValueError with a one-line reason. Nothing
    is created for a run that cannot start; an existing DIR that is not empty is refused unless
    --force (two runs in one DIR would mix)."""
    out = os.path.abspath(ns.output) if ns.output else os.path.abspath(_fresh_dir())
    shown = ns.output or out
    parent = os.path.dirname(out)
    if not os.path.isdir(parent):
        raise ValueError(f"-o {shown}: the folder {parent} does not exist")
    if os.path.exists(out):
        if not os.path.isdir(out):
            raise ValueError(f"-o {shown}: exists and is not a directory")
        entries = os.listdir(out)
        if entries and not ns.force:
            raise ValueError(f"-o {shown}: the directory is not empty ({len(entries)} entries, e.g. "
                             f"{sorted(entries)[0]}); choose a new one, or add --force to write into it")
        if not os.access(out, os.W_OK | os.X_OK):
            raise ValueError(f"-o {shown}: the directory is not writable")
        return out, False
    try:
        os.mkdir(out)
    except OSError as e:
        raise ValueError(f"-o {shown}: cannot create it: {e.strerror}") from None
    return out, True


def _discard(out, created):
    """Removes what this launcher made for a run that never started."""
    try:
        os.unlink(os.path.join(out, "meta.json"))
        if created:
            os.rmdir(out)
    except OSError:
        pass


def _close_databases(out):
    """After a clean exit: each SQLite trace back to a single self-contained file (rollback journal),
    so that no -wal or -shm file is left beside it."""
    import sqlite3
    for name in sorted(os.listdir(out)):
        if not (name.startswith("trace.") and name.endswith(".sqlite")):
            continue
        try:
            db = sqlite3.connect(os.path.join(out, name), timeout=1)  # a process still writing: leave it
            try:
                db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                db.execute("PRAGMA journal_mode=DELETE")
            finally:
                db.close()
        except sqlite3.Error as e:
            print(f"mspti-trace: {name}: left in WAL mode ({e})", file=sys.stderr)


LOSS_EXIT_CODE = 3


class _LossListener:
    """Collects what the traced processes say about write failures (libmspti_trace's loss.cpp):
    datagrams on an abstract Unix socket named in MSPTI_TRACE_NOTIFY. Needs no file system, so it
    works when the disk is full."""

    def __init__(self):
        import secrets
        import socket
        import threading
        self.name = f"mspti-trace-{os.getpid()}-{secrets.token_hex(8)}"
        self.messages = []
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self._sock.bind("\0" + self.name)
        self._thread = threading.Thread(target=self._listen, daemon=True)
        self._thread.start()

    def _listen(self):
        while True:
            data = self._sock.recv(65536)
            if data == b"end":
                return
            self.messages.append(data.decode("utf-8", "replace").split("\t"))

    def close(self):
        """Everything sent before this call (datagrams keep their order): the traced processes
        have ended, so every message they sent is queued ahead of ours."""
        import socket
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as s:
            s.sendto(b"end", "\0" + self.name)
        self._thread.join()
        self._sock.close()

    def losses(self):
        """{path: {"lost": N or None (still unknown: the process did not end its trace), "counted": bool}}."""
        out = {}
        for m in self.messages:
            if len(m) >= 2 and m[0] in ("failed", "lost"):
                entry = out.setdefault(m[1], {"lost": None, "counted": False})
                if m[0] == "lost" and len(m) >= 4 and m[2].isdigit():
                    entry.update(lost=int(m[2]), counted=m[3] == "counted")
        # A failed window that held no records (track descriptors only) lost nothing.
        return {path: e for path, e in out.items() if e["lost"] != 0}


def _report_losses(losses, code, allow):
    """One line per file that lost records; the exit code (LOSS_EXIT_CODE unless allowed)."""
    for path, e in sorted(losses.items()):
        n = "an unknown number of" if e["lost"] is None else str(e["lost"])
        where = "counted as dropped in its stats" if e["counted"] else "NOT in its stats (the file could not take them)"
        print(f"mspti-trace: {path}: {n} records lost to write failures ({where})", file=sys.stderr)
    if allow or code != 0:
        return code
    print(f"mspti-trace: exit code {LOSS_EXIT_CODE}: records were lost (--allow-loss keeps the program's "
          "exit code)", file=sys.stderr)
    return LOSS_EXIT_CODE


def _write_meta(meta_path, meta):
    """meta.json rewritten whole or not at all (a full disk keeps the version written at the start)."""
    tmp = meta_path + ".tmp"
    try:
        with open(tmp, "w") as f:
            json.dump(meta, f, indent=1)
        os.replace(tmp, meta_path)
    except OSError as e:
        print(f"mspti-trace: cannot update {meta_path}: {e.strerror}", file=sys.stderr)
        try:
            os.unlink(tmp)
        except OSError:
            pass


def run(ns, lib_dir, child_python=None):
    import signal
    import socket
    import subprocess
    try:
        libmspti, _ = choose_libmspti(os.environ, lib_dir)
    except ValueError as exc:
        print(f"mspti-trace: {exc}", file=sys.stderr)
        return 2
    if not _program_found(ns.command[0]):
        hint = "" if ns.dashes else f" (and not a subcommand: {', '.join(SUBCOMMANDS)})"
        print(f"mspti-trace: {ns.command[0]}: program not found{hint}; nothing was recorded", file=sys.stderr)
        return 127
    try:
        out, created = _output_dir(ns)
    except ValueError as exc:
        print(f"mspti-trace: {exc}", file=sys.stderr)
        return 2
    start_ns = time.time_ns()
    fmt = "json.gz" if ns.gzip else ns.format
    env = dict(os.environ)
    # libmspti_trace.so first: its msptiSubscribe & co. stand in front of libmspti's.
    preload = [os.path.join(lib_dir, "libmspti_trace.so")] + ([libmspti] if libmspti else [])
    if env.get("LD_PRELOAD"):
        preload.append(env["LD_PRELOAD"])
    env.update({
        "LD_PRELOAD": " ".join(preload),
        "MSPTI_TRACE_DIR": out,
        "MSPTI_TRACE_FORMAT": fmt,
        "MSPTI_TRACE_KINDS": ",".join(ns.kinds),
        "MSPTI_TRACE_START_NS": str(start_ns),
        "MSPTI_TRACE_DELAY_NS": str(int(ns.delay * 1e9)),
        "MSPTI_TRACE_DURATION_NS": str(int(ns.duration * 1e9)),
        "MSPTI_TRACE_FLUSH_MS": str(ns.flush_ms),
    })
    if child_python and os.path.isdir(child_python):
        # The packages beside mspti_trace (vnpu, mspti) for Python programs: after the user's own path.
        env["PYTHONPATH"] = os.pathsep.join(p for p in (env.get("PYTHONPATH"), child_python) if p)
    if ns.capture_range:
        env["MSPTI_TRACE_CAPTURE_RANGE"] = ns.capture_range
    else:
        env.pop("MSPTI_TRACE_CAPTURE_RANGE", None)
    meta = {"format": 1, "command": ns.command, "start_ns": start_ns, "host": socket.gethostname(),
            "options": {"kinds": ns.kinds, "format": fmt, "delay_s": ns.delay, "duration_s": ns.duration,
                        "capture_range": ns.capture_range, "flush_ms": ns.flush_ms}}
    meta_path = os.path.join(out, "meta.json")
    try:
        with open(meta_path, "w") as f:
            json.dump(meta, f, indent=1)
    except OSError as e:
        print(f"mspti-trace: cannot write {meta_path}: {e.strerror}", file=sys.stderr)
        _discard(out, created)
        return 2
    print(f"mspti-trace: writing to {out}", file=sys.stderr, flush=True)
    listener = _LossListener()
    env["MSPTI_TRACE_NOTIFY"] = listener.name
    try:
        child = subprocess.Popen(ns.command, env=env)
    except OSError as e:
        listener.close()
        print(f"mspti-trace: cannot run {ns.command[0]}: {e.strerror}", file=sys.stderr)
        _discard(out, created)
        return 127

    def forward(signum, _frame):
        if child.returncode is None:
            child.send_signal(signum)

    old = {s: signal.signal(s, forward) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    try:
        code = _exit_code(child.wait())
    finally:
        for s, h in old.items():
            signal.signal(s, h)
    listener.close()
    losses = listener.losses()
    meta["exit_code"] = code
    meta["end_ns"] = time.time_ns()
    if losses:
        meta["write_failures"] = losses
    _write_meta(meta_path, meta)
    _close_databases(out)
    _end_of_run_summary(out)
    return _report_losses(losses, code, ns.allow_loss) if losses else code


def _end_of_run_summary(out):
    """The summary table (mspti_trace.summary, when installed) after the program ends."""
    try:
        module = importlib.import_module("mspti_trace.summary")
    except ModuleNotFoundError as e:
        if e.name != "mspti_trace.summary":
            raise
        return
    hook = getattr(module, "end_of_run", None)
    if hook is not None:
        try:
            hook(out)
        except Exception as e:  # the trace files are written; a summary failure must not hide the exit code
            print(f"mspti-trace: summary failed: {e}", file=sys.stderr)
        text.warn_once()


def main(argv=None, lib_dir=None, version=None, child_python=None):
    """The launcher. The generated bin/mspti-trace passes where its libraries and Python packages
    are, and the version; the wheel's console script passes nothing (see console_main)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if lib_dir:  # the readers' native decoder is there too
        native_lib.set_lib_dir(lib_dir)
    if argv and argv[0] in SUBCOMMANDS:
        return _subcommand(argv[0], argv[1:])
    ns = _parse(argv, _version(version))
    found = _lib_dir(lib_dir)
    if found is None:
        print("mspti-trace: libmspti_trace.so not found (set MSPTI_TRACE_LIB_DIR to the folder holding it "
              "and libmspti.so)", file=sys.stderr)
        return 2
    return run(ns, found, child_python)


def console_main():
    """The wheel's `mspti-trace` command: libraries from mspti/_libs, packages from site-packages."""
    sys.exit(main())

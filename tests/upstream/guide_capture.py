"""Runs one of the guide's Python examples unchanged and writes down every record its monitors deliver,
for test_differential_python.py: whichever mspti package is imported (ours, or msPTI's own on its
library), each Monitor's start() is wrapped so that every data object its callbacks get is written, as
one JSON line in the shape of differential_records.h's C records, to <out dir>/<pid>.jsonl before the
example's own callback sees it.

msPTI's package has no mspti.mstx (its guide marks with torch_npu's); for it a stand-in built on the
header-only mstx API (mstx_emit, loaded with ctypes) is installed as mspti.mstx, with the functions the
guide's examples call.

What the Monitor methods the examples call return is written down as well (kind CALL).

An example's own final check (an AssertionError) failing on msPTI's library exits with
EXAMPLE_CHECK_FAILED, after its records were written: msPTI's library loses records at stop (the
test compares what its best run delivered); on ours any failure is a failure.

Usage: guide_capture.py <out dir> <mstx_emit.so> <example.py>   (run directly or by vnpu.run)
"""
import ctypes
import enum
import importlib
import inspect
import json
import os
import runpy
import sys
import threading
import types

import mspti

OUT_DIR, EMIT, EXAMPLE = sys.argv[1:4]
EXAMPLE_CHECK_FAILED = 3
UPSTREAM = os.sep + "upstream" + os.sep + "python" + os.sep in os.path.realpath(mspti.__file__)
_lock = threading.Lock()
_out = open(os.path.join(OUT_DIR, f"{os.getpid()}.jsonl"), "a", buffering=1)

# Python attribute -> the C record's field name (differential_records.h).
FIELDS = {"device_id": "deviceId", "stream_id": "streamId", "correlation_id": "correlationId",
          "source_kind": "sourceKind", "process_id": "processId", "thread_id": "threadId",
          "bandwidth": "bandWidth", "comm_name": "commName", "data_type": "dataType", "alg_type": "algType",
          "start": "start", "end": "end", "timestamp": "timestamp", "id": "id", "name": "name",
          "domain": "domain", "type": "type", "flag": "flag", "count": "count"}
KIND_OF = {"KernelData": 2, "MarkerData": 1, "RangeMarkerData": "RANGE", "HcclData": 4, "CommunicationData": 9}


def plain(value):
    return value.value if isinstance(value, enum.Enum) else value


def reduce(data, monitor, callback):
    """The data object as a C-shaped record, plus facts about its Python form (class, field types)."""
    cls = type(data).__name__
    record = {"kind": KIND_OF.get(cls, cls), "monitor": monitor, "callback": callback}
    types_seen = []
    for attr, field in FIELDS.items():
        value = getattr(data, attr, None)
        if value is not None and not callable(value):  # a tuple-like record's count() is no field
            record[field] = plain(value)
            types_seen.append(f"{attr}:{type(value).__name__}")
    object_id = getattr(data, "object_id", None)
    if object_id is not None:
        # A host marker's object is its process and thread, a device marker's its device and stream.
        host = record.get("sourceKind") == 0
        for attr in ("process_id", "thread_id") if host else ("device_id", "stream_id"):
            record[FIELDS[attr]] = getattr(object_id, attr)
        types_seen.append(f"object_id:{type(object_id).__name__}")
    record["pyclass"] = cls
    record["pytypes"] = ",".join(sorted(types_seen))
    record["rank"] = int(os.environ.get("RANK", "0"))
    return record


def write(record):
    line = json.dumps(record)
    with _lock:
        _out.write(line + "\n")


def returning(cls, method):
    """Writes down what a Monitor method returns (type and value); an int where msPTI's package returns
    one is handed on as MsptiResult, so that the example goes on (the difference is in the record)."""
    call = inspect.getattr_static(cls, method)  # a function or a classmethod (msPTI's set_buffer_size)

    def wrapper(self, *args, **kwargs):
        result = call.__get__(self, type(self))(*args, **kwargs)
        write({"kind": "CALL", "monitor": cls.__name__, "name": method,
               "returns": f"{type(result).__name__}:{plain(result)}", "rank": int(os.environ.get("RANK", "0"))})
        if isinstance(result, int) and not isinstance(result, enum.Enum):
            return mspti.MsptiResult(result)
        return result
    setattr(cls, method, wrapper)


def recording(callback, monitor, which):
    def wrapper(data):
        try:
            record = reduce(data, monitor, which)
        except Exception as e:  # the packages swallow a callback's exceptions: make it a record the test sees
            record = {"kind": "CAPTURE_ERROR", "name": repr(e), "pyclass": type(data).__name__, "callback": which,
                      "rank": int(os.environ.get("RANK", "0"))}
        write(record)
        return callback(data)
    return wrapper


def wrap_monitor(cls):
    start = cls.start
    if cls.__name__ == "MstxMonitor":
        def start_mstx(self, *args, **kwargs):
            # The guide passes its callbacks by position and by name; the defaults are each package's own.
            names = ("mark_cb", "range_cb")
            bound = dict(zip(names, args), **kwargs)
            for name in names:
                if callable(bound.get(name)):
                    bound[name] = recording(bound[name], cls.__name__, name)
            return start(self, **bound)
        cls.start = start_mstx
    else:
        def start_one(self, cb, *args, **kwargs):
            return start(self, recording(cb, cls.__name__, "cb"), *args, **kwargs)
        cls.start = start_one


def install_mstx_stand_in():
    """mspti.mstx for msPTI's package, on the header-only mstx API. As torch_npu's import loads CANN's
    runtime, libprofapi is loaded globally first: the header finds the InitInjectionMstx it exports,
    which hands the marks on to msPTI's library (which exports none of its own)."""
    ctypes.CDLL(os.path.join(os.environ["ASCEND_HOME_PATH"], "lib64", "libprofapi.so"), mode=ctypes.RTLD_GLOBAL)
    emit = ctypes.CDLL(EMIT)
    emit.emit_mark.argtypes = [ctypes.c_char_p, ctypes.c_void_p]
    emit.emit_range_start.restype = ctypes.c_uint64
    emit.emit_range_start.argtypes = [ctypes.c_char_p, ctypes.c_void_p]
    emit.emit_range_end.argtypes = [ctypes.c_uint64]
    emit.emit_domain_create.restype = ctypes.c_void_p
    emit.emit_domain_create.argtypes = [ctypes.c_char_p]
    emit.emit_domain_range_start.restype = ctypes.c_uint64
    emit.emit_domain_range_start.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
    emit.emit_domain_range_end.argtypes = [ctypes.c_void_p, ctypes.c_uint64]

    def handle(stream):
        return None if stream is None else ctypes.c_void_p(getattr(stream, "handle", stream))

    mstx = types.ModuleType("mspti.mstx")
    mstx.mark = lambda message, stream=None: emit.emit_mark(message.encode(), handle(stream))
    mstx.range_start = lambda message, stream=None: emit.emit_range_start(message.encode(), handle(stream))
    mstx.range_end = emit.emit_range_end

    class Range:
        def __init__(self, message, stream=None, domain=None):
            self.message, self.stream, self.domain = message, stream, domain

        def __enter__(self):
            owner = self.domain or mstx
            self.id = owner.range_start(self.message, self.stream)
            return self

        def __exit__(self, *exc):
            (self.domain or mstx).range_end(self.id)
            return False

    class Domain:
        def __init__(self, name):
            self.handle = emit.emit_domain_create(name.encode())

        def range_start(self, message, stream=None):
            return emit.emit_domain_range_start(self.handle, message.encode(), handle(stream))

        def range_end(self, range_id):
            emit.emit_domain_range_end(self.handle, range_id)

        def range(self, message, stream=None):
            return Range(message, stream, self)

    mstx.range, mstx.Domain = Range, Domain
    sys.modules["mspti.mstx"] = mspti.mstx = mstx


def main():
    with open(os.path.join(OUT_DIR, f"{os.getpid()}.package"), "w") as f:
        f.write(os.path.realpath(mspti.__file__))  # which package this was
    try:
        importlib.import_module("mspti.mstx")  # ours
    except ImportError:
        install_mstx_stand_in()
    for name in ("KernelMonitor", "MstxMonitor", "HcclMonitor", "CommunicationMonitor"):
        wrap_monitor(getattr(mspti, name))
        for method in ("start", "stop", "set_buffer_size") + (
                ("enable_domain", "disable_domain") if name == "MstxMonitor" else ()):
            returning(getattr(mspti, name), method)
    sys.argv = [EXAMPLE] + sys.argv[4:]
    try:
        runpy.run_path(EXAMPLE, run_name="__main__")
    except AssertionError as e:
        if not UPSTREAM:
            raise
        print(f"guide_capture: the example's own check failed on msPTI's library: {e!r:.300}", file=sys.stderr)
        with _lock:
            _out.flush()
        sys.exit(EXAMPLE_CHECK_FAILED)
    finally:
        with _lock:
            _out.flush()


if __name__ == "__main__":
    main()

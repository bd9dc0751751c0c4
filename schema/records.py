"""The record schema: the one table every language's record code is generated from.

What it drives (schema/generate.py, run by CMake at configure time; outputs in build/generated/):

- C++: the enums, value types and records of mspti::monitor (monitor_records.h), the per-kind
  callback interfaces and monitors (monitor_kinds.h and their definitions), the C record -> value
  conversions, the delivery dispatch per kind, and static_asserts that every offset and size below
  agrees with msPTI's hand-written C header (include/mspti/mspti_activity.h, the ABI itself);
- SWIG: directors, GIL release, the record typemaps per kind (Python and Java);
- Python: the enum mirrors (mspti._enums, plain Enum as in msPTI's package), the record classes
  (mspti.activity_data), the numpy batch layouts (mspti._layouts) and the monitors (mspti.monitor._kinds);
- Java: the record value classes (org.mspti.*Data), the RecordBatch offsets, the JNI constructor
  signatures and conversions, the enum lookups (org.mspti.Enums).

- the trace tool (mspti-trace, through schema/tracegen.py): its Record union and sort times, the
  ``--kinds`` words, kind names, each kind's track, slice name, flow and arguments, the SQLite
  tables and their inserts, and the readers' column lists (mspti_trace._trace_schema).

Adding a field: add it to its record below (C member, offset, doc and unit); it appears in every
language, as a trace slice argument and as a SQLite column. Adding a kind whose monitor delivers
one record per call: add a Record with a Monitor("simple") (and a Trace to trace it). Nothing else
changes. Every msPTI kind is here; those the Monitor API does not deliver have ``values=False``.

Field types (``t``): the specs of schema/types_.py (kind, enum:NAME, cenum:cName, u64, f64, str, id,
u32, u8, i64, object_id), one per type, each with what every emitter needs.

A field's ``c`` is its member path in the C struct and ``off`` its byte offset there (checked);
``key`` is the name msPTI's Python package uses for it (class constant, e.g. KernelData.DEVICE_ID =
"deviceId"; defaults to the last part of ``c``). ``doc`` and ``unit`` become the field's Doxygen,
Python and Javadoc text.
"""


class Field:
    def __init__(self, name, t, doc, c=None, off=None, unit=None, key=None, default=None, c_t=None, c_doc=None):
        self.name, self.t, self.doc, self.c, self.off, self.unit = name, t, doc, c, off, unit
        self.key = key if key is not None else (c.split(".")[-1] if c else None)
        self.default = default
        self.c_t, self.c_doc = c_t, c_doc  # MsptiObjectId's rows: the member's C type and layout doc


class Monitor:
    """style "simple": start(callback) delivers one record per call (generated end to end);
    "custom": the monitor class is written by hand (MstxMonitor), only its name comes from here."""

    def __init__(self, name, style, doc, callback=None, what=None):
        self.name, self.style, self.doc, self.callback, self.what = name, style, doc, callback, what


class Derived:
    """A trace slice argument or SQLite column computed from the record, not one field: ``expr`` is
    C++ over ``r`` (the trace's Record) and ``{field}`` (the C member of a field of this record)."""

    def __init__(self, name, expr, real=False):
        self.name, self.expr, self.real = name, expr, real


class Trace:
    """How mspti-trace shows a kind (docs/trace.md): the ``--kinds`` word (also the table name and the
    slice category; the API kinds use their own kind names as categories), the Record union member,
    its track ("thread:PID,TID", "stream:DEVICE,STREAM", "comm:NAME" fields, or "memory"/"marker",
    laid out by hand-written code), the slice name (a field, or a Derived expression), the flow (a
    correlation id field, or None), and the slice arguments and SQLite columns in their order.

    ``args`` and ``columns`` name fields (``"correlation_id"``), renamed fields (``("device",
    "device_id")``; an object_id member as ``"object_id.process_id"``) or Derived values. Every field
    they leave out is appended to both, except ``kind``, the times, the name and track fields (for
    args) and the ones listed in ``no_args`` / ``no_columns``: a new field shows up in the trace with
    no change here. A ``str`` field's column holds an id into the strings table, named ``<name>_id``.
    ``start``/``end`` are the fields the trace sorts by; ``kinds`` the msPTI kinds this record serves
    (default: the record's own)."""

    def __init__(self, word, member, track, name="name", flow="correlation_id", args=(), columns=(), no_args=(),
                 no_columns=(), start="start", end="end", kinds=None):
        self.word, self.member, self.track, self.name, self.flow = word, member, track, name, flow
        self.args, self.columns, self.no_args, self.no_columns = list(args), list(columns), no_args, no_columns
        self.start, self.end, self.kinds = start, end, kinds


class Record:
    """A value type delivered to callbacks. ``kind`` and ``c_struct`` are None for values that are
    not an msPTI record of their own (MsptiObjectId, RangeMarkerData). ``values=False``: an msPTI
    record the Monitor API does not deliver (no value type, class or monitor; only its C layout and
    its trace). ``trace``: how mspti-trace shows it (None: not traced)."""

    def __init__(self, name, doc, fields, kind=None, c_struct=None, size=None, monitor=None, keys=True,
                 values=True, trace=None):
        self.name, self.doc, self.fields, self.kind = name, doc, fields, kind
        self.c_struct, self.size, self.monitor, self.keys = c_struct, size, monitor, keys
        self.values, self.trace = values, trace


class Enum:
    def __init__(self, name, doc, values):
        self.name, self.doc, self.values = name, doc, values  # values: (NAME, int, doc or None)


NS = "ns since the Unix epoch"

ENUMS = [
    Enum("MsptiResult", "Result of a Monitor call (values of msptiResult).", [
        ("MSPTI_SUCCESS", 0, "Success."),
        ("MSPTI_ERROR_INVALID_PARAMETER", 1, "Bad argument; nothing was changed."),
        ("MSPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED", 2, "Another subscriber holds the Callback API."),
        ("MSPTI_ERROR_MAX_LIMIT_REACHED", 3, "A limit was reached."),
        ("MSPTI_ERROR_DEVICE_OFFLINE", 4, "The device is not available."),
        ("MSPTI_ERROR_QUEUE_EMPTY", 5, "Nothing to pop."),
        ("MSPTI_ERROR_WITHOUT_LD_PRELOAD", 6, "Needs libmspti.so interposing the runtime (LD_PRELOAD)."),
        ("MSPTI_ERROR_INNER", 999, "Internal error."),
        ("MSPTI_ERROR_FORCE_INT", 0x7FFFFFFF, "Forces 32 bits."),
    ]),
    Enum("MsptiActivityKind", "Activity kinds (values of msptiActivityKind).", [
        ("MSPTI_ACTIVITY_KIND_INVALID", 0, None),
        ("MSPTI_ACTIVITY_KIND_MARKER", 1, None),
        ("MSPTI_ACTIVITY_KIND_KERNEL", 2, None),
        ("MSPTI_ACTIVITY_KIND_API", 3, None),
        ("MSPTI_ACTIVITY_KIND_HCCL", 4, None),
        ("MSPTI_ACTIVITY_KIND_MEMORY", 5, None),
        ("MSPTI_ACTIVITY_KIND_MEMSET", 6, None),
        ("MSPTI_ACTIVITY_KIND_MEMCPY", 7, None),
        ("MSPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION", 8, None),
        ("MSPTI_ACTIVITY_KIND_COMMUNICATION", 9, None),
        ("MSPTI_ACTIVITY_KIND_ACL_API", 10, None),
        ("MSPTI_ACTIVITY_KIND_NODE_API", 11, None),
        ("MSPTI_ACTIVITY_KIND_RUNTIME_API", 12, None),
        ("MSPTI_ACTIVITY_KIND_COUNT", 13, None),
        ("MSPTI_ACTIVITY_KIND_FORCE_INT", 0x7FFFFFFF, None),
    ]),
    Enum("MsptiActivityFlag", "Marker flags (values of msptiActivityFlag).", [
        ("MSPTI_ACTIVITY_FLAG_NONE", 0, None),
        ("MSPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS", 1, None),
        ("MSPTI_ACTIVITY_FLAG_MARKER_START", 2, None),
        ("MSPTI_ACTIVITY_FLAG_MARKER_END", 4, None),
        ("MSPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS_WITH_DEVICE", 8, None),
        ("MSPTI_ACTIVITY_FLAG_MARKER_START_WITH_DEVICE", 16, None),
        ("MSPTI_ACTIVITY_FLAG_MARKER_END_WITH_DEVICE", 32, None),
    ]),
    Enum("MsptiActivitySourceKind", "Where a marker was observed (values of msptiActivitySourceKind).", [
        ("MSPTI_ACTIVITY_SOURCE_KIND_HOST", 0, None),
        ("MSPTI_ACTIVITY_SOURCE_KIND_DEVICE", 1, None),
    ]),
    Enum("MsptiCommunicationDataType",
         "Element type of a collective (values of msptiCommunicationDataType; 13 is unused).", [
             ("MSPTI_ACTIVITY_COMMUNICATION_INT8", 0, None),
             ("MSPTI_ACTIVITY_COMMUNICATION_INT16", 1, None),
             ("MSPTI_ACTIVITY_COMMUNICATION_INT32", 2, None),
             ("MSPTI_ACTIVITY_COMMUNICATION_FP16", 3, None),
             ("MSPTI_ACTIVITY_COMMUNICATION_FP32", 4, None),
             ("MSPTI_ACTIVITY_COMMUNICATION_INT64", 5, None),
             ("MSPTI_ACTIVITY_COMMUNICATION_UINT64", 6, None),
             ("MSPTI_ACTIVITY_COMMUNICATION_UINT8", 7, None),
             ("MSPTI_ACTIVITY_COMMUNICATION_UINT16", 8, None),
             ("MSPTI_ACTIVITY_COMMUNICATION_UINT32", 9, None),
             ("MSPTI_ACTIVITY_COMMUNICATION_FP64", 10, None),
             ("MSPTI_ACTIVITY_COMMUNICATION_BFP16", 11, None),
             ("MSPTI_ACTIVITY_COMMUNICATION_INT128", 12, None),
             ("MSPTI_ACTIVITY_COMMUNICATION_HIF8", 14, None),
             ("MSPTI_ACTIVITY_COMMUNICATION_FP8E4M3", 15, None),
             ("MSPTI_ACTIVITY_COMMUNICATION_FP8E5M2", 16, None),
             ("MSPTI_ACTIVITY_COMMUNICATION_FP8E8M0", 17, None),
             ("MSPTI_ACTIVITY_COMMUNICATION_INVALID_TYPE", 0xFFFF, None),
         ]),
]

RECORDS = [
    Record("MsptiObjectId", "Who a marker belongs to: host process and thread, or device and stream; "
           "-1 where not applicable.", [
               # c and off: the member in msptiObjectId (an object_id field's columns and conversions).
               Field("process_id", "i64", "Process id (host records), else -1.", key="processId",
                     c="pt.processId", off=0, c_t="u32", c_doc="Process id (host records; same bytes as device_id)."),
               Field("thread_id", "i64", "Thread id (host records), else -1.", key="threadId",
                     c="pt.threadId", off=4, c_t="u32", c_doc="Thread id (host records; same bytes as stream_id)."),
               Field("device_id", "i64", "Device id (device records), else -1.", key="deviceId",
                     c="ds.deviceId", off=0, c_t="u32", c_doc="Device id (device records)."),
               Field("stream_id", "i64", "Stream id (device records), else -1.", key="streamId",
                     c="ds.streamId", off=4, c_t="u32", c_doc="Stream id (device records)."),
           ]),
    Record("KernelData", "A kernel executed on a device (KERNEL record).", kind="KERNEL",
           c_struct="msptiActivityKernel", size=56,
           trace=Trace("kernel", "kernel", "stream:device_id,stream_id",
                       args=["correlation_id", "type", ("device", "device_id"), ("stream", "stream_id")],
                       columns=["start", "end", "device_id", "stream_id", "correlation_id", "name", "type"]),
           monitor=Monitor("KernelMonitor", "simple", "Collects KernelData (KERNEL records).",
                           callback="KernelCallback", what="kernel"),
           fields=[
               Field("kind", "kind", "Always KERNEL.", c="kind", off=0),
               Field("start", "u64", "Start on the device.", c="start", off=4, unit=NS),
               Field("end", "u64", "End on the device.", c="end", off=12, unit=NS),
               Field("device_id", "id", "Device.", c="ds.deviceId", off=20),
               Field("stream_id", "id", "Stream.", c="ds.streamId", off=24),
               Field("correlation_id", "u64", "Joins the API call that launched it.", c="correlationId", off=28),
               Field("type", "str", "Kernel type, e.g. \"KERNEL_AIVEC\".", c="type", off=36),
               Field("name", "str", "Kernel name.", c="name", off=44),
           ]),
    Record("HcclData", "An HCCL operation with its bandwidth (HCCL record).", kind="HCCL",
           c_struct="msptiActivityHccl", size=56,
           trace=Trace("hccl", "hccl", "comm:comm_name", flow=None,
                       args=[Derived("bytes", "hccl_bytes(r)"), ("bandwidth_gbps", "bandwidth"), ("comm", "comm_name"),
                             ("device", "device_id"), ("stream", "stream_id")],
                       columns=["start", "end", "device_id", "stream_id", ("bandwidth_gbps", "bandwidth"),
                                Derived("bytes", "hccl_bytes(r)"), "name", ("comm_id", "comm_name")]),
           monitor=Monitor("HcclMonitor", "simple",
                           "Collects HcclData (HCCL records; needs libmspti.so interposing the runtime, "
                           "else start() returns MSPTI_ERROR_WITHOUT_LD_PRELOAD).",
                           callback="HcclCallback", what="HCCL"),
           fields=[
               Field("kind", "kind", "Always HCCL.", c="kind", off=0),
               Field("start", "u64", "Start on the device.", c="start", off=4, unit=NS),
               Field("end", "u64", "End on the device.", c="end", off=12, unit=NS),
               Field("device_id", "id", "Device.", c="ds.deviceId", off=20),
               Field("stream_id", "id", "Stream.", c="ds.streamId", off=24),
               Field("bandwidth", "f64", "Bandwidth; 0 when unknown.", c="bandWidth", off=28,
                     unit="GB/s (1 GB = 1e9 bytes)"),
               Field("name", "str", "Operation, e.g. \"HcclAllReduce\".", c="name", off=36),
               Field("comm_name", "str", "Communicator name.", c="commName", off=44),
           ]),
    Record("CommunicationData", "A collective as executed on a device (COMMUNICATION record).",
           kind="COMMUNICATION", c_struct="msptiActivityCommunication", size=72,
           trace=Trace("communication", "comm", "comm:comm_name",
                       args=["correlation_id", Derived("bytes", "comm_bytes(r)"), "count", "data_type", "alg_type",
                             Derived("bandwidth_gbps", "bandwidth(comm_bytes(r), r.start, r.end)", real=True),
                             ("comm", "comm_name"), ("device", "device_id"), ("stream", "stream_id")],
                       columns=["start", "end", "device_id", "stream_id", "correlation_id", "count", "data_type",
                                Derived("bytes", "comm_bytes(r)"), "name", ("comm_id", "comm_name"),
                                ("alg_id", "alg_type")]),
           monitor=Monitor("CommunicationMonitor", "simple", "Collects CommunicationData (COMMUNICATION records).",
                           callback="CommunicationCallback", what="communication"),
           fields=[
               Field("kind", "kind", "Always COMMUNICATION.", c="kind", off=0),
               Field("data_type", "enum:MsptiCommunicationDataType", "Element type.", c="dataType", off=4,
                     default="MSPTI_ACTIVITY_COMMUNICATION_INVALID_TYPE"),
               Field("count", "u64", "Element count.", c="count", off=8, unit="elements"),
               Field("device_id", "id", "Device.", c="ds.deviceId", off=16),
               Field("stream_id", "id", "Stream.", c="ds.streamId", off=20),
               Field("start", "u64", "Start on the device.", c="start", off=24, unit=NS),
               Field("end", "u64", "End on the device.", c="end", off=32, unit=NS),
               Field("alg_type", "str", "Algorithm.", c="algType", off=40),
               Field("name", "str", "Operation, e.g. \"hcom_allReduce_\".", c="name", off=48),
               Field("comm_name", "str", "Communicator (group) name.", c="commName", off=56),
               Field("correlation_id", "u64", "Joins the API record of the launch.", c="correlationId", off=64),
           ]),
    Record("ApiData", "An API call on the host, e.g. an aclnn operator (API record).", kind="API",
           c_struct="msptiActivityApi", size=48,
           trace=Trace("api", "api", "thread:process_id,thread_id", kinds=["API", "ACL_API", "NODE_API", "RUNTIME_API"],
                       args=["correlation_id"],
                       columns=["start", "end", "kind", ("pid", "process_id"), ("tid", "thread_id"), "correlation_id",
                                "name"]),
           monitor=Monitor("ApiMonitor", "simple",
                           "Collects ApiData (API records: operator-level calls on the host, with the "
                           "correlation id of the kernels they launch).",
                           callback="ApiCallback", what="API"),
           fields=[
               Field("kind", "kind", "Always API.", c="kind", off=0),
               Field("start", "u64", "Start of the call on the host.", c="start", off=4, unit=NS),
               Field("end", "u64", "End of the call on the host.", c="end", off=12, unit=NS),
               Field("process_id", "u32", "Calling process.", c="pt.processId", off=20),
               Field("thread_id", "u32", "Calling thread.", c="pt.threadId", off=24),
               Field("correlation_id", "u64", "Equals the correlation id of the kernels the call launched.",
                     c="correlationId", off=28),
               Field("name", "str", "API name, e.g. \"aclnnAdd_AddAiCore_Add\".", c="name", off=36),
           ]),
    Record("MarkerData", "One marker record: a mark, or one end of a range, on the host or a device.",
           kind="MARKER", c_struct="msptiActivityMarker", size=56,
           trace=Trace("marker", "marker", "marker", flow=None, start="timestamp", end="timestamp",
                       args=["id", "domain"], no_args=["flag", "source_kind", "object_id"],
                       columns=["timestamp", "flag", "source_kind", "id", ("pid_or_device", "object_id.process_id"),
                                ("tid_or_stream", "object_id.thread_id"), "name", "domain"]),
           monitor=Monitor("MstxMonitor", "custom", None),
           fields=[
               Field("kind", "kind", "Always MARKER.", c="kind", off=0),
               Field("flag", "enum:MsptiActivityFlag", "Which half, with or without device.", c="flag", off=4,
                     default="MSPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS"),
               Field("source_kind", "enum:MsptiActivitySourceKind", "Host or device.", c="sourceKind", off=8,
                     default="MSPTI_ACTIVITY_SOURCE_KIND_HOST"),
               Field("timestamp", "u64", "When it happened.", c="timestamp", off=12, unit=NS),
               Field("id", "u64", "Marker id; a range's start and end share it.", c="id", off=20),
               Field("object_id", "object_id", "Process/thread (host) or device/stream (device).",
                     c="objectId", off=28),
               Field("name", "str", "Message (\"\" on end and device records).", c="name", off=36),
               Field("domain", "str", "Domain (\"default\" for the non-domain API; \"\" on end and device records).",
                     c="domain", off=44),
           ]),
    Record("MemoryData", "A device memory allocation or release (MEMORY record).", kind="MEMORY",
           c_struct="msptiActivityMemory", size=64, values=False,
           trace=Trace("memory", "memory", "memory", name=None,
                       columns=["start", "end", ("operation", "memory_operation_type"), "memory_kind", "address",
                                "bytes", "device_id", "correlation_id"], no_columns=["process_id", "stream_id"]),
           fields=[
               Field("kind", "kind", "Always MEMORY.", c="kind", off=0),
               Field("memory_operation_type", "cenum:msptiActivityMemoryOperationType", "Allocation or release.",
                     c="memoryOperationType", off=4),
               Field("memory_kind", "cenum:msptiActivityMemoryKind", "Memory kind.", c="memoryKind", off=8),
               Field("correlation_id", "u64", "Correlation id of the call.", c="correlationId", off=12),
               Field("start", "u64", "Call start.", c="start", off=20, unit=NS),
               Field("end", "u64", "Call end.", c="end", off=28, unit=NS),
               Field("address", "u64", "Device address.", c="address", off=36),
               Field("bytes", "u64", "Size.", c="bytes", off=44, unit="bytes"),
               Field("process_id", "u32", "Process.", c="processId", off=52),
               Field("device_id", "id", "Device.", c="deviceId", off=56),
               Field("stream_id", "id", "Always none.", c="streamId", off=60),
           ]),
    Record("MemcpyData", "A memory copy (MEMCPY record).", kind="MEMCPY", c_struct="msptiActivityMemcpy", size=56,
           values=False,
           trace=Trace("memcpy", "memcpy", "stream:device_id,stream_id", name=Derived("name", "memcpy_name({copy_kind})"),
                       args=["correlation_id", "bytes",
                             Derived("bandwidth_gbps", "bandwidth({bytes}, r.start, r.end)", real=True),
                             ("async", "is_async"), ("device", "device_id"), ("stream", "stream_id")],
                       columns=["start", "end", "copy_kind", "bytes", "device_id", "stream_id", "is_async",
                                "correlation_id"]),
           fields=[
               Field("kind", "kind", "Always MEMCPY.", c="kind", off=0),
               Field("copy_kind", "cenum:msptiActivityMemcpyKind", "Direction.", c="copyKind", off=4),
               Field("bytes", "u64", "Bytes copied.", c="bytes", off=8, unit="bytes"),
               Field("start", "u64", "Call start.", c="start", off=16, unit=NS),
               Field("end", "u64", "Call end.", c="end", off=24, unit=NS),
               Field("device_id", "id", "Device.", c="deviceId", off=32),
               Field("stream_id", "id", "Stream; none when synchronous.", c="streamId", off=36),
               Field("correlation_id", "u64", "Correlation id of the call.", c="correlationId", off=40),
               Field("is_async", "u8", "1 for the Async variant.", c="isAsync", off=48),
           ]),
    Record("MemsetData", "A memory set (MEMSET record).", kind="MEMSET", c_struct="msptiActivityMemset", size=56,
           values=False,
           trace=Trace("memset", "memset", "stream:device_id,stream_id", name=Derived("name", '"Memset"'),
                       args=["correlation_id", "bytes", "value",
                             Derived("bandwidth_gbps", "bandwidth({bytes}, r.start, r.end)", real=True),
                             ("async", "is_async"), ("device", "device_id"), ("stream", "stream_id")],
                       columns=["start", "end", "value", "bytes", "device_id", "stream_id", "is_async",
                                "correlation_id"]),
           fields=[
               Field("kind", "kind", "Always MEMSET.", c="kind", off=0),
               Field("value", "u32", "Byte value written.", c="value", off=4),
               Field("bytes", "u64", "Bytes written.", c="bytes", off=8, unit="bytes"),
               Field("start", "u64", "Call start.", c="start", off=16, unit=NS),
               Field("end", "u64", "Call end.", c="end", off=24, unit=NS),
               Field("device_id", "id", "Device.", c="deviceId", off=32),
               Field("stream_id", "id", "Stream; none when synchronous.", c="streamId", off=36),
               Field("correlation_id", "u64", "Correlation id of the call.", c="correlationId", off=40),
               Field("is_async", "u8", "1 for the Async variant.", c="isAsync", off=48),
           ]),
    Record("ExternalCorrelationData", "An external id pushed for a correlation id (EXTERNAL_CORRELATION record; "
           "not traced).", kind="EXTERNAL_CORRELATION", c_struct="msptiActivityExternalCorrelation", size=24,
           values=False, fields=[
               Field("kind", "kind", "Always EXTERNAL_CORRELATION.", c="kind", off=0),
               Field("external_kind", "cenum:msptiExternalCorrelationKind", "Kind of the external id.",
                     c="externalKind", off=4),
               Field("external_id", "u64", "The external id.", c="externalId", off=8),
               Field("correlation_id", "u64", "The library's correlation id.", c="correlationId", off=16),
           ]),
    Record("RangeMarkerData", "A range: its start and end records paired (host and device halves separately).",
           keys=False, fields=[
               Field("kind", "kind:MARKER", "Always MARKER."),
               Field("source_kind", "enum:MsptiActivitySourceKind", "Host or device half.",
                     default="MSPTI_ACTIVITY_SOURCE_KIND_HOST"),
               Field("id", "u64", "Range id."),
               Field("object_id", "object_id", "From the start record."),
               Field("name", "str", "From the start record."),
               Field("domain", "str", "From the start record."),
               Field("start", "u64", "Start timestamp.", unit=NS),
               Field("end", "u64", "End timestamp.", unit=NS),
           ]),
]

"""The record schema generator: a field or kind added to the table reaches every language, a
table that disagrees with msPTI's C header fails to compile, and an unchanged table rewrites
nothing (so it rebuilds nothing)."""

import importlib
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_DIR = os.environ.get("MSPTI_SOURCE_DIR") or os.path.abspath(os.path.join(HERE, "..", ".."))
CXX = os.environ.get("MSPTI_CXX", "c++")
sys.path.insert(0, os.path.join(SOURCE_DIR, "schema"))


@pytest.fixture
def schema():
    """A fresh copy of the table (records) and the generator bound to it."""
    for name in ("records", "generate", "tracegen", "pystubs"):
        sys.modules.pop(name, None)
    records = importlib.import_module("records")
    yield records, lambda: importlib.import_module("generate")
    for name in ("records", "generate", "tracegen", "pystubs"):
        sys.modules.pop(name, None)


def record(records, name):
    return next(r for r in records.RECORDS if r.name == name)


def generated(gen, tmp_path):
    assert gen.main(["generate.py", str(tmp_path)]) == 0

    def read(rel):
        with open(tmp_path / rel, encoding="utf-8") as f:
            return f.read()
    return read


def test_a_new_field_reaches_every_language(schema, tmp_path):
    records, load = schema
    kernel = record(records, "KernelData")
    kernel.fields.append(records.Field("queued", "u64", "When it was queued.", c="queued", off=56, unit="ns"))
    kernel.size = 64
    read = generated(load(), tmp_path)
    assert "uint64_t queued = 0; /**< When it was queued. Unit: ns. */" in read("include/mspti/monitor_records.h")
    schema_h = read("src/monitor_schema.h")
    assert "d.queued = r.queued;" in schema_h
    assert "offsetof(msptiActivityKernel, queued) == 56" in schema_h
    assert "sizeof(msptiActivityKernel) == 64" in schema_h
    assert "u64(d.queued)" in read("swig/py_schema_records.h")
    assert "            s[x[k + 1]],\n            b.getLong(o + 56));" in read("java/org/mspti/RecordRuns.java")
    assert "    queued: int = 0" in read("python/mspti/activity_data.py")
    assert 'QUEUED = "queued"' in read("python/mspti/activity_data.py")
    assert '("queued", "<u8", 56)' in read("python/mspti/_layouts.py")
    java = read("java/org/mspti/KernelData.java")
    assert "/** When it was queued. Unit: ns. */\n    public long getQueued()" in java
    assert "public static final int QUEUED = 56;" in read("java/org/mspti/RecordBatchLayouts.java")
    # The trace: a slice argument after the listed ones, a SQLite column at the end of the table.
    assert '        s.add_string("type", or_empty(m.type));\n        s.add_uint("device", m.ds.deviceId);\n' \
        '        s.add_uint("stream", m.ds.streamId);\n        s.add_uint("queued", m.queued);\n' \
        in read("src/trace/timeline_kinds.inc")
    sqlite = read("src/trace/sqlite_kinds.inc")
    assert "name_id INTEGER, type_id INTEGER, queued INTEGER);" in sqlite
    assert '"INSERT INTO kernel VALUES (?,?,?,?,?,?,?,?)"' in sqlite
    assert "sqlite3_bind_int64(st, 8, static_cast<int64_t>(m.queued));" in sqlite
    assert '"name_id", "type_id", "queued",)' in read("python/mspti_trace/_trace_schema.py")


def test_a_new_field_is_in_every_output_that_describes_its_record(schema, tmp_path):
    """What ``git grep NEWFIELD`` lists besides the table and the ABI header: generated files only,
    one per layer (the Done-when of issue 26, runnable)."""
    records, load = schema
    kernel = record(records, "KernelData")
    kernel.fields.append(records.Field("queued_at", "u64", "When it was queued.", c="queuedAt", off=56, unit="ns"))
    kernel.size = 64
    generated(load(), tmp_path)
    hits = set()
    for dirpath, _, names in os.walk(tmp_path):
        for name in names:
            path = os.path.join(dirpath, name)
            with open(path, encoding="utf-8") as f:
                text = f.read()
            if "queued_at" in text or "queuedAt" in text or "QUEUED_AT" in text:
                hits.add(os.path.relpath(path, tmp_path))
    expected = {
        "include/mspti/monitor_records.h",  # C++ value type
        "src/monitor_schema.h",  # C -> C++ conversion and layout checks
        "swig/py_schema_records.h",  # -> Python
        "python/mspti/activity_data.py", "python/mspti/activity_data.pyi", "python/mspti/_layouts.py",
        "java/org/mspti/KernelData.java", "java/org/mspti/RecordBatchLayouts.java",
        "src/trace/timeline_kinds.inc",  # pftrace and JSON slice argument
        "src/trace/sqlite_kinds.inc",  # SQLite column
        "python/mspti_trace/_trace_schema.py",  # the readers' columns
    }
    assert expected <= hits, sorted(expected - hits)


def test_a_new_traced_kind_reaches_the_trace_tool(schema, tmp_path):
    """A kind with a Trace gets its Record member, sort times, --kinds word, track, slice, table,
    insert and reader columns; nothing hand-written changes."""
    records, load = schema
    kinds = next(e for e in records.ENUMS if e.name == "MsptiActivityKind")
    kinds.values.insert(-2, ("MSPTI_ACTIVITY_KIND_MEMORY_POOL", 13, None))
    records.RECORDS.append(records.Record(
        "MemoryPoolData", "A memory pool's usage.", kind="MEMORY_POOL", c_struct="msptiActivityMemoryPool", size=40,
        values=False,
        trace=records.Trace("memory_pool", "memory_pool", "stream:device_id,stream_id", flow=None,
                            name=records.Derived("name", '"Memory pool"'), columns=["start", "end"]),
        fields=[
            records.Field("kind", "kind", "Always MEMORY_POOL.", c="kind", off=0),
            records.Field("start", "u64", "Start.", c="start", off=4),
            records.Field("end", "u64", "End.", c="end", off=12),
            records.Field("used_bytes", "u64", "Bytes in use.", c="usedBytes", off=20),
            records.Field("device_id", "id", "Device.", c="deviceId", off=28),
            records.Field("stream_id", "id", "Stream.", c="streamId", off=32),
        ]))
    read = generated(load(), tmp_path)
    record_h = read("src/trace/record.h")
    assert "        msptiActivityMemoryPool memory_pool;" in record_h
    assert "        case MSPTI_ACTIVITY_KIND_MEMORY_POOL:\n" \
        "            start = u.memory_pool.start, end = u.memory_pool.end;" in record_h
    assert "static_assert(offsetof(msptiActivityMemoryPool, usedBytes) == 20" in record_h
    assert 'case MSPTI_ACTIVITY_KIND_MEMORY_POOL: return "memory_pool";' in record_h
    assert '{"memory_pool", {MSPTI_ACTIVITY_KIND_MEMORY_POOL}},' in read("src/trace/kind_words.h")
    timeline = read("src/trace/timeline_kinds.inc")
    assert 'Slice &s = put(stream_track(m.deviceId, m.streamId), r, "Memory pool", kind_name(r.kind()));' \
        in timeline
    assert 's.add_uint("used_bytes", m.usedBytes);' in timeline
    sqlite = read("src/trace/sqlite_kinds.inc")
    assert "CREATE TABLE memory_pool (start INTEGER, end INTEGER, used_bytes INTEGER, device_id INTEGER, " \
        "stream_id INTEGER);" in " ".join(sqlite.split())
    assert '"INSERT INTO memory_pool VALUES (?,?,?,?,?)",' in sqlite
    schema_py = read("python/mspti_trace/_trace_schema.py")
    assert '"memory_pool": ("start", "end", "used_bytes", "device_id", "stream_id",),' in schema_py
    assert '"memory_pool",)' in schema_py  # KIND_WORDS
    # ... and its record size (msptiExtRecordSize), with no edit of mspti_ext.h.
    sizes = read("include/mspti/mspti_ext_record_size.h")
    assert "    case MSPTI_ACTIVITY_KIND_MEMORY_POOL: return sizeof(msptiActivityMemoryPool);\n" in sizes
    assert "(outside 1..13)" in sizes


def test_every_kind_gets_its_record_size(schema, tmp_path):
    """msptiExtRecordSize: one case per kind, the API kinds sharing msptiActivityApi through ApiData's
    trace kinds, unless a kind has a record of its own."""
    records, load = schema
    sizes = generated(load(), tmp_path)("include/mspti/mspti_ext_record_size.h")
    expected = {"MARKER": "Marker", "KERNEL": "Kernel", "API": "Api", "HCCL": "Hccl", "MEMORY": "Memory",
                "MEMSET": "Memset", "MEMCPY": "Memcpy", "EXTERNAL_CORRELATION": "ExternalCorrelation",
                "COMMUNICATION": "Communication", "ACL_API": "Api", "NODE_API": "Api", "RUNTIME_API": "Api"}
    cases = [line.strip() for line in sizes.splitlines() if line.strip().startswith("case ")]
    assert sorted(cases) == sorted(f"case MSPTI_ACTIVITY_KIND_{k}: return sizeof(msptiActivity{s});"
                                   for k, s in expected.items())
    assert "(outside 1..12)" in sizes


def test_a_kind_without_a_layout_fails_the_generator(schema, tmp_path):
    records, load = schema
    kinds = next(e for e in records.ENUMS if e.name == "MsptiActivityKind")
    kinds.values.insert(-2, ("MSPTI_ACTIVITY_KIND_MEMORY_POOL", 13, None))
    with pytest.raises(SystemExit, match=r"activity kinds \['MEMORY_POOL'\] have no record layout"):
        load().main(["generate.py", str(tmp_path)])


def test_a_trace_only_record_that_disagrees_with_the_c_header_fails_the_build(schema, tmp_path):
    records, load = schema
    gen = load()

    def compiles(out):
        gen.main(["generate.py", str(out)])
        tu = out / "tu.cpp"
        tu.write_text('#include "record.h"\n')
        return subprocess.run([CXX, "-std=c++20", "-fsyntax-only", "-I", os.path.join(SOURCE_DIR, "include"),
                               "-I", str(out / "include/mspti"), "-I", str(out / "src/trace"), str(tu)],
                              capture_output=True, text=True)

    good = compiles(tmp_path / "good")
    assert good.returncode == 0, good.stderr
    next(f for f in record(records, "MemcpyData").fields if f.name == "bytes").off = 12
    bad = compiles(tmp_path / "bad")
    assert bad.returncode != 0 and "msptiActivityMemcpy.bytes: offset" in bad.stderr, bad.stderr


def test_the_readers_select_only_columns_the_writer_has(tmp_path):
    script = os.path.join(SOURCE_DIR, "schema", "generate.py")
    subprocess.run([sys.executable, "-B", script, str(tmp_path)], capture_output=True, check=True)
    namespace = {}
    exec((tmp_path / "python/mspti_trace/_trace_schema.py").read_text(), namespace)
    select = namespace["select"]
    assert select("kernel", "start", "name_id") == "SELECT start, name_id FROM kernel"
    with pytest.raises(ValueError, match="table 'kernel' has no column names_id"):
        select("kernel", "names_id")
    with pytest.raises(ValueError, match="no record table 'kernels'"):
        select("kernels", "start")


def test_a_new_kind_gets_a_monitor_in_every_language(schema, tmp_path):
    records, load = schema
    api = record(records, "ApiData")
    records.RECORDS.append(records.Record(
        "AclApiData", "An ACL API call.", kind="ACL_API", c_struct="msptiActivityApi", size=48,
        monitor=records.Monitor("AclApiMonitor", "simple", "Collects AclApiData.", callback="AclApiCallback",
                                what="ACL API"),
        fields=api.fields))
    read = generated(load(), tmp_path)
    assert "class AclApiMonitor : public Monitor" in read("include/mspti/monitor_kinds.h")
    assert "AclApiMonitor::AclApiMonitor() : Monitor(MsptiActivityKind::MSPTI_ACTIVITY_KIND_ACL_API)" in \
        read("src/monitor_kinds.inc")
    assert "f.template operator()<msptiActivityApi, AclApiData, AclApiCallback>();" in read("src/monitor_schema.h")
    assert '%feature("director") mspti::AclApiCallback;' in read("swig/schema.i")
    assert "%threadallow mspti::AclApiMonitor::start;" in read("swig/schema_python.i")
    assert "MSPTI_JAVA_MONITOR(AclApiMonitor, AclApiCallback, AclApiData, ACL_API)" in read("swig/schema_java.i")
    assert "class AclApiMonitor(SingleCallbackMonitor):" in read("python/mspti/monitor/_kinds.py")
    assert "public final class AclApiData" in read("java/org/mspti/AclApiData.java")
    runs = read("java/org/mspti/RecordRuns.java")
    assert "static AclApiData aclApiData(ByteBuffer b, int o, String[] s, int[] x, int k)" in runs
    assert "static RecordRun of(AclApiCallback callback)" in runs
    assert "case 10: {  // ACL_API" in read("swig/java_schema_strings.h")


def test_an_offset_that_disagrees_with_the_c_header_fails_the_build(schema, tmp_path):
    records, load = schema
    gen = load()

    def compiles(out):
        gen.main(["generate.py", str(out)])
        tu = out / "tu.cpp"
        tu.write_text('#include "monitor/convert.h"\n')
        return subprocess.run([CXX, "-std=c++20", "-fsyntax-only", "-I", os.path.join(SOURCE_DIR, "include"),
                               "-I", str(out / "include"), "-I", str(out / "include/mspti"),
                               "-I", os.path.join(SOURCE_DIR, "src"),
                               "-I", str(out / "src"), str(tu)], capture_output=True, text=True)

    good = compiles(tmp_path / "good")
    assert good.returncode == 0, good.stderr
    next(f for f in record(records, "KernelData").fields if f.name == "correlation_id").off = 32
    bad = compiles(tmp_path / "bad")
    assert bad.returncode != 0 and "msptiActivityKernel.correlationId: offset" in bad.stderr, bad.stderr


def test_an_unchanged_table_rewrites_nothing(tmp_path):
    script = os.path.join(SOURCE_DIR, "schema", "generate.py")
    first = subprocess.run([sys.executable, "-B", script, str(tmp_path)], capture_output=True, text=True, check=True)
    assert "include/mspti/monitor_records.h" in first.stdout.split()
    stamp = os.stat(tmp_path / "include/mspti/monitor_records.h").st_mtime_ns
    again = subprocess.run([sys.executable, "-B", script, str(tmp_path)], capture_output=True, text=True, check=True)
    assert again.stdout == ""
    assert os.stat(tmp_path / "include/mspti/monitor_records.h").st_mtime_ns == stamp
    (tmp_path / "java/org/mspti/GoneData.java").write_text("class GoneData {}\n")  # a kind no longer in the table
    subprocess.run([sys.executable, "-B", script, str(tmp_path)], check=True, capture_output=True)
    assert not (tmp_path / "java/org/mspti/GoneData.java").exists()


def test_a_new_field_and_kind_reach_the_python_stubs(schema, tmp_path):
    """The .pyi stubs follow the table as the modules do (schema/pystubs.py, from the table loaded)."""
    records, load = schema
    api = record(records, "ApiData")
    kernel = record(records, "KernelData")
    kernel.fields.append(records.Field("queued", "u64", "When it was queued.", c="queued", off=56, unit="ns"))
    kernel.size = 64
    records.RECORDS.append(records.Record(
        "AclApiData", "An ACL API call.", kind="ACL_API", c_struct="msptiActivityApi", size=48,
        monitor=records.Monitor("AclApiMonitor", "simple", "Collects AclApiData.", callback="AclApiCallback",
                                what="ACL API"),
        fields=api.fields))
    read = generated(load(), tmp_path)
    data = read("python/mspti/activity_data.pyi")
    assert '    queued: int = ...\n    """When it was queued. Unit: ns."""' in data
    assert "class AclApiData(_Record, _AclApiDataFields):" in data and '"AclApiData"' in data
    kinds = read("python/mspti/monitor/_kinds.pyi")
    assert "class AclApiMonitor(SingleCallbackMonitor):" in kinds
    assert "def start(self, callback: Union[Callable[[AclApiData], object], AclApiCallback]) -> MsptiResult:" in kinds
    assert "    def on_record(self, data: AclApiData) -> None:" in kinds
    assert "ACL_API_DTYPE: Optional[np.dtype[np.void]]" in read("python/mspti/batch.pyi")

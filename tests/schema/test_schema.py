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
    for name in ("records", "generate"):
        sys.modules.pop(name, None)
    records = importlib.import_module("records")
    yield records, lambda: importlib.import_module("generate")
    for name in ("records", "generate"):
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
    assert "static RecordRun of(AclApiCallback callback, RecordRun.Counts counts)" in runs
    assert "case 10: {  // ACL_API" in read("swig/java_schema_strings.h")


def test_an_offset_that_disagrees_with_the_c_header_fails_the_build(schema, tmp_path):
    records, load = schema
    gen = load()

    def compiles(out):
        gen.main(["generate.py", str(out)])
        tu = out / "tu.cpp"
        tu.write_text('#include "monitor/convert.h"\n')
        return subprocess.run([CXX, "-std=c++20", "-fsyntax-only", "-I", os.path.join(SOURCE_DIR, "include"),
                               "-I", str(out / "include"), "-I", os.path.join(SOURCE_DIR, "src"),
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

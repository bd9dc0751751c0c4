"""Typing at runtime: records expose their typed fields to dataclasses.fields (checked against the
schema table itself), and every process-wide classmethod behaves alike on the class and on a monitor."""

import dataclasses
import importlib.util
import logging
import math
import os

import pytest

import mspti
from mspti import KernelData, KernelMonitor, MsptiObjectId, MsptiResult
from mspti.monitor.base_monitor import BaseMonitor

SCHEMA = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                      "schema", "records.py")


def _schema():
    spec = importlib.util.spec_from_file_location("records_table", SCHEMA)
    table = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(table)
    return table


TABLE = _schema()
# The Python type of each schema field type, as the table's header documents it.
PY_TYPES = {"u64": int, "f64": float, "str": str, "id": int, "u32": int, "i64": int,
            "object_id": MsptiObjectId, "kind": mspti.MsptiActivityKind}


def _expected_type(t):
    base = t.split(":")[0]
    return getattr(mspti, t.split(":")[1]) if base == "enum" else PY_TYPES[base]


# The Monitor API's value types (values=False records are only laid out and traced).
@pytest.mark.parametrize("record", [r for r in TABLE.RECORDS if r.values], ids=lambda r: r.name)
def test_dataclasses_fields_match_the_schema(record):
    cls = getattr(mspti, record.name)
    assert dataclasses.is_dataclass(cls)
    fields = dataclasses.fields(cls)
    assert [f.name for f in fields] == [f.name for f in record.fields]
    for f, row in zip(fields, record.fields):
        assert f.type is _expected_type(row.t), (f.name, f.type, row.t)
        assert f.metadata["doc"].startswith(row.doc), (f.name, f.metadata)
        if row.unit:
            assert row.unit in f.metadata["doc"]
        if record.keys and row.key and not row.t.startswith("object_id"):
            assert f.metadata["key"] == row.key == getattr(cls, f.name.upper())
    # A default-constructed record holds each field's default.
    assert tuple(f.default for f in fields) == tuple(cls())


def test_asdict_and_replace_work_on_records():
    k = KernelData(start=5, end=9, name="Add", device_id=1)
    d = dataclasses.asdict(k)
    assert d == k._asdict() and d["name"] == "Add" and d["kind"] is mspti.MsptiActivityKind.MSPTI_ACTIVITY_KIND_KERNEL
    moved = dataclasses.replace(k, device_id=3)
    assert type(moved) is KernelData and moved.device_id == 3 and moved.start == 5 and k.device_id == 1
    m = mspti.MarkerData(object_id=MsptiObjectId(process_id=7, thread_id=8))
    assert dataclasses.asdict(m)["object_id"] == {"process_id": 7, "thread_id": 8, "device_id": -1, "stream_id": -1}
    assert dataclasses.astuple(k) == tuple(k)


# ---- classmethods: on the class as on a monitor ---------------------------------------------------

MONITORS = [getattr(mspti, n) for n in mspti.__all__ if n.endswith("Monitor")]
# Bad input of every process-wide classmethod; ``None`` for those that take no argument (a call
# with one is then a TypeError, whose text must be the same on the class and on a monitor).
BAD = {
    "flush_period": [-1, 2**32, 1.5, "10", True, None],
    "set_buffer_size": [0, 257, -4, 8.0, "8", True, None],
    "set_stop_timeout": [-3, 86401, "2", True, float("nan"), [1]],
    "flush_all": None,
    "get_stop_timeout": None,
}


def test_every_classmethod_has_bad_input_listed():
    classmethods = {n for n, v in vars(BaseMonitor).items() if isinstance(v, classmethod)}
    assert classmethods == set(BAD)
    assert {"KernelMonitor", "HcclMonitor", "CommunicationMonitor", "MstxMonitor"} <= {m.__name__ for m in MONITORS}


def _logged(caplog, call):
    caplog.clear()
    with caplog.at_level(logging.ERROR, logger="mspti"):
        result = call()
    return result, [r.getMessage() for r in caplog.records]


@pytest.mark.parametrize("cls", MONITORS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("method", sorted(m for m in BAD if BAD[m]))
def test_bad_input_on_the_class_is_the_same_as_on_a_monitor(cls, method, caplog):
    for bad in BAD[method]:
        on_class = _logged(caplog, lambda: getattr(cls, method)(bad))
        on_monitor = _logged(caplog, lambda: getattr(cls(), method)(bad))
        assert on_class == on_monitor, (bad, on_class, on_monitor)
        result, messages = on_class
        assert result is MsptiResult.MSPTI_ERROR_INVALID_PARAMETER, (bad, result)
        assert len(messages) == 1, messages
        # The message names the monitor class, the method and the value it was given.
        text = messages[0]
        assert text.startswith(f"{cls.__name__}: {method}: "), text
        shown = "nan" if isinstance(bad, float) and math.isnan(bad) else repr(bad)
        assert f"not {shown}" in text, (bad, text)


@pytest.mark.parametrize("cls", MONITORS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("method", sorted(m for m in BAD if BAD[m] is None))
def test_argumentless_classmethods_reject_an_argument_alike(cls, method):
    with pytest.raises(TypeError) as on_class:
        getattr(cls, method)(42)
    with pytest.raises(TypeError) as on_monitor:
        getattr(cls(), method)(42)
    assert str(on_class.value) == str(on_monitor.value) and method in str(on_class.value)


@pytest.mark.parametrize("cls", MONITORS, ids=lambda c: c.__name__)
def test_good_input_on_the_class_gives_the_same_setting(cls):
    before = cls.get_stop_timeout()
    assert cls.set_stop_timeout(1.5) is MsptiResult.MSPTI_SUCCESS
    assert cls().get_stop_timeout() == cls.get_stop_timeout() == 1.5
    assert cls.set_stop_timeout(before) is MsptiResult.MSPTI_SUCCESS
    assert cls.set_buffer_size(8) is cls().set_buffer_size(8) is MsptiResult.MSPTI_SUCCESS
    assert cls.flush_period(0) is MsptiResult.MSPTI_SUCCESS
    assert cls.flush_all() is MsptiResult.MSPTI_SUCCESS

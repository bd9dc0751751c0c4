"""numpy batches over the packed layouts; record fields against what the virtual NPU ran;
package names and enum values."""

import os
import threading

import numpy as np
import pytest

import mspti
import vnpu
from mspti import (ApiData, ApiMonitor, HcclData, KernelData, KernelMonitor, MstxMonitor, MsptiActivityKind,
                   MsptiActivitySourceKind, MsptiResult, batch, mstx)
from mspti._loader import native

OK = MsptiResult.MSPTI_SUCCESS


def test_public_names_are_the_15_of_the_spec_and_the_api_kind():
    assert sorted(mspti.__all__) == sorted([
        "KernelMonitor", "KernelData", "MstxMonitor", "MarkerData", "RangeMarkerData", "HcclMonitor", "HcclData",
        "CommunicationMonitor", "CommunicationData", "MsptiObjectId", "MsptiResult", "MsptiActivityKind",
        "MsptiCommunicationDataType", "MsptiActivityFlag", "MsptiActivitySourceKind", "ApiMonitor", "ApiData"])
    for name in mspti.__all__:
        assert getattr(mspti, name) is not None


@pytest.mark.parametrize("enum_name", ["MsptiResult", "MsptiActivityKind", "MsptiActivityFlag",
                                       "MsptiActivitySourceKind", "MsptiCommunicationDataType"])
def test_enum_values_match_the_cpp_header(enum_name):
    enum = getattr(mspti, enum_name)
    native_values = {k[len(enum_name) + 1:]: v for k, v in vars(native).items() if k.startswith(enum_name + "_")}
    assert {m.name: m.value for m in enum} == native_values


def test_enums_print_by_name_and_are_not_ints_as_in_mspti():
    # msPTI's package uses plain Enum: print(monitor.start(cb)) shows the name, and a result never
    # equals an int.
    r = KernelMonitor().set_buffer_size(8)
    assert str(r) == "MsptiResult.MSPTI_SUCCESS" and f"{r}" == str(r) and format(r, "") == str(r)
    assert repr(r) == "<MsptiResult.MSPTI_SUCCESS: 0>"
    assert r == OK and r != 0 and r.value == 0
    fp16 = mspti.MsptiCommunicationDataType.MSPTI_ACTIVITY_COMMUNICATION_FP16
    assert str(fp16) == "MsptiCommunicationDataType.MSPTI_ACTIVITY_COMMUNICATION_FP16" and fp16 != 3
    assert mspti.MsptiCommunicationDataType(3) is fp16


# Offsets pinned by tests/mspti/record_layout_test.cpp (packed msPTI records).
@pytest.mark.parametrize("kind,size,offsets", [
    (MsptiActivityKind.MSPTI_ACTIVITY_KIND_KERNEL, 56, {"start": 4, "end": 12, "device_id": 20, "stream_id": 24,
                                                        "correlation_id": 28, "type": 36, "name": 44}),
    (MsptiActivityKind.MSPTI_ACTIVITY_KIND_HCCL, 56, {"bandwidth": 28, "name": 36, "comm_name": 44}),
    (MsptiActivityKind.MSPTI_ACTIVITY_KIND_COMMUNICATION, 72, {"data_type": 4, "count": 8, "device_id": 16,
                                                               "start": 24, "alg_type": 40, "correlation_id": 64}),
    (MsptiActivityKind.MSPTI_ACTIVITY_KIND_MARKER, 56, {"flag": 4, "source_kind": 8, "timestamp": 12, "id": 20,
                                                        "process_id": 28, "stream_id": 32, "name": 36, "domain": 44}),
])
def test_dtypes_match_the_packed_layouts(kind, size, offsets):
    dt = batch.DTYPES[kind]
    assert dt.itemsize == size
    assert {f: dt.fields[f][1] for f in offsets} == offsets


def test_marker_batch_is_a_zero_copy_structured_array():
    seen = []

    def on_batch(b):
        assert isinstance(b, np.ndarray) and b.dtype == batch.MARKER_DTYPE and not b.flags.writeable
        seen.append((b.copy(), batch.strings(b, "name"), batch.strings(b, "domain")))

    m = MstxMonitor()
    assert m.start_batch(on_batch) == OK
    for i in range(1000):
        mstx.mark(f"b{i % 10}")
    m.stop()
    arrays = np.concatenate([a for a, _, _ in seen])
    names = sum((n for _, n, _ in seen), [])
    assert len(arrays) == 1000 and names == [f"b{i % 10}" for i in range(1000)]
    assert set(sum((d for _, _, d in seen), [])) == {"default"}
    assert (arrays["kind"] == 1).all() and (arrays["flag"] == 1).all() and (np.diff(arrays["id"].astype(np.int64)) > 0).all()
    assert m.stats().delivered == 1000


def test_api_records_carry_the_caller_and_join_the_kernels_they_launched():
    apis, kernels, rows = [], [], []
    a, k, b = ApiMonitor(), KernelMonitor(), ApiMonitor()
    assert a.start(apis.append) == OK and k.start(kernels.append) == OK
    assert b.start_batch(lambda batch: rows.append(batch.copy())) == OK
    x = vnpu.ones(4, 4).npu()
    y = x * x + x
    vnpu.synchronize()
    a.stop(), k.stop(), b.stop()
    assert np.allclose(y.numpy(), 2.0)
    assert [d.name for d in apis] == ["aclnnMul_MulAiCore_Mul", "aclnnAdd_AddAiCore_Add"]
    assert [d.correlation_id for d in apis] == [d.correlation_id for d in kernels]
    for d in apis:
        assert type(d) is ApiData and d.kind is MsptiActivityKind.MSPTI_ACTIVITY_KIND_API
        assert d.process_id == os.getpid() and d.thread_id == threading.get_native_id()
        assert 10**18 < d.start <= d.end < 10**19  # epoch ns
    assert all(r.dtype == batch.API_DTYPE for r in rows) and batch.API_DTYPE.itemsize == 48
    rows = np.concatenate(rows)
    assert batch.strings(rows, "name") == [d.name for d in apis]
    assert rows["correlation_id"].tolist() == [d.correlation_id for d in apis]
    assert rows["thread_id"].tolist() == [d.thread_id for d in apis]
    assert ApiData.CORRELATION_ID == "correlationId" and ApiData.PROCESS_ID == "processId"


def test_batches_of_the_generated_monitors_expire_with_their_callback():
    kept, dtypes = [], []

    def keep(b):
        kept.append(b)
        dtypes.append(b.dtype)

    a, k = ApiMonitor(), KernelMonitor()
    assert a.start_batch(keep) == OK and k.start_batch(keep) == OK
    x = vnpu.ones(4, 4).npu()
    y = x * x
    vnpu.synchronize()
    a.stop(), k.stop()
    assert np.allclose(y.numpy(), 1.0)
    assert set(dtypes) == {batch.API_DTYPE, batch.KERNEL_DTYPE}
    for b in kept:  # used after the callback: an error, never the library's reused memory
        with pytest.raises(ValueError, match="after its callback returned"):
            b["correlation_id"].tolist()


def test_record_fields_are_documented_with_units():
    assert "ns since the Unix epoch" in KernelData.start.__doc__
    assert "GB/s" in HcclData.bandwidth.__doc__
    assert "ns since the Unix epoch" in ApiData.__doc__  # the class docstring lists every field


def test_kernel_records_match_what_the_device_ran():
    got = []
    k = KernelMonitor()
    assert k.start(got.append) == OK
    vnpu.set_device(2)
    stream = vnpu.current_stream()
    x = vnpu.ones(8, 8).npu()
    y = vnpu.relu(x * x) @ x + x
    vnpu.synchronize()
    k.stop()
    assert np.allclose(y.numpy(), 9.0)
    assert [(d.type, d.name.split("_")[0]) for d in got] == [
        ("KERNEL_AIVEC", "Mul"), ("KERNEL_AIVEC", "Relu"), ("KERNEL_AICORE", "MatMulV3"), ("KERNEL_AIVEC", "Add")]
    for d in got:
        assert type(d) is KernelData and d.kind is MsptiActivityKind.MSPTI_ACTIVITY_KIND_KERNEL
        assert d.device_id == 2 and d.stream_id == stream.stream_id
        assert 10**18 < d.start <= d.end < 10**19  # epoch ns
    assert [d.start for d in got] == sorted(d.start for d in got)
    assert len({d.correlation_id for d in got}) == 4
    vnpu.set_device(0)


def test_device_and_host_range_halves():
    ranges = []
    m = MstxMonitor()
    m.start(range_cb=ranges.append)
    vnpu.set_device(1)
    s = vnpu.current_stream()
    with mstx.range("dev", s):
        vnpu.ones(4).npu()
    vnpu.synchronize()
    m.stop()
    host = [r for r in ranges if r.source_kind is MsptiActivitySourceKind.MSPTI_ACTIVITY_SOURCE_KIND_HOST]
    dev = [r for r in ranges if r.source_kind is MsptiActivitySourceKind.MSPTI_ACTIVITY_SOURCE_KIND_DEVICE]
    assert len(host) == len(dev) == 1
    assert host[0].name == "dev" and host[0].domain == "default" and host[0].object_id.device_id == -1
    assert dev[0].name == "" and dev[0].object_id.device_id == 1 and dev[0].object_id.stream_id == s.stream_id
    assert dev[0].object_id.process_id == -1 and dev[0].end >= dev[0].start
    vnpu.set_device(0)


def test_mstx_decorator_nested_and_domain():
    ranges = []
    m = MstxMonitor()
    m.start(range_cb=ranges.append)

    @mstx.range("outer")
    def work(n):
        with mstx.range("inner"):
            return n * 2

    assert work(3) == 6 and work(4) == 8
    d = mstx.domain_create("dom")
    d.mark("dm")
    with d.range("dr", vnpu.current_stream()):
        pass
    m.stop()
    host_kind = MsptiActivitySourceKind.MSPTI_ACTIVITY_SOURCE_KIND_HOST
    host = [(r.name, r.domain) for r in ranges if r.source_kind is host_kind]
    assert host == [("inner", "default"), ("outer", "default")] * 2 + [("dr", "dom")]

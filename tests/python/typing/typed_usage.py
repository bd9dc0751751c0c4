"""Correct uses of the typed API: mypy --strict must accept this file, and every assert_type must
hold (an Any where a real type belongs fails assert_type, so this also checks the types are real)."""
import dataclasses
from typing import Optional, assert_type

import numpy as np

import vnpu
import vnpu.distributed as dist
from mspti import (ApiData, ApiMonitor, BatchCallback, CommunicationData, CommunicationMonitor, HcclData,
                   HcclMonitor, KernelCallback, KernelData, KernelMonitor, MarkCallback, MarkerData, MonitorStats,
                   MsptiActivityKind, MsptiCommunicationDataType, MsptiObjectId, MsptiResult, MstxMonitor,
                   RangeMarkerData, batch, mstx)
from mspti.batch import Batch


class Kernels(KernelCallback):
    def on_record(self, data: KernelData) -> None:
        assert_type(data.start, int)
        assert_type(data.name, str)
        assert_type(data.kind, MsptiActivityKind)


class Marks(MarkCallback):
    def on_record(self, data: MarkerData) -> None:
        assert_type(data.object_id, MsptiObjectId)
        assert_type(data.object_id.thread_id, int)


class Blocks(BatchCallback):
    def on_batch(self, b: Batch) -> None:
        if isinstance(b, np.ndarray):
            assert_type(batch.strings(b, "name"), list[str])


def on_comm(data: CommunicationData) -> None:
    assert_type(data.data_type, MsptiCommunicationDataType)
    assert_type(data.count, int)


def on_hccl(data: HcclData) -> None:
    assert_type(data.bandwidth, float)


def on_api(data: ApiData) -> None:
    assert_type(data.process_id, int)


def on_range(data: RangeMarkerData) -> None:
    assert_type(data.end - data.start, int)


kernels = KernelMonitor()
assert_type(kernels.start(Kernels()), MsptiResult)
assert_type(kernels.start(print), MsptiResult)
assert_type(kernels.start_batch(Blocks()), MsptiResult)
assert_type(CommunicationMonitor().start(on_comm), MsptiResult)
assert_type(HcclMonitor().start(on_hccl), MsptiResult)
assert_type(ApiMonitor().start(on_api), MsptiResult)
with MstxMonitor() as markers:
    assert_type(markers, MstxMonitor)
    assert_type(markers.start(Marks(), on_range), MsptiResult)
    assert_type(markers.start(range_cb=on_range), MsptiResult)
    assert_type(markers.disable_domain("io"), MsptiResult)

# The process-wide settings, on the class or on a monitor.
assert_type(KernelMonitor.set_buffer_size(8), MsptiResult)
assert_type(kernels.flush_period(0), MsptiResult)
assert_type(KernelMonitor.get_stop_timeout(), Optional[float])
assert_type(KernelMonitor.set_stop_timeout(None), MsptiResult)
assert_type(KernelMonitor.flush_all(), MsptiResult)
assert_type(kernels.stats(), MonitorStats)
assert_type(kernels.stats().dropped, int)
assert_type(kernels.is_running(), bool)

# Records: dataclass-style fields.
for field in dataclasses.fields(KernelData):
    assert_type(field.name, str)
assert_type(KernelData.DEVICE_ID, str)

# mstx: functions, ranges as context managers and decorators, domains.
stream = vnpu.current_stream()
mstx.mark("m", stream)
rid = mstx.range_start("r", stream.handle)
assert_type(rid, int)
mstx.range_end(rid)
with mstx.range("block"):
    pass


@mstx.range("step")
def step(n: int) -> str:
    return str(n)


assert_type(step(3), str)
domain = mstx.Domain("d")
assert_type(domain.range_start("x"), int)
assert_type(domain.valid, bool)

# The vnpu facade.
x = vnpu.randn(4, 4, dtype=vnpu.float16).npu()
y = vnpu.matmul(x, x) + x
assert_type(y, vnpu.Tensor)
assert_type(y.shape, tuple[int, ...])
assert_type(vnpu.current_device(), int)
assert_type(vnpu.native.matmul_shape([2, 3], [3, 4]), tuple[int, ...])
if dist.is_initialized():
    dist.all_reduce(y, dist.ReduceOp.MAX)
    assert_type(dist.get_rank(), int)

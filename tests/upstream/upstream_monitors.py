"""msPTI's own Python package on the virtual NPU: its MstxMonitor and HcclMonitor, as in its guide (a
mark, a range around a matmul on a stream, an all_reduce), one line per record; run by vnpu.run.
Markers come from the header-only mstx API (mstx_emit, loaded with ctypes): argv[1] is that library."""
import ctypes
import os
import sys

import vnpu
import vnpu.distributed as dist
from mspti import HcclData, HcclMonitor, MarkerData, MstxMonitor, RangeMarkerData

rank = int(os.environ.get("RANK", "0"))
emit = ctypes.CDLL(sys.argv[1])
emit.emit_range_start.restype = ctypes.c_uint64
emit.emit_range_start.argtypes = [ctypes.c_char_p, ctypes.c_void_p]
emit.emit_mark.argtypes = [ctypes.c_char_p, ctypes.c_void_p]
emit.emit_range_end.argtypes = [ctypes.c_uint64]


def say(line):
    """One write per line: the ranks share the pipe."""
    sys.stdout.write(f"[rank {rank}] {line}\n")
    sys.stdout.flush()


def on_mark(data: MarkerData):
    say(f"[MARK] sourceKind: {data.source_kind.name}, name: {data.name}")


def on_range(data: RangeMarkerData):
    say(f"[RANGE] sourceKind: {data.source_kind.name}, name: '{data.name}', start: {data.start}, end: {data.end}")


def on_hccl(data: HcclData):
    say(f"[HCCL] name: {data.name}, commName: {data.comm_name}, start: {data.start}, end: {data.end}, "
        f"deviceId: {data.device_id}")


def main():
    mstx_monitor, hccl_monitor = MstxMonitor(), HcclMonitor()
    mstx_monitor.start(on_mark, on_range)
    hccl_monitor.start(on_hccl)
    dist.init_process_group(backend="hccl")
    x = vnpu.randn(64, 64).npu()
    stream = vnpu.current_stream()
    emit.emit_mark(b"step", None)
    range_id = emit.emit_range_start(b"mstx_matmul", ctypes.c_void_p(stream.handle))
    vnpu.matmul(x, x)
    emit.emit_range_end(range_id)
    dist.all_reduce(x)
    vnpu.synchronize()
    mstx_monitor.stop()
    hccl_monitor.stop()


if __name__ == "__main__":
    main()

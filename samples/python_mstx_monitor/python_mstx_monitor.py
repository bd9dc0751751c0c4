"""python_mstx_monitor: MstxMonitor with a mark and a range callback, one device range per rank.

    python3 -m vnpu.run --nproc_per_node 8 samples/python_mstx_monitor/python_mstx_monitor.py

Each rank wraps a matmul in mstx.range_start("mstx_matmul", stream) / range_end and prints the
two RangeMarkerData it gets: the HOST half and the DEVICE half.
"""
import os

import vnpu
from mspti import MarkerData, MstxMonitor, RangeMarkerData, mstx

rank = int(os.environ.get("RANK", "0"))


def on_mark(data: MarkerData) -> None:
    print(f"[rank {rank}] [MARK] {data.name}", flush=True)


def on_range(data: RangeMarkerData) -> None:
    o = data.object_id
    print(f"[rank {rank}] [RANGE] sourceKind: {data.source_kind.name}, id: {data.id}, name: '{data.name}', "
          f"domain: '{data.domain}', processId: {o.process_id}, threadId: {o.thread_id}, "
          f"deviceId: {o.device_id}, streamId: {o.stream_id}, start: {data.start}, end: {data.end}", flush=True)


def main() -> None:
    monitor = MstxMonitor()
    monitor.start(on_mark, on_range)
    vnpu.set_device(int(os.environ.get("LOCAL_RANK", "0")))
    x = vnpu.randn(128, 128, dtype=vnpu.float16).npu()
    stream = vnpu.current_stream()
    range_id = mstx.range_start("mstx_matmul", stream)
    vnpu.matmul(x, x)
    mstx.range_end(range_id)
    vnpu.synchronize()
    monitor.stop()


if __name__ == "__main__":
    main()

"""User guide 6.1: MstxMonitor basic usage (business code: a mark and a range)."""
from mspti import MstxMonitor, MarkerData, RangeMarkerData, mstx


def on_marker(data: MarkerData) -> None:
    print(f"[MARK] {data.name} | timestamp={data.timestamp}")


def on_range(data: RangeMarkerData) -> None:
    print(f"[RANGE] {data.name} | domain={data.domain} | "
          f"start={data.start}, end={data.end}, "
          f"duration={(data.end - data.start) / 1000:.2f} us")


monitor = MstxMonitor()
monitor.start(on_marker, on_range)

# 执行业务代码
mstx.mark("step_begin")
with mstx.range("work"):
    sum(range(1000))

monitor.stop()

"""User guide 6.2, as written (torch -> vnpu, torch_npu.npu.mstx -> mspti.mstx).

The guide passes range_parser as the *first* argument (mark_cb), so ranges go to the default
no-op and the consumer only sees the final None: the script runs and ends cleanly, as the
original does. GUIDE_RANGE_CB=1 passes it as range_cb instead (what the guide means).
"""
import os
import threading
import time
import logging
from multiprocessing import Queue
from typing import Optional
import vnpu
from mspti import MstxMonitor, MarkerData, RangeMarkerData, mstx

data_queue: "Queue[Optional[RangeMarkerData]]" = Queue()
logging.basicConfig(level=logging.INFO)


def range_parser(data: RangeMarkerData) -> None:
    data_queue.put(data)


def consumer() -> None:
    while True:
        if not data_queue.empty():
            data = data_queue.get()
            if data is None:
                break
            duration_us = (data.end - data.start) / 1000
            logging.info(f"Range: {data.name}, {duration_us:.2f} us")
        else:
            time.sleep(0.1)


def test() -> None:
    consumer_thread = threading.Thread(target=consumer)
    consumer_thread.start()

    # 创建并启动 MstxMonitor
    monitor = MstxMonitor()
    if os.environ.get("GUIDE_RANGE_CB") == "1":
        monitor.start(range_cb=range_parser)
    else:
        # The guide's slip, kept as written: mypy reports it (a range callback where marks go).
        monitor.start(range_parser)  # type: ignore[arg-type]

    # 执行带打点的 NPU 计算
    device = int(os.getenv('LOCAL_RANK', '0'))
    vnpu.set_device(device)

    x = vnpu.randn(256, 256, dtype=vnpu.float16).npu()
    y = vnpu.randn(256, 256, dtype=vnpu.float16).npu()

    stream = vnpu.current_stream()
    range_id = mstx.range_start("matmul_range", stream)
    z = vnpu.matmul(x, y)
    mstx.range_end(range_id)

    vnpu.synchronize()

    # 停止采集
    monitor.stop()
    data_queue.put(None)
    consumer_thread.join()


if __name__ == "__main__":
    test()

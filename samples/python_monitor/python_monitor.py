"""python_monitor: KernelMonitor + CommunicationMonitor on every rank, records consumed by a thread.

    python3 -m vnpu.run --nproc_per_node 8 samples/python_monitor/python_monitor.py

Each rank runs one add (KERNEL_AIVEC), one matmul (KERNEL_AICORE) and one all_reduce
(COMMUNICATION hcom_allReduce_) on the virtual NPU and prints one line per record.
"""
import os
import queue
import threading
from typing import Optional, Union

import vnpu
import vnpu.distributed as dist
from mspti import CommunicationData, CommunicationMonitor, KernelData, KernelMonitor

rank = int(os.environ.get("RANK", "0"))
records: "queue.Queue[Optional[Union[KernelData, CommunicationData]]]" = queue.Queue()


def consumer() -> None:
    while (data := records.get()) is not None:
        if isinstance(data, KernelData):
            print(f"[rank {rank}] [KERNEL] type: {data.type}, name: {data.name}, start: {data.start}, "
                  f"end: {data.end}, deviceId: {data.device_id}, streamId: {data.stream_id}", flush=True)
        elif isinstance(data, CommunicationData):
            print(f"[rank {rank}] [COMMUNICATION] name: {data.name}, dataType: {data.data_type.name}, "
                  f"count: {data.count}, algType: {data.alg_type}, commName: {data.comm_name}, "
                  f"start: {data.start}, end: {data.end}, deviceId: {data.device_id}", flush=True)


def main() -> None:
    thread = threading.Thread(target=consumer)
    thread.start()
    kernel_monitor, comm_monitor = KernelMonitor(), CommunicationMonitor()
    kernel_monitor.start(records.put)
    comm_monitor.start(records.put)

    dist.init_process_group(backend="hccl")
    x = vnpu.randn(64, 64).npu()
    y = vnpu.randn(64, 64).npu()
    z = x + y           # aclnnAdd: KERNEL_AIVEC
    z = vnpu.matmul(z, y)  # aclnnMatmul: KERNEL_AICORE
    dist.all_reduce(z)  # HcclAllReduce: COMMUNICATION hcom_allReduce_
    vnpu.synchronize()

    kernel_monitor.stop()
    comm_monitor.stop()
    records.put(None)
    thread.join()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()

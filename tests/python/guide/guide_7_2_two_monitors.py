"""User guide 7.2: KernelMonitor and CommunicationMonitor at once (run via vnpu.run)."""
import vnpu
import vnpu.distributed as dist
from mspti import CommunicationData, CommunicationMonitor, KernelData, KernelMonitor


def kernel_callback(data: KernelData) -> None:
    print(f"[KERNEL] {data.type} {data.name} device={data.device_id}")


def comm_callback(data: CommunicationData) -> None:
    print(f"[COMM] {data.name} count={data.count} device={data.device_id}")


kernel_mon = KernelMonitor()
comm_mon = CommunicationMonitor()

kernel_mon.start(kernel_callback)
comm_mon.start(comm_callback)

# 执行业务代码
dist.init_process_group()
x = vnpu.ones(16, 16).npu()
y = x @ x
dist.all_reduce(y)
vnpu.synchronize()

kernel_mon.stop()
comm_mon.stop()
dist.destroy_process_group()

"""User guide 5: CommunicationMonitor, with a distributed all_reduce (via vnpu.run)."""
import vnpu
import vnpu.distributed as dist
from mspti import CommunicationMonitor, CommunicationData


def on_comm(data: CommunicationData) -> None:
    print(f"[COMM] {data.name} | alg={data.alg_type} | "
          f"type={data.data_type} | count={data.count} | "
          f"duration={(data.end - data.start) / 1000:.2f} us | device={data.device_id}")


monitor = CommunicationMonitor()
monitor.start(on_comm)

# 执行分布式训练代码
dist.init_process_group(backend="hccl")
t = vnpu.ones(256, dtype=vnpu.float16).npu()
dist.all_reduce(t)
vnpu.synchronize()

monitor.stop()
dist.destroy_process_group()

"""User guide 4: HcclMonitor, with a distributed all_reduce (run under LD_PRELOAD via vnpu.run)."""
import vnpu
import vnpu.distributed as dist
from mspti import HcclMonitor, HcclData, MsptiResult


def on_hccl(data: HcclData) -> None:
    print(f"[HCCL] {data.name} | comm={data.comm_name} | "
          f"bandwidth={data.bandwidth:.2f} GB/s | "
          f"duration={(data.end - data.start) / 1000:.2f} us | device={data.device_id}")


monitor = HcclMonitor()
assert monitor.start(on_hccl) == MsptiResult.MSPTI_SUCCESS

# 执行分布式训练代码（all_reduce 等）
dist.init_process_group(backend="hccl")
t = vnpu.ones(1024).npu()
dist.all_reduce(t)
vnpu.synchronize()
assert t.numpy()[0] == dist.get_world_size()

monitor.stop()
dist.destroy_process_group()

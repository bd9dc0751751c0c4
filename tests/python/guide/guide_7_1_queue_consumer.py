"""User guide 7.1: multithreaded consumer over a multiprocessing.Queue."""
from multiprocessing import Queue
from typing import Optional
import threading
import vnpu
from mspti import KernelMonitor, KernelData

data_queue: "Queue[Optional[KernelData]]" = Queue(maxsize=10000)
processed: list[KernelData] = []


def process_kernel_data(data: KernelData) -> None:
    processed.append(data)
    print(f"[CONSUMER] {data.type} {data.name}")


def kernel_parser(data: KernelData) -> None:
    data_queue.put(data)


def consumer() -> None:
    while True:
        data = data_queue.get()
        if data is None:
            break
        # 处理数据
        process_kernel_data(data)


# 启动消费者线程
consumer_thread = threading.Thread(target=consumer)
consumer_thread.start()

# 启动采集
monitor = KernelMonitor()
monitor.start(kernel_parser)
# ... 执行业务代码 ...
x = vnpu.randn(32, 32).npu()
for _ in range(5):
    x = vnpu.relu(x @ x)
vnpu.synchronize()
monitor.stop()

# 通知消费者退出
data_queue.put(None)
consumer_thread.join()
assert len(processed) == 10 and all(isinstance(d, KernelData) for d in processed), processed

"""train.py: a small data-parallel training loop on the virtual NPU, for mspti-trace (README).

    build/bin/mspti-trace -o out -- python3 -m vnpu.run --nproc_per_node 4 samples/python_trace/train.py

Each step is an mstx range "step" holding "data" (a batch copied to the device), "compute"
(matmul and ReLU per layer) and "sync" (the all-reduce of the gradients, waited for), so that
`mspti-trace analyze out` can tell which rank is slow and in which phase. TRAIN_STEPS sets the
number of steps (default 8). Slow one rank on purpose with the VNPU_FAULT_* settings (docs/faults.md).
"""
import os

import vnpu
import vnpu.distributed as dist
from mspti import mstx

LAYERS, BATCH, WIDTH = 4, 64, 256


def main() -> None:
    steps = int(os.environ.get("TRAIN_STEPS", "8"))
    dist.init_process_group()
    weights = [vnpu.randn(WIDTH, WIDTH).npu() for _ in range(LAYERS)]
    grad = vnpu.zeros(WIDTH, WIDTH).npu()
    for _ in range(steps):
        with mstx.range("step"):
            with mstx.range("data"):
                x = vnpu.randn(BATCH, WIDTH).npu()
            with mstx.range("compute"):
                for w in weights:
                    x = vnpu.relu(vnpu.matmul(x, w))
            with mstx.range("sync"):
                dist.all_reduce(grad)
                vnpu.synchronize()
    dist.destroy_process_group()
    if os.environ.get("RANK", "0") == "0":
        print(f"train.py: {steps} steps on {os.environ.get('WORLD_SIZE', '1')} rank(s)")


if __name__ == "__main__":
    main()

"""The program of the 2-rank mspti-trace run on msPTI's library (run_either.py trace): per rank an add
and a matmul (kernels) inside the mstx range 'train_step' (our mspti.mstx, through the header-only mstx
API), then an all_reduce (a collective)."""
import vnpu
import vnpu.distributed as dist
from mspti import mstx


def main():
    dist.init_process_group(backend="hccl")
    x = vnpu.randn(64, 64).npu()
    with mstx.range("train_step"):
        z = vnpu.matmul(x + x, x)
        vnpu.synchronize()
    dist.all_reduce(z)
    vnpu.synchronize()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()

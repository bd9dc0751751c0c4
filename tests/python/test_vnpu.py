"""The virtual NPU from Python: ops against numpy, streams, collectives, the launcher."""

import ctypes
import os
import textwrap

import numpy as np
import pytest

import vnpu
from conftest import LIB_DIR, run_python


@pytest.mark.parametrize("dtype,tol", [(vnpu.float32, 1e-5), (vnpu.float16, 2e-2)])
def test_ops_compute_real_results(dtype, tol):
    rng = np.random.default_rng(1)
    a = rng.standard_normal((5, 3)).astype(dtype)
    b = rng.standard_normal((3, 4)).astype(dtype)
    x, y = vnpu.tensor(a).npu(), vnpu.tensor(b).npu()
    got = {"matmul": (x @ y).numpy(), "add": (x + x).numpy(), "mul": (x * x).numpy(), "relu": vnpu.relu(x).numpy()}
    ref = {"matmul": a @ b, "add": a + a, "mul": a * a, "relu": np.maximum(a, 0)}
    for k in ref:
        assert got[k].dtype == dtype and np.allclose(got[k], ref[k], atol=tol * 10, rtol=tol), k


def test_broadcasting_and_batched_matmul_shapes():
    x = vnpu.ones(2, 3, 4).npu()
    assert (x @ vnpu.ones(4, 5).npu()).shape == (2, 3, 5)
    assert (x + vnpu.ones(4).npu()).numpy().shape == (2, 3, 4)
    assert (vnpu.ones(4).npu() @ vnpu.ones(4).npu()).numpy().shape == ()


def test_streams_and_devices():
    assert vnpu.device_count() == 8
    vnpu.set_device(3)
    s = vnpu.current_stream()
    assert s.device == 3 and s is vnpu.current_stream() and s.handle
    s.synchronize()
    vnpu.set_device(0)
    with pytest.raises(ValueError):
        vnpu.ones(2).npu(1) + vnpu.ones(2).npu(0)


def _used_bytes(device):
    """Device memory in use on ``device`` (aclrtGetMemInfo of libvnpu, queried on that device)."""
    acl = ctypes.CDLL(os.path.join(LIB_DIR, "libvnpu.so"))
    free, total = ctypes.c_size_t(), ctypes.c_size_t()
    previous = vnpu.current_device()
    vnpu.set_device(device)
    try:
        assert acl.aclrtGetMemInfo(0, ctypes.byref(free), ctypes.byref(total)) == 0  # ACL_DDR_MEM
    finally:
        vnpu.set_device(previous)
    return total.value - free.value


def test_device_tensors_live_on_their_device_and_leave_the_current_one():
    vnpu.set_device(0)
    before = _used_bytes(5)
    t = vnpu.ones(1 << 20).npu(5)  # 4 MiB
    assert _used_bytes(5) - before >= 4 << 20
    assert vnpu.current_device() == 0 and t.device == 5
    assert float(t.numpy().sum()) == float(1 << 20)


def test_collectives_on_4_ranks(tmp_path):
    script = tmp_path / "collectives.py"
    script.write_text(textwrap.dedent("""
        import numpy as np, vnpu, vnpu.distributed as dist
        dist.init_process_group()
        r, w = dist.get_rank(), dist.get_world_size()
        t = vnpu.tensor(np.full(4, r + 1, np.float32)).npu()
        dist.all_reduce(t)
        b = vnpu.tensor(np.full(2, r, np.float32)).npu(); dist.broadcast(b, src=2)
        g = vnpu.empty(w * 2, device=vnpu.current_device()); dist.all_gather_into_tensor(g, b)
        vnpu.synchronize()
        assert t.numpy().tolist() == [w * (w + 1) / 2] * 4 and b.numpy().tolist() == [2, 2]
        assert g.numpy().tolist() == [2.0] * (w * 2)
        dist.barrier(); dist.destroy_process_group()
        import os; os.write(1, f"rank {r} ok\\n".encode())
    """))
    out = run_python([str(script)], nproc=4).stdout
    assert sorted(out.split("\n")[:-1]) == [f"rank {r} ok" for r in range(4)]


def test_launcher_propagates_a_failing_rank(tmp_path):
    script = tmp_path / "fail.py"
    script.write_text("import os, sys, time\nsys.exit(7 if os.environ['RANK'] == '1' else 0)\n")
    proc = run_python([str(script)], nproc=3, check=False)
    assert proc.returncode == 7 and "rank 1" in proc.stderr


def test_launcher_stops_the_others_when_one_fails(tmp_path):
    script = tmp_path / "hang.py"
    script.write_text("import os, sys, threading\n"
                      "sys.exit(3) if os.environ['RANK'] == '0' else threading.Event().wait()\n")
    proc = run_python([str(script)], nproc=4, check=False, timeout=60)
    assert proc.returncode == 3


def test_launcher_sets_the_rank_environment(tmp_path):
    script = tmp_path / "env.py"
    script.write_text("import os\ne = os.environ\n"  # one write per rank: ranks share stdout
                      "os.write(1, f\"{e['RANK']} {e['LOCAL_RANK']} {e['WORLD_SIZE']} {bool(e['VNPU_HCCL_ROOT_INFO'])}\\n\".encode())\n")
    lines = sorted(run_python([str(script)], nproc=2).stdout.split("\n")[:-1])
    assert lines == ["0 0 2 True", "1 1 2 True"]

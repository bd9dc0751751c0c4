"""vnpu.native: the vnpu facade generated for Python from swig/vnpu.i (the same file as Java's
org.mspti.vnpu), and that msPTI monitors see its kernels."""

import pytest

import vnpu  # noqa: F401  (loads libvnpu.so into the global scope first)
from vnpu import native as nv


def test_ops_compute_real_results():
    a = nv.Tensor([1, 2, 3, 4, 5, 6], [2, 3], 2)
    b = nv.Tensor([1, 0, 0, 1, 1, 1], [3, 2], 2)
    assert nv.matmul(a, b).to_host() == (4, 5, 10, 11)
    assert nv.matmul(a, b).shape() == (2, 2)
    assert nv.add(a, a).to_host() == (2, 4, 6, 8, 10, 12)
    assert nv.mul(a, a).to_host() == (1, 4, 9, 16, 25, 36)
    assert nv.relu(nv.Tensor([-1, 2, -3], [3], 2)).to_host() == (0, 2, 0)
    assert a.device() == 2 and a.numel() == 6


def test_devices_streams_and_errors():
    assert nv.device_count() == 8
    nv.set_device(3)
    assert nv.current_device() == 3
    s = nv.Stream()
    assert s.device() == 3 and s.handle() != 0
    s.synchronize()
    nv.set_device(0)
    with pytest.raises(ValueError):
        nv.add(nv.Tensor([1], [1], 0), nv.Tensor([1], [1], 1))
    with pytest.raises(ValueError):
        nv.Tensor([1, 2, 3], [2])
    with pytest.raises(ValueError):
        nv.set_device(99)


def test_all_reduce_over_devices():
    assert nv.all_reduce_sum(2, [1, 2, 3, 10, 20, 30]) == (11, 22, 33, 11, 22, 33)


def test_kernel_monitor_sees_the_facade_kernels():
    from mspti import KernelMonitor, MsptiResult
    names = []
    m = KernelMonitor()
    assert m.start(lambda k: names.append(k.name.split("_")[0])) == MsptiResult.MSPTI_SUCCESS
    stream = nv.Stream(1)
    x = nv.Tensor([1, -2], [2], 1)
    nv.relu(nv.add(x, x, stream), stream)
    stream.synchronize()
    m.stop()
    assert names == ["Add", "Relu"]

"""vnpu.native: the vnpu facade generated for Python from swig/vnpu.i (the same file as Java's
org.mspti.vnpu), and that msPTI monitors see its kernels."""

import re

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


def test_the_vnpu_package_is_written_on_the_facade():
    # One binding: the package's current stream is the facade's default stream, its tensors are
    # facade tensors, and its result shapes are the facade's (the runtime's own rules).
    assert vnpu.current_stream(1).handle == nv.Stream.default_stream(1).handle()
    t = vnpu.tensor([[1.0, 2.0]], dtype=vnpu.float32).npu(1)
    assert t.data_ptr == t._native.address() and t._native.dtype() == nv.kFloat32
    assert vnpu.tensor([1.0]).npu()._native.dtype() == nv.kFloat64  # any numpy dtype can live on a device
    assert nv.broadcast_shapes([2, 1, 4], [3, 1]) == (2, 3, 4)
    assert nv.matmul_shape([4], [2, 4, 5]) == (2, 5) and nv.matmul_shape([3, 4], [4]) == (3,)
    # The messages name the shapes (as Python writes tuples).
    with pytest.raises(ValueError, match=re.escape("cannot be broadcast together: (2, 3) and (4,)")):
        nv.broadcast_shapes([2, 3], [4])
    with pytest.raises(ValueError, match=re.escape("matmul shape mismatch: (64, 32) @ (16, 8)")):
        nv.matmul_shape([64, 32], [16, 8])
    with pytest.raises(ValueError, match=re.escape("matmul shape mismatch: (2, 3) @ (2, 3)")):
        vnpu.ones(2, 3).npu() @ vnpu.ones(2, 3).npu()
    with pytest.raises(ValueError, match=re.escape("negative dimension in shape (2, -1)")):
        nv.Tensor.empty([2, -1], nv.kFloat32, 0)


def test_streams_and_tensors_on_another_device_keep_the_current_device():
    nv.set_device(2)
    nv.Stream(5)
    assert nv.current_device() == 2
    nv.Tensor([1.0], [1], 6).to_host()
    assert nv.current_device() == 2
    nv.set_device(0)


def test_runtime_failures_raise_npu_error_and_bad_types_type_error():
    with pytest.raises(vnpu.NpuError) as failed:
        nv.Tensor.empty([1 << 50], nv.kFloat32, 0)  # more than the device holds
    assert failed.value.function == "aclrtMalloc" and failed.value.code != 0
    with pytest.raises(TypeError, match="different dtypes"):
        nv.add(nv.Tensor.empty([2], nv.kFloat32, 0), nv.Tensor.empty([2], nv.kFloat16, 0))
    with pytest.raises(TypeError):
        nv.Tensor.empty([2], 42, 0)
    with pytest.raises(ValueError, match="bytes"):
        nv.Tensor.empty([2], nv.kFloat32, 0).copy_from_host(b"123")


def test_host_buffers_of_every_dtype_round_trip():
    import numpy as np
    for dtype, code in ((np.float32, nv.kFloat32), (np.float16, nv.kFloat16), (np.int32, nv.kInt32),
                        (np.int64, nv.kInt64)):
        data = np.arange(6, dtype=dtype).reshape(2, 3)
        t = nv.Tensor.empty([2, 3], code, 3)
        t.copy_from_host(data)
        back = np.zeros_like(data)
        t.copy_to_host(back)
        assert (back == data).all() and t.nbytes() == data.nbytes
    with pytest.raises(BufferError):
        t.copy_to_host(b"\0" * t.nbytes())  # read-only


def test_a_one_rank_communicator():
    nv.set_device(4)
    comm = nv.Communicator(1, nv.Communicator.new_root_info(), 0)
    assert comm.rank() == 0 and comm.world_size() == 1 and comm.name()
    t = nv.Tensor([1.0, 2.0], [2], 4)
    comm.all_reduce(t, nv.kReduceSum)
    comm.broadcast(t, 0)
    out = nv.Tensor.empty([2], nv.kFloat32, 4)
    comm.all_gather(out, t)
    comm.barrier()
    assert out.to_host() == (1.0, 2.0) and comm.async_error() == 0
    with pytest.raises(ValueError, match="world_size"):
        comm.all_gather(nv.Tensor.empty([3], nv.kFloat32, 4), t)
    with pytest.raises(TypeError):
        comm.all_reduce(nv.Tensor.empty([2], nv.kUInt8, 4))
    comm.destroy()
    with pytest.raises(ValueError, match="destroyed"):
        comm.name()
    with pytest.raises(ValueError, match="hex"):
        nv.Communicator(1, "zz", 0)
    nv.set_device(0)

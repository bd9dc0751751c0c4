"""Paths of the Python API no other test takes: mstx.Domain's lifetime, batch.resolve_string,
start_batch on the Kernel, HCCL and Communication monitors, subclassing every callback class,
every collective the vnpu.distributed API runs (through records and batches), and the buffer size."""

import json
import textwrap

import numpy as np
import pytest

import mspti
import vnpu
from mspti import KernelMonitor, MstxMonitor, MsptiResult, batch, mstx

from conftest import run_python

OK = MsptiResult.MSPTI_SUCCESS


def test_domain_valid_and_destroy():
    got = []
    m = MstxMonitor()
    assert m.start(got.append) == OK
    d = mstx.domain_create("paths_domain")
    assert d.valid and d.name == "paths_domain"
    d.mark("before")
    d.destroy()
    assert not d.valid
    d.mark("after")            # a destroyed domain records nothing and raises nothing
    assert d.range_start("after") == 0
    d.destroy()                # twice is harmless
    m.stop()
    assert [(r.name, r.domain) for r in got] == [("before", "paths_domain")]


def test_resolve_string_reads_library_strings_and_null():
    seen = []

    def on_batch(b):
        seen.extend((int(a), batch.resolve_string(a), batch.resolve_string(a)) for a in b["name"])  # numpy integers too
        seen.extend((int(a), batch.resolve_string(a), batch.resolve_string(int(a))) for a in b["name"].tolist())

    m = MstxMonitor()
    assert m.start_batch(on_batch) == OK
    mstx.mark("resolved")
    m.stop()
    assert len(seen) == 2 and seen[0][0] != 0 and seen[0] == seen[1]
    assert seen[0][1:] == ("resolved", "resolved")
    assert batch.resolve_string(0) == ""


def test_kernel_start_batch_matches_the_record_callback():
    records, rows = [], []

    def on_batch(b):
        assert b.dtype == batch.KERNEL_DTYPE and not b.flags.writeable
        for row, name, kind in zip(b.tolist(), batch.strings(b, "name"), batch.strings(b, "type")):
            rows.append((row[1], row[2], row[3], row[4], row[5], kind, name))

    k, kb = KernelMonitor(), KernelMonitor()
    assert kb.start_batch(on_batch) == OK and k.start(records.append) == OK
    x = vnpu.ones(4, 4).npu()
    _ = vnpu.relu(x + x) @ x
    vnpu.synchronize()
    k.stop()
    kb.stop()
    assert len(records) == 3
    assert sorted(rows) == sorted((r.start, r.end, r.device_id, r.stream_id, r.correlation_id, r.type, r.name)
                                  for r in records)
    assert kb.stats().delivered == 3


def test_device_stats_count_a_begin_and_an_end_per_kernel():
    before = mspti.device_stats()
    assert isinstance(before, mspti.DeviceStats) and before.available
    records = []
    k = KernelMonitor()
    assert k.start(records.append) == OK
    x = vnpu.ones(4, 4).npu()
    _ = vnpu.relu(x + x) @ x
    vnpu.synchronize()
    k.stop()
    after = mspti.device_stats()
    assert len(records) == 3
    assert after.records - before.records == 2 * len(records)
    assert after.bytes > before.bytes
    assert (after.unmatched, after.malformed, after.read_errors) == (before.unmatched, before.malformed,
                                                                     before.read_errors)


@pytest.mark.parametrize("cls, monitor", [
    ("KernelCallback", "KernelMonitor"), ("HcclCallback", "HcclMonitor"),
    ("CommunicationCallback", "CommunicationMonitor"), ("MarkCallback", "MstxMonitor"),
    ("RangeCallback", "MstxMonitor"), ("BatchCallback", "MstxMonitor")])
def test_every_callback_class_can_be_subclassed(cls, monitor):
    base = getattr(mspti, cls)
    method = "on_batch" if cls == "BatchCallback" else "on_record"

    class Sub(base):
        def __init__(self):
            super().__init__()
            self.calls = 0

    setattr(Sub, method, lambda self, data: setattr(self, "calls", self.calls + 1))
    cb = Sub()
    m = getattr(mspti, monitor)()
    if cls == "BatchCallback":
        result = m.start_batch(cb)
    elif cls == "RangeCallback":
        result = m.start(range_cb=cb)
    else:
        result = m.start(cb)
    if monitor == "HcclMonitor" and result == MsptiResult.MSPTI_ERROR_WITHOUT_LD_PRELOAD:
        result = OK  # accepted as a callback; HCCL records need LD_PRELOAD (covered below)
    else:
        assert result == OK
        if monitor == "MstxMonitor":
            if cls == "RangeCallback":
                mstx.range_end(mstx.range_start("sub"))
            else:
                mstx.mark("sub")
        elif monitor == "KernelMonitor":
            _ = vnpu.ones(2).npu() + vnpu.ones(2).npu()
            vnpu.synchronize()
        m.stop()
    assert result == OK
    if monitor in ("MstxMonitor", "KernelMonitor"):
        assert cb.calls == 1


COLLECTIVES = textwrap.dedent("""
    import json, os
    import numpy as np, vnpu, vnpu.distributed as dist
    from mspti import CommunicationMonitor, HcclMonitor, MsptiResult, batch
    OK = MsptiResult.MSPTI_SUCCESS
    hccl, comm, hb, cb = [], [], [], []
    def hccl_batch(b):
        for row, name, cname in zip(b.tolist(), batch.strings(b, "name"), batch.strings(b, "comm_name")):
            hb.append([name, row[3], row[5], cname])
    def comm_batch(b):
        for row, alg, name in zip(b.tolist(), batch.strings(b, "alg_type"), batch.strings(b, "name")):
            cb.append([name, alg, row[2], row[1], row[3]])
    hm, cm, hbm, cbm = HcclMonitor(), CommunicationMonitor(), HcclMonitor(), CommunicationMonitor()
    assert hm.start(hccl.append) == OK and cm.start(comm.append) == OK
    assert hbm.start_batch(hccl_batch) == OK and cbm.start_batch(comm_batch) == OK
    dist.init_process_group()
    r, w = dist.get_rank(), dist.get_world_size()
    t = vnpu.tensor(np.full(16, r + 1, np.float32)).npu(); dist.all_reduce(t)
    b = vnpu.tensor(np.full(8, r, np.int32)).npu(); dist.broadcast(b, src=1)
    h = vnpu.tensor(np.full(4, r, np.float16)).npu()
    g = vnpu.empty(w * 4, dtype=np.float16, device=vnpu.current_device()); dist.all_gather_into_tensor(g, h)
    s = vnpu.tensor(np.full(w * 3, r, np.int64)).npu()
    o = vnpu.empty(3, dtype=np.int64, device=vnpu.current_device()); dist.reduce_scatter_tensor(o, s)
    vnpu.synchronize()
    for m in (hm, cm, hbm, cbm):
        assert m.stop() == OK
    dist.destroy_process_group()
    out = {"rank": r,
           "hccl": [[d.name, d.device_id, d.bandwidth, d.comm_name] for d in hccl],
           "comm": [[d.name, d.alg_type, d.count, d.data_type.value, d.device_id] for d in comm],
           "hccl_batch": hb, "comm_batch": cb}
    os.write(1, (json.dumps(out) + "\\n").encode())
""")


def test_every_collective_through_records_and_batches(tmp_path):
    script = tmp_path / "collectives.py"
    script.write_text(COLLECTIVES)
    out = run_python([str(script)], nproc=2, preload=True).stdout
    ranks = sorted((json.loads(line) for line in out.splitlines() if line.startswith("{")), key=lambda o: o["rank"])
    assert [o["rank"] for o in ranks] == [0, 1]
    want = [  # name, algorithm, count, HcclDataType / msptiCommunicationDataType
        ("hcom_allReduce_", "RING", 16, 4), ("hcom_broadcast_", "RING", 8, 2),
        ("hcom_allGather_", "RING", 4, 3), ("hcom_reduceScatter_", "RING", 3, 5)]
    hccl_names = ["HcclAllReduce", "HcclBroadcast", "HcclAllGather", "HcclReduceScatter"]
    for o in ranks:
        device = o["rank"]  # the launcher puts rank r on device r
        assert [c[:4] for c in o["comm"]] == [list(w) for w in want], o["comm"]
        assert {c[4] for c in o["comm"]} == {device}
        assert [h[0] for h in o["hccl"]] == hccl_names
        assert all(h[1] == device and h[2] > 0 and h[3] for h in o["hccl"]), o["hccl"]
        # The batch views hold the same records, field for field.
        assert o["comm_batch"] == o["comm"]
        assert [[h[0], h[1], h[2], h[3]] for h in o["hccl_batch"]] == o["hccl"]


def test_buffer_size_sets_the_records_per_buffer():
    code = textwrap.dedent("""
        from mspti import MstxMonitor, MsptiResult, batch, mstx
        counts = {}
        for mb in (1, 2):
            assert MstxMonitor.set_buffer_size(mb) == MsptiResult.MSPTI_SUCCESS
            sizes = []
            m = MstxMonitor()
            assert m.start_batch(lambda b: sizes.append(len(b))) == MsptiResult.MSPTI_SUCCESS
            n = 4 * ((2 << 20) // 56)  # 8 buffers of 1 MB, 4 of 2 MB
            for _ in range(n):
                mstx.mark("x")
            m.stop()
            assert sum(sizes) + m.stats().dropped == n, (sum(sizes), n, m.stats())
            counts[mb] = (max(sizes), len(sizes))
            assert counts[mb][0] <= (mb << 20) // 56
        assert MstxMonitor.set_buffer_size(8) == MsptiResult.MSPTI_SUCCESS
        # The largest batch is a full buffer: twice the size, twice the records per buffer.
        (one, n1), (two, n2) = counts[1], counts[2]
        assert one > (1 << 20) // 56 // 2 and 2 * one <= two <= 2 * one + 1 and n1 > n2, counts
        print("ok")
    """)
    assert run_python(["-c", code]).stdout.strip() == "ok"

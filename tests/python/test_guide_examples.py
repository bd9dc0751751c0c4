"""Every example of the Python API guide (sections 3 to 7) runs, and prints what the virtual NPU did."""

import collections
import os
import re

from conftest import GUIDE, run_python


def guide(name):
    return os.path.join(GUIDE, name)


def test_3_1_kernel_basic_prints_the_add_kernel():
    out = run_python([guide("guide_3_1_kernel_basic.py")]).stdout
    lines = [l for l in out.splitlines() if l.startswith("Kernel: ")]
    assert len(lines) == 1, out
    assert lines[0].startswith("Kernel: Add_") and "type=KERNEL_AIVEC" in lines[0]


def test_3_2_single_card_ten_matmuls():
    """At the guide's size: ten fp16 1024x1024 matmuls (OpenBLAS; well under a few seconds)."""
    out = run_python([guide("guide_3_2_kernel_single_card.py")]).stdout
    lines = [l for l in out.splitlines() if l.startswith("[Kernel] ")]
    assert len(lines) == 10, out
    assert all("MatMulV3_" in l and "| KERNEL_AICORE |" in l and l.endswith("device=0") for l in lines)
    # A kernel's start and end bracket its compute: 2 GFLOP cannot take less than a millisecond here.
    durations_us = [float(re.search(r"\| ([0-9.]+) us \|", l).group(1)) for l in lines]
    assert min(durations_us) > 1000, lines


def test_4_hccl_monitor_on_8_ranks():
    out = run_python([guide("guide_4_hccl.py")], preload=True, nproc=8).stdout
    # Ranks share stdout: match records, not lines.
    found = re.findall(r"\[HCCL\] HcclAllReduce \| comm=(\S+) \| bandwidth=[0-9.]+ GB/s \| "
                       r"duration=[0-9.]+ us \| device=(\d)", out)
    assert sorted(int(d) for _, d in found) == list(range(8)), out
    assert len({c for c, _ in found}) == 1  # one communicator


def test_5_communication_monitor_on_8_ranks():
    out = run_python([guide("guide_5_communication.py")], nproc=8).stdout
    # The data type prints by name, as the guide shows (plain Enum, as in msPTI's package).
    found = re.findall(r"\[COMM\] hcom_allReduce_ \| alg=RING \| "
                       r"type=MsptiCommunicationDataType\.MSPTI_ACTIVITY_COMMUNICATION_FP16 \| count=256 \| "
                       r"duration=[0-9.]+ us \| device=(\d)", out)
    assert sorted(int(d) for d in found) == list(range(8)), out


def test_6_1_mstx_basic_mark_and_range():
    out = run_python([guide("guide_6_1_mstx_basic.py")]).stdout.splitlines()
    assert [l.split(" |")[0] for l in out] == ["[MARK] step_begin", "[RANGE] work"], out
    assert "domain=default" in out[1]


def test_6_2_as_written_runs_and_ends():
    proc = run_python([guide("guide_6_2_mstx_queue.py")])
    assert "Range:" not in proc.stderr  # ranges went to the default range callback (the guide's slip)


def test_6_2_with_range_cb_logs_host_and_device_ranges():
    proc = run_python([guide("guide_6_2_mstx_queue.py")], env={"GUIDE_RANGE_CB": "1"})
    ranges = re.findall(r"Range: (\S*), ([0-9.]+) us", proc.stderr)
    assert sorted(name for name, _ in ranges) == ["", "matmul_range"], proc.stderr  # device half has no name


def test_6_3_domain_control():
    out = run_python([guide("guide_6_3_domain.py")]).stdout.splitlines()
    assert out == ["[RANGE] kept_1 | domain=my_domain", "[RANGE] kept_2 | domain=my_domain"], out


def test_7_1_queue_consumer_gets_every_kernel():
    out = run_python([guide("guide_7_1_queue_consumer.py")]).stdout.splitlines()
    kinds = collections.Counter(l.split()[1] for l in out if l.startswith("[CONSUMER]"))
    assert kinds == {"KERNEL_AICORE": 5, "KERNEL_AIVEC": 5}, out


def test_7_2_two_monitors_on_8_ranks():
    out = run_python([guide("guide_7_2_two_monitors.py")], nproc=8).stdout
    kernels = re.findall(r"\[KERNEL\] KERNEL_AICORE MatMulV3_\w+ device=(\d)", out)
    comms = re.findall(r"\[COMM\] hcom_allReduce_ count=256 device=(\d)", out)
    assert sorted(map(int, kernels)) == list(range(8)) and sorted(map(int, comms)) == list(range(8)), out


def test_7_3_buffer_size():
    out = run_python([guide("guide_7_3_buffer_size.py")]).stdout.splitlines()
    assert len(out) == 1 and out[0].startswith("[KERNEL] Mul_"), out

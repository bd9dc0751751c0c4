"""Error messages name the values involved (the monitors, mstx, the vnpu facade and its package)."""

import logging

import pytest

import vnpu
from mspti import KernelMonitor, MstxMonitor, MsptiResult

INVALID = MsptiResult.MSPTI_ERROR_INVALID_PARAMETER


def _error(caplog, call):
    caplog.clear()
    with caplog.at_level(logging.ERROR, logger="mspti"):
        assert call() == INVALID
    return caplog.records[-1].getMessage()


def test_monitor_messages_name_the_value(caplog):
    m = KernelMonitor()
    assert _error(caplog, lambda: m.start(42)) == "KernelMonitor: start: callback must be callable, not 42 (int)"
    assert _error(caplog, lambda: m.start_batch("cb")) == \
        "KernelMonitor: start_batch: callback must be callable, not 'cb' (str)"
    assert _error(caplog, lambda: m.set_buffer_size("64")) == \
        "KernelMonitor: set_buffer_size: size must be an int (MB), not '64' (str)"
    assert _error(caplog, lambda: m.set_buffer_size(300)) == \
        "KernelMonitor: set_buffer_size: size must be in 1..256 MB, not 300"
    x = MstxMonitor()
    assert _error(caplog, lambda: x.start(1, "r")) == \
        "MstxMonitor: start: mark_cb or range_cb must be callable, not 1 (int) and 'r' (str)"
    assert _error(caplog, lambda: x.enable_domain(b"io")) == \
        "MstxMonitor: enable_domain: domain name must be a str, not b'io' (bytes)"
    # A long value is shortened, not printed whole.
    text = _error(caplog, lambda: m.start(list(range(10000))))
    assert text.startswith("KernelMonitor: start: callback must be callable, not [0, 1, 2") and len(text) < 200


def test_native_domain_name_message_names_the_name(caplog):
    """From the C++ Monitor API (its last error, logged by the package)."""
    name = "long_" + "n" * 295
    assert _error(caplog, lambda: MstxMonitor().disable_domain(name)).endswith(
        f'the domain name "{name[:32]}..." has 300 characters; it must have fewer than 255)')


def test_vnpu_messages_name_the_values():
    a = vnpu.ones(64, 32).npu()
    b = vnpu.ones(16, 8).npu()
    with pytest.raises(ValueError, match=r"^matmul shape mismatch: \(64, 32\) @ \(16, 8\)$"):
        vnpu.matmul(a, b)
    with pytest.raises(ValueError, match=r"^shapes cannot be broadcast together: \(64, 32\) and \(16, 8\)$"):
        vnpu.add(a, b)
    with pytest.raises(TypeError, match=r"^expected a vnpu.Tensor, got 3 \(int\)$"):
        vnpu.add(a, 3)
    host = vnpu.ones(2)
    with pytest.raises(ValueError, match=r"^operands must be on a device, not vnpu.Tensor\(shape=\(2,\), "
                                         r"dtype=float32, device=cpu\): call .npu\(\) first$"):
        vnpu.relu(host)
    with pytest.raises(ValueError, match=r"""^device must be an int or "npu:N", not 'npu:x'$"""):
        vnpu.set_device("npu:x")
    with pytest.raises(ValueError, match=r"""^device must be an int or "npu:N", not 'npu:one'$"""):
        host.to("npu:one")
    with pytest.raises(ValueError, match=r"^collectives need a device tensor, not vnpu.Tensor\(shape=\(2,\)"):
        vnpu.distributed._operand(host)
    with pytest.raises(ValueError, match=r"^data has 3 elements, shape \(2,\) needs 2$"):
        vnpu.native.Tensor([1.0, 2.0, 3.0], [2])

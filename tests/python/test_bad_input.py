"""Bad input: INVALID_PARAMETER, a message on the 'mspti' logger, and nothing started or changed."""

import logging

import pytest

from mspti import (CommunicationMonitor, HcclMonitor, KernelMonitor, MstxMonitor, MsptiResult, mstx)

INVALID = MsptiResult.MSPTI_ERROR_INVALID_PARAMETER
MONITORS = [KernelMonitor, HcclMonitor, CommunicationMonitor]


@pytest.mark.parametrize("cls", MONITORS + [MstxMonitor])
@pytest.mark.parametrize("bad", [None, 42, "not callable", object()])
def test_start_with_a_non_callable(cls, bad, caplog):
    m = cls()
    with caplog.at_level(logging.ERROR, logger="mspti"):
        if cls is MstxMonitor:
            if bad is None:
                pytest.skip("None is a valid 'no callback' for MstxMonitor")
            assert m.start(bad) == INVALID
            assert m.start(None, bad) == INVALID
        else:
            assert m.start(bad) == INVALID
        assert m.start_batch(bad) == INVALID
    assert not m.is_running()
    assert "must be callable" in caplog.text and cls.__name__ in caplog.text


@pytest.mark.parametrize("size,why", [(0, "1..256"), (257, "1..256"), (-1, "1..256"), (True, "int"),
                                      (8.0, "int"), ("8", "int"), (None, "int")])
def test_set_buffer_size_out_of_range_or_not_int(size, why, caplog):
    with caplog.at_level(logging.ERROR, logger="mspti"):
        assert KernelMonitor().set_buffer_size(size) == INVALID
    assert why in caplog.text


@pytest.mark.parametrize("size", [1, 8, 256])
def test_set_buffer_size_accepts_1_to_256(size):
    assert KernelMonitor().set_buffer_size(size) == MsptiResult.MSPTI_SUCCESS
    KernelMonitor().set_buffer_size(8)


@pytest.mark.parametrize("name,why", [("", "empty"), (None, "str"), (3, "str"), (b"dom", "str")])
def test_domain_name_must_be_a_non_empty_str(name, why, caplog):
    m = MstxMonitor()
    with caplog.at_level(logging.ERROR, logger="mspti"):
        assert m.enable_domain(name) == INVALID
        assert m.disable_domain(name) == INVALID
    assert why in caplog.text


def test_bad_domain_call_changes_nothing():
    m = MstxMonitor()
    seen = []
    m.start(range_cb=seen.append)
    d = mstx.Domain("kept")
    assert m.disable_domain("") == INVALID
    with d.range("r"):
        pass
    m.stop()
    assert [r.name for r in seen] == ["r"]


def test_results_are_msptiresult():
    m = KernelMonitor()
    assert type(m.stop()) is MsptiResult and type(m.set_buffer_size(0)) is MsptiResult


def test_mstx_bad_arguments_raise():
    with pytest.raises(TypeError):
        mstx.mark(42)
    with pytest.raises(TypeError):
        mstx.range_start("x", stream="not a stream")
    with pytest.raises(ValueError):
        mstx.Domain("")

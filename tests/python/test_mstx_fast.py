"""mspti.mstx on its fast path (the mspti._mstx extension): calls as a Python def accepts them,
no allocation per marker, and the checks of the Python API, Domain methods included."""

import inspect
import logging
import tracemalloc

import pytest

from mspti import MsptiResult, MstxMonitor, mstx

from conftest import run_code


@pytest.fixture
def collected():
    """Marks and ranges recorded while the test runs, delivered at the end of the test."""
    marks, ranges = [], []
    m = MstxMonitor()
    assert m.start(marks.append, ranges.append) == MsptiResult.MSPTI_SUCCESS
    yield marks, ranges
    m.stop()


def test_keyword_arguments_as_for_a_def(collected):
    marks, ranges = collected
    mstx.mark(message="k1")
    mstx.mark("k2", stream=None)
    rid = mstx.range_start(stream=None, message="r1")
    assert rid != 0
    mstx.range_end(range_id=rid)
    MstxMonitor.flush_all()
    assert [r.name for r in marks] == ["k1", "k2"] and [r.name for r in ranges] == ["r1"]


@pytest.mark.parametrize("call,text", [
    (lambda: mstx.mark(), "mark() missing 1 required positional argument: 'message'"),
    (lambda: mstx.mark("a", None, 3), "mark() takes from 1 to 2 positional arguments but 3 were given"),
    (lambda: mstx.mark("a", colour=1), "mark() got an unexpected keyword argument 'colour'"),
    (lambda: mstx.range_start("a", message="b"), "range_start() got multiple values for argument 'message'"),
    (lambda: mstx.range_end(), "range_end() missing 1 required positional argument: 'range_id'"),
    (lambda: mstx.range_end(1, 2), "range_end() takes 1 positional argument but 2 were given"),
])
def test_a_bad_call_raises_what_python_raises(call, text):
    with pytest.raises(TypeError) as err:
        call()
    assert str(err.value) == text


@pytest.mark.parametrize("rid", [-1, 2**64])
def test_a_range_id_outside_64_bits_is_a_value_error(rid):
    with pytest.raises(ValueError, match=r"range_end\(\): range_id must be in 0..2\*\*64-1"):
        mstx.range_end(rid)
    with pytest.raises(ValueError, match=r"Domain.range_end\(\): range_id must be in 0..2\*\*64-1"):
        mstx.Domain("d").range_end(rid)


def test_type_errors_name_the_call_argument_value_and_type():
    with pytest.raises(TypeError, match=r"^mark\(\): message must be a str, not b'x' \(bytes\)$"):
        mstx.mark(b"x")
    with pytest.raises(TypeError, match=r"^range_end\(\): range_id must be an int, not 1\.5 \(float\)$"):
        mstx.range_end(1.5)
    d = mstx.Domain("typed")
    with pytest.raises(TypeError, match=r"^Domain.range_start\(\): message must be a str, not 3 \(int\)$"):
        d.range_start(3)
    with pytest.raises(TypeError, match=r"^Domain.range_end\(\): range_id must be an int, not '1' \(str\)$"):
        d.range_end("1")
    with pytest.raises(TypeError, match=r"stream must be None, an int handle .*, not 'npu:0' \(str\)$"):
        mstx.mark("x", stream="npu:0")
    with pytest.raises(TypeError, match=r"^range\(\): message must be a str, not 7 \(int\)$"):
        mstx.range(7)
    with pytest.raises(TypeError, match=r"^Domain\(\): name must be a str, not \[1\] \(list\)$"):
        mstx.Domain([1])


def test_utf8_names_are_recorded_byte_exact_up_to_254_bytes(collected, caplog):
    marks, ranges = collected
    name = "é" * 127  # 254 bytes
    with caplog.at_level(logging.WARNING, logger="mspti"):
        mstx.mark(name)
        mstx.range_end(mstx.range_start("ü" + name[1:]))
        mstx.mark(name + "x")  # 255 bytes
    MstxMonitor.flush_all()
    assert [r.name for r in marks] == [name] and [r.name for r in ranges] == ["ü" + name[1:]]
    assert "mstx.mark: the message has 255 bytes" in caplog.text and caplog.text.count("not recorded") == 1


def test_a_str_subclass_is_a_message(collected):
    class Label(str):
        pass

    marks, _ = collected
    mstx.mark(Label("sub"))
    MstxMonitor.flush_all()
    assert [r.name for r in marks] == ["sub"]


def test_domain_calls_keep_their_checks_and_record_in_the_domain(collected, caplog):
    marks, ranges = collected
    d = mstx.Domain("fast_dom")
    assert d.valid
    d.mark("dm")
    d.range_end(d.range_start("dr"))
    with caplog.at_level(logging.WARNING, logger="mspti"):
        long_domain = mstx.Domain("n" * 300)
        d.mark("m" * 255)
    assert not long_domain.valid and long_domain.range_start("x") == 0
    long_domain.mark("ignored")
    long_domain.range_end(5)
    assert "mstx.Domain: the name has 300 bytes" in caplog.text
    assert "mstx.Domain.mark: the message has 255 bytes" in caplog.text
    d.destroy()
    d.destroy()
    assert not d.valid
    MstxMonitor.flush_all()
    assert [(r.name, r.domain) for r in marks] == [("dm", "fast_dom")]
    assert [(r.name, r.domain) for r in ranges] == [("dr", "fast_dom")]


def test_a_marker_allocates_nothing(collected):
    """The UTF-8 of a str is taken from the str itself, not converted into a new bytes per call."""
    messages = ["a" * 200, "é" * 100]
    marks = [mstx.mark, mstx.Domain("alloc_dom").mark]
    for message in messages:
        mstx.mark(message)  # the first call makes CPython keep the UTF-8 of a non-ASCII str
    tracemalloc.start()
    try:
        for mark in marks:
            for message in messages:
                before, _ = tracemalloc.get_traced_memory()
                tracemalloc.reset_peak()
                for _ in range(100):
                    mark(message)
                _, peak = tracemalloc.get_traced_memory()
                assert peak - before < 100, f"{peak - before} bytes allocated by {mark} for {message[:3]!r}..."
    finally:
        tracemalloc.stop()


def test_the_functions_are_documented_builtins_of_mspti_mstx():
    for fn in (mstx.mark, mstx.range_start, mstx.range_end):
        assert fn.__module__ == "mspti.mstx" and fn.__qualname__ == fn.__name__
        assert not fn.__doc__.startswith(fn.__name__) and "$module" not in fn.__doc__
    assert "msPTI" in mstx.mark.__doc__ and "ValueError" in mstx.range_end.__doc__
    assert inspect.signature(mstx.range_start).parameters["stream"].default is None


def test_a_domain_marker_on_a_rejected_stream_is_a_value_error():
    out = run_code(
        "import vnpu\n"
        "from mspti import MstxMonitor, mstx\n"
        "m = MstxMonitor(); marks = []\n"
        "m.start(marks.append)\n"
        "d = mstx.Domain('dev_dom')\n"
        "for call in (lambda: d.mark('m', 0xdead0), lambda: d.range_start('r', stream=0xdead0),\n"
        "             lambda: mstx.mark('k', stream=0xdead0)):\n"
        "    try:\n"
        "        call(); print('accepted')\n"
        "    except ValueError as e:\n"
        "        print('rejected:', e)\n"
        "d.mark('on_stream', vnpu.current_stream())\n"
        "vnpu.synchronize(); m.stop()\n"
        "print(sorted({(r.name, r.domain) for r in marks if r.name}))\n").stdout
    lines = out.splitlines()
    assert lines[0].startswith("rejected: Domain.mark(): stream 912080 was rejected: ")
    assert lines[1].startswith("rejected: Domain.range_start(): stream 912080 was rejected: ")
    assert lines[2].startswith("rejected: mark(): stream 912080 was rejected: ")
    assert lines[3] == "[('on_stream', 'dev_dom')]"


def test_a_str_that_is_not_utf8_encodable_is_rejected_and_not_recorded(collected):
    marks, _ = collected
    with pytest.raises(UnicodeEncodeError):
        mstx.mark("lone \ud800 surrogate")
    with pytest.raises(UnicodeEncodeError):
        mstx.Domain("surrogate_dom").mark("\udfff")
    MstxMonitor.flush_all()
    assert marks == []


def test_the_extension_stays_out_of_dir_mspti():
    import mspti
    assert "_mstx" not in dir(mspti) and "_mstx" not in mspti.__all__


def test_domain_methods_bind_like_defs(collected):
    marks, ranges = collected
    d = mstx.Domain("kw_dom")
    assert str(inspect.signature(d.mark)) == "(message, stream=None)"
    assert str(inspect.signature(d.range_end)) == "(range_id)"
    assert "this domain" in mstx.Domain.mark.__doc__
    d.mark(message="km", stream=None)
    d.range_end(range_id=d.range_start(stream=None, message="kr"))
    with pytest.raises(TypeError, match=r"^Domain.mark\(\) missing 1 required positional argument: 'message'$"):
        d.mark()
    with pytest.raises(TypeError, match=r"^Domain.range_end\(\) got an unexpected keyword argument 'rid'$"):
        d.range_end(rid=1)
    MstxMonitor.flush_all()
    assert [(r.name, r.domain) for r in marks] == [("km", "kw_dom")]
    assert [(r.name, r.domain) for r in ranges] == [("kr", "kw_dom")]

"""Marker names: marking f"step {i}" forever keeps a flat RSS, and every name reads back as marked."""

from mspti import MstxMonitor, MsptiResult, mstx

OK = MsptiResult.MSPTI_SUCCESS


def _rss_kb():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def test_ever_new_marker_names_keep_rss_flat():
    ranges = []
    m = MstxMonitor()
    assert m.start(range_cb=ranges.append) == OK  # marks are collected (and delivered), not kept
    for i in range(300_000):  # warm-up: buffers, allocator pools
        mstx.mark(f"step {i}")
    m.flush_all()
    before = _rss_kb()
    for i in range(300_000, 1_300_000):
        mstx.mark(f"step {i}")
    m.flush_all()
    after = _rss_kb()
    with mstx.range("names are still right"):
        pass
    assert m.stop() == OK
    assert [r.name for r in ranges] == ["names are still right"]
    assert m.stats().delivered == 1
    # Keeping every name would take about 70 MB here.
    assert after - before < 24 * 1024, f"RSS grew from {before} kB to {after} kB over 1,000,000 names"


def test_names_seen_by_callbacks_are_the_marked_ones():
    marks = []
    m = MstxMonitor()
    assert m.start(lambda d: marks.append(d.name)) == OK
    for i in range(50_000):
        mstx.mark(f"name {i}")
    assert m.stop() == OK
    assert marks == [f"name {i}" for i in range(50_000)]


def test_batch_names_are_readable_during_the_call():
    from mspti import batch
    names = []
    m = MstxMonitor()
    assert m.start_batch(lambda b: names.extend(batch.strings(b, "name"))) == OK
    for i in range(50_000):
        mstx.mark(f"batch {i}")
    assert m.stop() == OK
    assert names == [f"batch {i}" for i in range(50_000)]


def test_batch_strings_stay_exact_over_many_flushed_rounds():
    """20 rounds of 5,000 unique names with flush_all() between: buffer memory (and so the
    addresses of names) is reused from round to round, and every name must still read exactly."""
    from mspti import batch
    names = []
    m = MstxMonitor()
    assert m.start_batch(lambda b: names.extend(batch.strings(b, "name"))) == OK
    expected = []
    for r in range(20):
        for i in range(5_000):
            text = f"round {r} name {i}"
            mstx.mark(text)
            expected.append(text)
        m.flush_all()
    assert m.stop() == OK
    wrong = sum(1 for got, want in zip(names, expected) if got != want)
    assert len(names) == len(expected) and wrong == 0, f"{wrong} of {len(expected)} names wrong"

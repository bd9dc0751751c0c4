"""Ranges across stop()/start() windows: paired after a restart, never lost to stale open ranges."""

from mspti import MstxMonitor, MsptiResult, mstx

OK = MsptiResult.MSPTI_SUCCESS


# First: later tests leave libmspti's range table in states of their own.
def test_end_of_zero_or_unknown_range_gives_no_record():
    records = []
    m = MstxMonitor()
    assert m.start_batch(lambda b: records.extend(b.copy())) == OK
    mstx.range_end(0)
    mstx.range_end(123456789)
    rid = mstx.range_start("once")
    mstx.range_end(rid)
    mstx.range_end(rid)
    assert m.stop() == OK
    assert [(int(r["id"]), int(r["flag"])) for r in records] == [(rid, 2), (rid, 4)]


def test_range_open_across_a_restart_is_paired_after_it():
    ranges = []
    m = MstxMonitor()
    assert m.start(range_cb=ranges.append) == OK
    rid = mstx.range_start("straddling")
    assert rid != 0
    assert m.stop() == OK
    assert m.start(range_cb=ranges.append) == OK
    mstx.range_end(rid)
    assert m.stop() == OK
    assert [(r.id, r.name) for r in ranges] == [(rid, "straddling")]
    assert ranges[0].start <= ranges[0].end
    assert m.stats().unpaired_dropped == 0


def test_ranges_ended_between_windows_do_not_lose_later_ranges():
    # 70 profiling windows, each stopped with 1000 ranges still open that end while stopped.
    ranges = []
    m = MstxMonitor()
    for _ in range(70):
        assert m.start(range_cb=ranges.append) == OK
        open_ids = [mstx.range_start("window") for _ in range(1000)]
        assert m.stop() == OK
        for rid in open_ids:
            mstx.range_end(rid)
    assert m.start(range_cb=ranges.append) == OK
    for _ in range(1000):
        mstx.range_end(mstx.range_start("later"))
    assert m.stop() == OK
    assert len(ranges) == 1000 and {r.name for r in ranges} == {"later"}
    # The windows' starts wait in the monitor's bounded table; what it evicts is counted.
    assert m.stats().unpaired_dropped == 70 * 1000 + 1 - 65536

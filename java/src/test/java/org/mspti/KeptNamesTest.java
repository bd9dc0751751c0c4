package org.mspti;

import static org.junit.jupiter.api.Assertions.*;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * Names kept past their callback stay what was marked, through later flushes that reuse the
 * library's buffers: in the owned records of a per-record callback, and in RecordBatch snapshots.
 */
class KeptNamesTest {
    private static final int ROUNDS = 10, PER_ROUND = 5000;

    private static List<String> markRounds(Monitor m) {
        List<String> expected = new ArrayList<>();
        for (int r = 0; r < ROUNDS; r++) {
            for (int i = 0; i < PER_ROUND; i++) {
                String name = "round " + r + " name " + i;
                Mstx.mark(name);
                expected.add(name);
            }
            assertEquals(MsptiResult.MSPTI_SUCCESS, Monitor.flushAll());
        }
        return expected;
    }

    @Test
    void ownedRecordsKeepTheirNames() {
        List<MarkerData> kept = new CopyOnWriteArrayList<>();
        List<String> expected;
        try (MstxMonitor m = new MstxMonitor()) {
            assertEquals(MsptiResult.MSPTI_SUCCESS, m.start(kept::add, r -> {}));
            expected = markRounds(m);
            assertEquals(MsptiResult.MSPTI_SUCCESS, m.stop());
        }
        assertEquals(expected.size(), kept.size());
        for (int i = 0; i < kept.size(); i++) assertEquals(expected.get(i), kept.get(i).getName());
    }

    @Test
    void batchSnapshotsKeepTheirNames() {
        List<RecordBatch> snapshots = new CopyOnWriteArrayList<>();
        List<String> expected;
        try (MstxMonitor m = new MstxMonitor()) {
            assertEquals(MsptiResult.MSPTI_SUCCESS, m.startBatch(b -> snapshots.add(b.snapshot())));
            expected = markRounds(m);
            assertEquals(MsptiResult.MSPTI_SUCCESS, m.stop());
        }
        List<String> names = new ArrayList<>();
        for (RecordBatch s : snapshots) {
            assertTrue(s.isValid());
            for (int i = 0; i < s.getCount(); i++) {
                names.add(s.getString(i, RecordBatch.Marker.NAME));
                assertEquals("default", s.getString(i, RecordBatch.Marker.DOMAIN));
            }
        }
        assertEquals(expected, names);
        RecordBatch first = snapshots.get(0);
        assertThrows(IllegalArgumentException.class, () -> first.getString(0, RecordBatch.Marker.TIMESTAMP));
        assertEquals(first.getCount(), first.snapshot().getCount());  // a snapshot of a snapshot
    }
}

package org.mspti;

import static org.junit.jupiter.api.Assertions.*;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** MstxMonitor: marks and ranges (default and named domains), lambdas and subclasses, records as values. */
class MstxMonitorTest {
    private final MstxMonitor monitor = new MstxMonitor();
    private final List<MarkerData> marks = new CopyOnWriteArrayList<>();
    private final List<RangeMarkerData> ranges = new CopyOnWriteArrayList<>();

    @AfterEach
    void close() {
        monitor.close();
    }

    @Test
    void marksAndRangesReachLambdas() {
        assertEquals(MsptiResult.MSPTI_SUCCESS, monitor.start(marks::add, ranges::add));
        assertTrue(monitor.isRunning());
        Mstx.mark("hello");
        long id = Mstx.rangeStart("work");
        assertNotEquals(0, id);
        Mstx.rangeEnd(id);
        try (Mstx.Range r = Mstx.range("block")) {
            assertNotEquals(0, r.getId());
        }
        assertEquals(MsptiResult.MSPTI_SUCCESS, monitor.stop());
        assertFalse(monitor.isRunning());

        assertEquals(1, marks.size());
        MarkerData m = marks.get(0);
        assertEquals("hello", m.getName());
        assertEquals("default", m.getDomain());
        assertEquals(MsptiActivityKind.MSPTI_ACTIVITY_KIND_MARKER, m.getKind());
        assertEquals(MsptiActivityFlag.MSPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS, m.getFlag());
        assertEquals(MsptiActivitySourceKind.MSPTI_ACTIVITY_SOURCE_KIND_HOST, m.getSourceKind());
        assertEquals(ProcessHandle.current().pid(), m.getObjectId().getProcessId());
        assertEquals(-1, m.getObjectId().getDeviceId());
        assertTrue(m.getTimestamp() > 0);

        assertEquals(2, ranges.size());
        RangeMarkerData r = ranges.get(0);
        assertEquals("work", r.getName());
        assertEquals(id, r.getId());
        assertTrue(r.getEnd() >= r.getStart());
        assertEquals("block", ranges.get(1).getName());
        assertEquals(3, monitor.stats().getDelivered());
        assertEquals(0, monitor.stats().getCallbackErrors());
    }

    @Test
    void domainsAreSwitchedByName() {
        assertEquals(MsptiResult.MSPTI_SUCCESS, monitor.start(marks::add, ranges::add));
        Mstx.Domain io = Mstx.domain("java_io");
        assertTrue(io.isValid());
        io.mark("read");
        assertEquals(MsptiResult.MSPTI_SUCCESS, monitor.disableDomain("java_io"));
        io.mark("dropped");
        assertEquals(MsptiResult.MSPTI_SUCCESS, monitor.enableDomain("java_io"));
        long id = io.rangeStart("write");
        io.rangeEnd(id);
        try (Mstx.Range r = io.range("flush")) {
            assertNotEquals(0, r.getId());
            Mstx.mark("outside");
        }
        MstxMonitor.flushAll();
        monitor.stop();
        assertEquals(List.of("read:java_io", "outside:default"),
                     marks.stream().map(x -> x.getName() + ":" + x.getDomain()).toList());
        assertEquals(List.of("write:java_io", "flush:java_io"),
                     ranges.stream().map(x -> x.getName() + ":" + x.getDomain()).toList());
    }

    @Test
    void subclassedCallbacksWork() {
        MarkCallback mark = new MarkCallback() {
            @Override
            public void onRecord(MarkerData data) {
                marks.add(data);
            }
        };
        RangeCallback range = new RangeCallback() {
            @Override
            public void onRecord(RangeMarkerData data) {
                ranges.add(data);
            }
        };
        assertEquals(MsptiResult.MSPTI_SUCCESS, monitor.start(mark, range));
        Mstx.mark("sub");
        Mstx.rangeEnd(Mstx.rangeStart("sub-range"));
        monitor.stop();
        assertEquals("sub", marks.get(0).getName());
        assertEquals("sub-range", ranges.get(0).getName());
    }

    @Test
    void marksOnlyAndRangesOnly() {
        assertEquals(MsptiResult.MSPTI_SUCCESS, monitor.startMarks(marks::add));
        Mstx.mark("m");
        Mstx.rangeEnd(Mstx.rangeStart("r"));
        monitor.stop();
        assertEquals(MsptiResult.MSPTI_SUCCESS, monitor.startRanges(ranges::add));
        Mstx.mark("m2");
        Mstx.rangeEnd(Mstx.rangeStart("r2"));
        monitor.stop();
        assertEquals(List.of("m"), marks.stream().map(MarkerData::getName).toList());
        assertEquals(List.of("r2"), ranges.stream().map(RangeMarkerData::getName).toList());
    }

    @Test
    void recordsAreOwnedValuesThatOutliveTheCallback() {
        monitor.startMarks(marks::add);
        for (int i = 0; i < 100; i++) Mstx.mark("m" + i + "-\u00e9\u4e2d");
        monitor.stop();
        assertEquals(100, marks.size());
        for (int i = 0; i < 100; i++) assertEquals("m" + i + "-\u00e9\u4e2d", marks.get(i).getName());
        MarkerData a = marks.get(0);
        MarkerData copy = new MarkerData(a.getKind(), a.getFlag(), a.getSourceKind(), a.getTimestamp(), a.getId(),
                                         a.getObjectId(), a.getName(), a.getDomain());
        assertEquals(a, copy);
        assertEquals(a.hashCode(), copy.hashCode());
        assertNotEquals(a, marks.get(1));
        assertTrue(a.toString().contains("name='m0-"));
    }

    // FNV-1a of the UTF-8 bytes, low 8 bits: the slot of the JNI layer's string table (java_record_decoder.h).
    private static int tableSlot(String s) {
        long h = 0xcbf29ce484222325L;
        for (byte b : s.getBytes(java.nio.charset.StandardCharsets.UTF_8)) h = (h ^ (b & 0xff)) * 0x100000001b3L;
        return (int) (h & 255);
    }

    @Test
    void recordStringsSurviveTheStringTable() {
        // A message in the table slot of its own domain's name, both orders; long strings; evictions.
        String domainName = "java_table";
        String clash = null;
        for (int i = 0; clash == null; i++) {
            if (tableSlot("c" + i) == tableSlot(domainName)) clash = "c" + i;
        }
        String longName = "L".repeat(200) + "\u00e9";  // over the 128 bytes the table caches, under 255
        monitor.startMarks(marks::add);
        Mstx.Domain d = Mstx.domain(domainName);
        List<String> expected = new java.util.ArrayList<>();
        for (int round = 0; round < 3; round++) {
            d.mark(clash);
            expected.add(clash + ":" + domainName);
            d.mark("other" + round);
            expected.add("other" + round + ":" + domainName);
            Mstx.mark(longName);
            expected.add(longName + ":default");
            d.mark(longName);
            expected.add(longName + ":" + domainName);
            for (int i = 0; i < 600; i++) {  // more distinct names than the table holds
                Mstx.mark("e" + i);
                expected.add("e" + i + ":default");
            }
        }
        monitor.stop();
        List<String> got = marks.stream().map(x -> x.getName() + ":" + x.getDomain()).toList();
        for (int i = 0; i < Math.min(expected.size(), got.size()); i++) {
            assertEquals(expected.get(i), got.get(i), "record " + i);
        }
        assertEquals(expected.size(), got.size());
        assertEquals(0, monitor.stats().getCallbackErrors());
    }

    @Test
    void aLargeBlockOfDistinctNamesArrivesInOrder() {
        // One block of more records than one string lookup covers (4096), with more distinct names
        // than the block's string table and address map start with: each record keeps its own.
        assertEquals(MsptiResult.MSPTI_SUCCESS, monitor.startMarks(marks::add));
        int n = 10000;
        for (int i = 0; i < n; i++) Mstx.mark(i % 2 == 0 ? "same" : "name-" + i);
        MstxMonitor.flushAll();
        assertEquals(n, marks.size());
        long previous = Long.MIN_VALUE;
        for (int i = 0; i < n; i++) {
            MarkerData m = marks.get(i);
            assertEquals(i % 2 == 0 ? "same" : "name-" + i, m.getName(), "record " + i);
            assertEquals("default", m.getDomain());
            assertTrue(m.getTimestamp() >= previous, "record " + i + " out of order");
            previous = m.getTimestamp();
        }
        assertEquals(n, monitor.stats().getDelivered());
    }

    @Test
    void aMarksCallbackIsNotCountedForTheRangeHalvesAroundIt() {
        assertEquals(MsptiResult.MSPTI_SUCCESS, monitor.startMarks(marks::add));
        for (int i = 0; i < 10; i++) {
            Mstx.mark("m" + i);
            Mstx.rangeEnd(Mstx.rangeStart("r" + i));
        }
        monitor.stop();
        assertEquals(10, marks.size());
        MonitorStats s = monitor.stats();
        assertEquals(10, s.getDelivered(), s.toString());
        assertEquals(0, s.getDropped(), s.toString());
        for (int i = 0; i < 10; i++) assertEquals("m" + i, marks.get(i).getName());
    }

    @Test
    void hostAndDeviceMarksCarryTheirObjectIds() {
        assertEquals(MsptiResult.MSPTI_SUCCESS, monitor.startMarks(marks::add));
        Mstx.mark("host");
        monitor.stop();
        MarkerData m = marks.get(0);
        assertEquals(MsptiActivitySourceKind.MSPTI_ACTIVITY_SOURCE_KIND_HOST, m.getSourceKind());
        assertEquals(ProcessHandle.current().pid(), m.getObjectId().getProcessId());
        assertTrue(m.getObjectId().getThreadId() > 0);
        assertEquals(-1, m.getObjectId().getDeviceId());
        assertEquals(-1, m.getObjectId().getStreamId());
    }

    @Test
    void batchesMatchPerRecordDelivery() {
        MstxMonitor batchMonitor = new MstxMonitor();
        // Every record is compared: the stops wait for all of them, however loaded the machine.
        assertEquals(MsptiResult.MSPTI_SUCCESS, batchMonitor.setStopTimeout(-1));
        List<String> fromBatch = new CopyOnWriteArrayList<>();
        List<Long> ids = new CopyOnWriteArrayList<>();
        try {
            assertEquals(MsptiResult.MSPTI_SUCCESS, batchMonitor.startBatch(batch -> {
                assertEquals(MsptiActivityKind.MSPTI_ACTIVITY_KIND_MARKER, batch.getKind());
                assertEquals(RecordBatch.Marker.SIZE, batch.getStride());
                assertTrue(batch.isValid());
                assertTrue(batch.getBuffer().isReadOnly());
                assertEquals(batch.getCount() * batch.getStride(), batch.getBuffer().capacity());
                for (int i = 0; i < batch.getCount(); i++) {
                    assertEquals(MsptiActivityKind.MSPTI_ACTIVITY_KIND_MARKER.swigValue(),
                                 batch.getInt(i, RecordBatch.Marker.KIND));
                    fromBatch.add(batch.getString(i, RecordBatch.Marker.NAME) + "@"
                                  + batch.getString(i, RecordBatch.Marker.DOMAIN) + "#"
                                  + batch.getLong(i, RecordBatch.Marker.TIMESTAMP) + "/"
                                  + Integer.toUnsignedLong(batch.getInt(i, RecordBatch.Marker.PROCESS_ID)));
                    ids.add(batch.getLong(i, RecordBatch.Marker.ID));
                }
            }));
            monitor.startMarks(marks::add);
            for (int i = 0; i < 50; i++) Mstx.mark("b" + i);
            monitor.stop();
            batchMonitor.stop();
        } finally {
            batchMonitor.setStopTimeout(Monitor.DEFAULT_STOP_TIMEOUT_MS);
            batchMonitor.close();
        }
        assertEquals(50, marks.size());
        assertEquals(marks.stream().map(m -> m.getName() + "@" + m.getDomain() + "#" + m.getTimestamp() + "/"
                                             + m.getObjectId().getProcessId()).toList(), fromBatch);
        assertEquals(marks.stream().map(MarkerData::getId).toList(), ids);
    }

    @Test
    void batchCopyKeepsTheBytes() {
        List<java.nio.ByteBuffer> copies = new CopyOnWriteArrayList<>();
        monitor.startBatch(batch -> copies.add(batch.copy()));
        Mstx.mark("kept");
        monitor.stop();
        java.nio.ByteBuffer b = copies.get(0);
        assertEquals(RecordBatch.Marker.SIZE, b.capacity());
        assertEquals("kept", RecordBatch.stringAt(b.getLong(RecordBatch.Marker.NAME)));
    }
}

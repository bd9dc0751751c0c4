package org.mspti;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/** A RecordBatch kept past its callback throws IllegalStateException when used; it never reads freed memory. */
class BatchLifetimeTest {
    private static void expired(Executable use) {
        IllegalStateException e = assertThrows(IllegalStateException.class, use);
        assertTrue(e.getMessage().contains("after its callback returned"), e.getMessage());
    }

    @Test
    void aBatchKeptAfterItsCallbackThrows() {
        List<RecordBatch> kept = new CopyOnWriteArrayList<>();
        List<ByteBuffer> copies = new CopyOnWriteArrayList<>();
        List<ByteBuffer> buffers = new CopyOnWriteArrayList<>();
        List<String> names = new CopyOnWriteArrayList<>();  // a marker's name is valid during its callback
        try (MstxMonitor m = new MstxMonitor()) {
            // Everything is delivered (the callback is slow on a loaded machine: copy-on-write lists),
            // not left running past a stop timeout.
            assertEquals(MsptiResult.MSPTI_SUCCESS, m.setStopTimeout(-1));
            assertEquals(MsptiResult.MSPTI_SUCCESS, m.startBatch(b -> {
                kept.add(b);
                copies.add(b.copy());
                buffers.add(b.getBuffer());
                for (int r = 0; r < b.getCount(); r++) names.add(b.getString(r, RecordBatch.Marker.NAME));
            }));
            for (int i = 0; i < 20000; i++) Mstx.mark("kept" + (i % 5));
            assertEquals(MsptiResult.MSPTI_SUCCESS, m.stop());
            // Collection again with another buffer size: the first buffers are freed or reused.
            assertEquals(MsptiResult.MSPTI_SUCCESS, Monitor.setBufferSize(1));
            assertEquals(MsptiResult.MSPTI_SUCCESS, m.startBatch(b -> {}));
            for (int i = 0; i < 20000; i++) Mstx.mark("other");
            assertEquals(MsptiResult.MSPTI_SUCCESS, m.stop());
            assertEquals(MsptiResult.MSPTI_SUCCESS, Monitor.setBufferSize(8));
            assertEquals(MsptiResult.MSPTI_SUCCESS, m.setStopTimeout(Monitor.DEFAULT_STOP_TIMEOUT_MS));
        }
        assertFalse(kept.isEmpty());
        for (RecordBatch b : kept) {
            assertFalse(b.isValid());
            expired(() -> b.getLong(0, RecordBatch.Marker.TIMESTAMP));
            expired(() -> b.getInt(0, RecordBatch.Marker.KIND));
            expired(() -> b.getDouble(0, RecordBatch.Marker.TIMESTAMP));
            expired(() -> b.getString(0, RecordBatch.Marker.NAME));
            expired(b::copy);
            expired(b::getBuffer);
            assertTrue(b.getCount() > 0);  // plain values stay readable
        }
        // What was copied inside the callback is intact, getBuffer() included.
        long records = 0;
        for (int i = 0; i < copies.size(); i++) {
            ByteBuffer c = copies.get(i), g = buffers.get(i);
            assertEquals(c, g);
            records += c.capacity() / RecordBatch.Marker.SIZE;
        }
        assertEquals(20000, records);
        assertEquals(20000, names.size());
        for (int i = 0; i < names.size(); i++) assertEquals("kept" + (i % 5), names.get(i));
    }

    @Test
    void aBatchExpiresAlsoWhenItsCallbackThrows() {
        List<RecordBatch> kept = new CopyOnWriteArrayList<>();
        CallbackErrors.setHandler((cb, t) -> {});
        try (MstxMonitor m = new MstxMonitor()) {
            m.startBatch(b -> {
                kept.add(b);
                throw new RuntimeException("boom");
            });
            Mstx.mark("x");
            m.stop();
            assertEquals(1, m.stats().getCallbackErrors());
        } finally {
            CallbackErrors.setHandler(null);
        }
        expired(() -> kept.get(0).getLong(0, RecordBatch.Marker.ID));
    }
}

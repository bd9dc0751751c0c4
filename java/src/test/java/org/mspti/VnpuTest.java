package org.mspti;

import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.api.Test;
import org.mspti.vnpu.Stream;
import org.mspti.vnpu.Tensor;
import org.mspti.vnpu.Vnpu;

/** The virtual NPU from Java (org.mspti.vnpu, generated from swig/vnpu.i). */
class VnpuTest {
    @org.junit.jupiter.api.BeforeAll
    static void loadTheRuntime() {
        Vnpu.deviceCount();  // libvnpu (global scope) before any monitor starts: device records
    }

    @Test
    void opsComputeRealResults() {
        Tensor a = new Tensor(new float[] {1, 2, 3, 4, 5, 6}, new long[] {2, 3}, 2);
        Tensor b = new Tensor(new float[] {1, 0, 0, 1, 1, 1}, new long[] {3, 2}, 2);
        assertArrayEquals(new float[] {4, 5, 10, 11}, Vnpu.matmul(a, b).toHost());
        assertArrayEquals(new long[] {2, 2}, Vnpu.matmul(a, b).shape());
        assertArrayEquals(new float[] {2, 4, 6, 8, 10, 12}, Vnpu.add(a, a).toHost());
        assertArrayEquals(new float[] {1, 4, 9, 16, 25, 36}, Vnpu.mul(a, a).toHost());
        Tensor neg = new Tensor(new float[] {-1, 2, -3}, new long[] {3}, 2);
        assertArrayEquals(new float[] {0, 2, 0}, Vnpu.relu(neg).toHost());
        Tensor row = new Tensor(new float[] {10, 20, 30}, new long[] {3}, 2);
        assertArrayEquals(new float[] {11, 22, 33, 14, 25, 36}, Vnpu.add(a, row).toHost());
        assertEquals(2, a.device());
        assertEquals(6, a.numel());
    }

    @Test
    void devicesAndStreams() {
        assertEquals(8, Vnpu.deviceCount());
        Vnpu.setDevice(3);
        assertEquals(3, Vnpu.currentDevice());
        Stream s = new Stream();
        assertEquals(3, s.device());
        assertNotEquals(0, s.nativeHandle());
        s.synchronize();
        // The default stream is one per device: stable across calls, not a new stream, not another device's.
        long default3 = Stream.defaultStream(3).handle();
        assertNotEquals(0, default3);
        assertEquals(default3, Stream.defaultStream(3).handle());
        assertEquals(3, Stream.defaultStream(3).device());
        assertNotEquals(s.handle(), default3);
        assertNotEquals(Stream.defaultStream(0).handle(), default3);
        Vnpu.setDevice(0);
    }

    @Test
    void badInputThrows() {
        Tensor a = new Tensor(new float[] {1, 2}, new long[] {2}, 0);
        Tensor b = new Tensor(new float[] {1, 2}, new long[] {2}, 1);
        // Each message names the values involved.
        assertEquals("operands on different devices (0 and 1)",
                     assertThrows(IllegalArgumentException.class, () -> Vnpu.add(a, b)).getMessage());
        assertEquals("data has 3 elements, shape (2,) needs 2",
                     assertThrows(IllegalArgumentException.class,
                                  () -> new Tensor(new float[] {1, 2, 3}, new long[] {2})).getMessage());
        assertEquals("matmul shape mismatch: (2,) @ (3,)",
                     assertThrows(IllegalArgumentException.class,
                                  () -> Vnpu.matmul(a, new Tensor(new float[] {1, 2, 3}, new long[] {3}, 0))).getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Vnpu.setDevice(99)).getMessage()
                       .startsWith("device 99 out of range (0.."));
        assertThrows(IllegalArgumentException.class, () -> Vnpu.add(a, a, new Stream(1)));
        assertEquals("data is null",
                     assertThrows(NullPointerException.class, () -> new Tensor(null, new long[] {1})).getMessage());
    }

    @Test
    void allReduceSumsAcrossDevices() {
        float[] out = Vnpu.allReduceSum(2, new float[] {1, 2, 3, 10, 20, 30});
        assertArrayEquals(new float[] {11, 22, 33, 11, 22, 33}, out);
        assertThrows(IllegalArgumentException.class, () -> Vnpu.allReduceSum(2, new float[] {1, 2, 3}));
    }

    @Test
    void mstxMarkersOnAVnpuStream() {
        java.util.List<MarkerData> marks = new java.util.concurrent.CopyOnWriteArrayList<>();
        try (MstxMonitor m = new MstxMonitor()) {
            m.startMarks(marks::add);
            Stream s = new Stream(4);
            Mstx.mark("on-stream", s);
            s.synchronize();
            m.stop();
        }
        assertTrue(marks.stream().anyMatch(x -> x.getSourceKind() == MsptiActivitySourceKind.MSPTI_ACTIVITY_SOURCE_KIND_HOST
                                                 && x.getName().equals("on-stream")));
        assertTrue(marks.stream().anyMatch(x -> x.getSourceKind() == MsptiActivitySourceKind.MSPTI_ACTIVITY_SOURCE_KIND_DEVICE
                                                 && x.getObjectId().getDeviceId() == 4), marks.toString());
    }
}

package org.mspti;

import static org.junit.jupiter.api.Assertions.*;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Settings as msPTI has them: start() switches a running monitor; process-wide calls are static. */
class MonitorSettingsTest {
    private final MstxMonitor monitor = new MstxMonitor();

    @AfterEach
    void close() {
        monitor.close();
        assertEquals(MsptiResult.MSPTI_SUCCESS, Monitor.flushPeriod(0));
    }

    @Test
    void startOnARunningMonitorSwitchesToTheNewCallback() {
        List<String> first = new CopyOnWriteArrayList<>();
        List<String> second = new CopyOnWriteArrayList<>();
        assertEquals(MsptiResult.MSPTI_SUCCESS, monitor.startMarks(m -> first.add(m.getName())));
        Mstx.mark("one");
        assertEquals(MsptiResult.MSPTI_SUCCESS, Monitor.flushAll());
        assertEquals(MsptiResult.MSPTI_SUCCESS, monitor.startMarks(m -> second.add(m.getName())));
        assertTrue(monitor.isRunning());
        Mstx.mark("two");
        assertEquals(MsptiResult.MSPTI_SUCCESS, monitor.stop());
        assertEquals(List.of("one"), first);
        assertEquals(List.of("two"), second);
        assertEquals(2, monitor.stats().getDelivered());
    }

    @Test
    void flushPeriodDeliversDuringTheRun() throws Exception {
        CountDownLatch seen = new CountDownLatch(1);
        assertEquals(MsptiResult.MSPTI_SUCCESS, MstxMonitor.flushPeriod(20));
        assertEquals(MsptiResult.MSPTI_SUCCESS, monitor.startMarks(m -> seen.countDown()));
        Mstx.mark("during the run");
        assertTrue(seen.await(60, TimeUnit.SECONDS), "no record before stop()");
        assertTrue(monitor.isRunning());
        assertTrue(Monitor.anyRunning());
        monitor.stop();
    }

    @Test
    void setBufferSizeWhileRunningWarnsAndSucceeds() {
        java.util.logging.Logger log = java.util.logging.Logger.getLogger("org.mspti");
        List<String> logged = new CopyOnWriteArrayList<>();
        java.util.logging.Handler handler = new java.util.logging.Handler() {
            @Override
            public void publish(java.util.logging.LogRecord r) {
                logged.add(r.getMessage());
            }

            @Override
            public void flush() { }

            @Override
            public void close() { }
        };
        log.addHandler(handler);
        try {
            assertEquals(MsptiResult.MSPTI_SUCCESS, KernelMonitor.setBufferSize(8));
            assertEquals(List.of(), logged);
            assertEquals(MsptiResult.MSPTI_SUCCESS, monitor.startMarks(m -> { }));
            assertEquals(MsptiResult.MSPTI_SUCCESS, Monitor.setBufferSize(16));
            assertEquals(1, logged.size());
            assertTrue(logged.get(0).contains("next starts"), logged.get(0));
            monitor.stop();
            assertEquals(MsptiResult.MSPTI_SUCCESS, Monitor.setBufferSize(8));
        } finally {
            log.removeHandler(handler);
        }
    }

    @Test
    void statsCarryTheRecordsDroppedOfTheMonitorsKind() {
        KernelMonitor kernels = new KernelMonitor();
        MstxMonitor idle = new MstxMonitor();  // of the same kind, never started
        try {
            assertEquals(MsptiResult.MSPTI_SUCCESS, monitor.setStopTimeout(10));
            assertEquals(MsptiResult.MSPTI_SUCCESS, monitor.startMarks(m -> {
                long until = System.nanoTime() + 50_000;  // a slow consumer: the stop leaves a backlog
                while (System.nanoTime() < until) { }
            }));
            for (int i = 0; i < 20000; i++) Mstx.mark("backlog");
            monitor.stop();  // the backlog no monitor received: dropped MARKER records in libmspti
            MonitorStats s = monitor.stats();
            assertTrue(s.getDropped() >= 100, s.toString());
            assertEquals(20000, s.getDelivered() + s.getDropped(), s.toString());
            assertEquals(s.getDropped(), idle.stats().getDropped());
            assertEquals(0, kernels.stats().getDropped());
        } finally {
            monitor.setStopTimeout(Monitor.DEFAULT_STOP_TIMEOUT_MS);
            idle.close();
            kernels.close();
        }
    }

    @Test
    void generatedApiMonitorSwitchesAndKeepsItsCallbackOnNull() {
        // ApiMonitor comes from schema/records.py alone; it behaves as every other monitor.
        try (ApiMonitor api = new ApiMonitor()) {
            assertEquals(MsptiResult.MSPTI_SUCCESS, ApiMonitor.flushPeriod(0));
            assertEquals(MsptiResult.MSPTI_ERROR_INVALID_PARAMETER, ApiMonitor.setBufferSize(0));
            assertEquals(MsptiResult.MSPTI_SUCCESS, api.start(d -> { }));
            assertEquals(MsptiResult.MSPTI_SUCCESS, api.start(d -> { }));
            assertTrue(api.isRunning());
            assertEquals(MsptiResult.MSPTI_ERROR_INVALID_PARAMETER, api.start((ApiCallback) null));
            assertTrue(api.isRunning());
            assertEquals(MsptiResult.MSPTI_SUCCESS, ApiMonitor.flushAll());
            assertEquals(MsptiResult.MSPTI_SUCCESS, api.stop());
            assertEquals(0, api.stats().getDropped());
        }
    }
}

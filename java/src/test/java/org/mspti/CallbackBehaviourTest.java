package org.mspti;

import static org.junit.jupiter.api.Assertions.*;

import java.lang.ref.WeakReference;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Threads, lifetimes and failures: what the Java glue adds to the C++ monitors. */
class CallbackBehaviourTest {
    private final MstxMonitor monitor = new MstxMonitor();

    @AfterEach
    void close() {
        CallbackErrors.setHandler(null);
        monitor.close();
    }

    @Test
    void callbacksRunOnOneDaemonDeliveryThread() {
        List<Thread> threads = new CopyOnWriteArrayList<>();
        monitor.startMarks(m -> threads.add(Thread.currentThread()));
        for (int i = 0; i < 10; i++) Mstx.mark("t");
        monitor.stop();
        monitor.startMarks(m -> threads.add(Thread.currentThread()));
        Mstx.mark("t");
        monitor.stop();
        assertEquals(11, threads.size());
        for (Thread t : threads) {
            assertNotSame(Thread.currentThread(), t);
            assertEquals("mspti-delivery", t.getName());
            assertTrue(t.isDaemon());
        }
        // Attached once per delivery thread: one Java Thread object for all the calls of a thread.
        assertSame(threads.get(0), threads.get(9));
    }

    @Test
    void exceptionsAreReportedCountedAndDeliveryGoesOn() {
        List<Throwable> reported = new CopyOnWriteArrayList<>();
        List<Object> reporters = new CopyOnWriteArrayList<>();
        CallbackErrors.setHandler((cb, t) -> {
            reporters.add(cb);
            reported.add(t);
        });
        List<String> seen = new CopyOnWriteArrayList<>();
        MarkCallback cb = new MarkCallback() {
            @Override
            public void onRecord(MarkerData data) {
                seen.add(data.getName());
                if (data.getName().startsWith("bad")) throw new IllegalStateException("boom " + data.getName());
            }
        };
        monitor.start(cb, null);
        for (int i = 0; i < 10; i++) Mstx.mark(i % 3 == 0 ? "bad" + i : "good" + i);
        monitor.stop();
        assertEquals(10, seen.size());
        assertEquals(4, monitor.stats().getCallbackErrors());
        assertEquals(10, monitor.stats().getDelivered());
        assertEquals(4, reported.size());
        assertTrue(reported.get(0) instanceof IllegalStateException);
        assertEquals("boom bad0", reported.get(0).getMessage());
        assertTrue(reported.get(0).getStackTrace().length > 0);
        assertEquals("onRecord", reported.get(0).getStackTrace()[0].getMethodName());
        assertSame(cb, reporters.get(0));
    }

    @Test
    void theDefaultReportGoesToTheUncaughtExceptionHandler() throws Exception {
        AtomicReference<String> printed = new AtomicReference<>();
        Thread.UncaughtExceptionHandler previous = Thread.getDefaultUncaughtExceptionHandler();
        Thread.setDefaultUncaughtExceptionHandler((t, e) -> {
            java.io.StringWriter w = new java.io.StringWriter();
            e.printStackTrace(new java.io.PrintWriter(w));
            printed.set(t.getName() + ": " + w);
        });
        try {
            monitor.startMarks(m -> { throw new ArithmeticException("lambda failed"); });
            Mstx.mark("x");
            monitor.stop();
        } finally {
            Thread.setDefaultUncaughtExceptionHandler(previous);
        }
        assertEquals(1, monitor.stats().getCallbackErrors());
        String text = printed.get();
        assertNotNull(text);
        assertTrue(text.startsWith("mspti-delivery: java.lang.ArithmeticException: lambda failed"), text);
        assertTrue(text.contains("at org.mspti.CallbackBehaviourTest"), text);
    }

    @Test
    void stopFromInsideTheCallback() {
        AtomicInteger calls = new AtomicInteger();
        List<MsptiResult> results = new CopyOnWriteArrayList<>();
        monitor.startMarks(m -> {
            if (calls.incrementAndGet() == 3) results.add(monitor.stop());
        });
        for (int i = 0; i < 10; i++) Mstx.mark("s");
        MstxMonitor.flushAll();
        assertEquals(List.of(MsptiResult.MSPTI_SUCCESS), results);
        assertFalse(monitor.isRunning());
        assertEquals(3, calls.get());
        // The records after the stop were never handed over: dropped, not delivered.
        MonitorStats s = monitor.stats();
        assertEquals(3, s.getDelivered(), s.toString());
        assertEquals(10, s.getDelivered() + s.getDropped(), s.toString());
        // The monitor is reusable afterwards.
        assertEquals(MsptiResult.MSPTI_SUCCESS, monitor.startMarks(m -> calls.incrementAndGet()));
        Mstx.mark("again");
        monitor.stop();
        assertEquals(4, calls.get());
    }

    @Test
    void stopFromAnotherThreadWhileACallbackRuns() throws Exception {
        CountDownLatch inside = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger calls = new AtomicInteger();
        monitor.startMarks(m -> {
            calls.incrementAndGet();
            inside.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        Mstx.mark("first");
        Thread flusher = new Thread(Monitor::flushAll);
        flusher.start();
        assertTrue(inside.await(30, TimeUnit.SECONDS));
        AtomicReference<MsptiResult> stopped = new AtomicReference<>();
        Thread stopper = new Thread(() -> stopped.set(monitor.stop()));
        stopper.start();
        // stop() marks the monitor stopped first, then waits for the callback: make sure it is
        // waiting (not yet called, or already past) before the callback is let go.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (monitor.isRunning() && System.nanoTime() < deadline) Thread.onSpinWait();
        assertFalse(monitor.isRunning(), "stop() did not begin within 30 s");
        assertTrue(stopper.isAlive(), "stop() returned while a callback was still running");
        assertNull(stopped.get());
        release.countDown();
        stopper.join(30000);
        flusher.join(30000);
        assertEquals(MsptiResult.MSPTI_SUCCESS, stopped.get());
        assertEquals(1, calls.get());
        assertFalse(monitor.isRunning());
    }

    static final AtomicInteger ANONYMOUS_CALLS = new AtomicInteger();

    /** Starts the monitor with a callback that nothing but the monitor references. */
    private WeakReference<MarkCallback> startWithAnonymousCallback() {
        MarkCallback callback = new MarkCallback() {
            @Override
            public void onRecord(MarkerData data) {
                ANONYMOUS_CALLS.incrementAndGet();
            }
        };
        assertEquals(MsptiResult.MSPTI_SUCCESS, monitor.start(callback, null));
        return new WeakReference<>(callback);
    }

    /** Full collections until ref is cleared (System.gc() is a request, so ask a bounded number of times). */
    private static boolean collectedWithin(WeakReference<?> ref, int attempts) {
        for (int i = 0; i < attempts && ref.get() != null; i++) {
            byte[][] garbage = new byte[64][];
            for (int k = 0; k < garbage.length; k++) garbage[k] = new byte[64 * 1024];
            System.gc();
        }
        return ref.get() == null;
    }

    @Test
    void anAnonymousCallbackSurvivesGarbageCollection() throws Exception {
        WeakReference<MarkCallback> ref = startWithAnonymousCallback();
        // However many collections run, the monitor keeps the callback reachable while it runs.
        assertFalse(collectedWithin(ref, 5));
        for (int i = 0; i < 1000; i++) Mstx.mark("gc");
        MstxMonitor.flushAll();
        assertEquals(1000, ANONYMOUS_CALLS.get());
        assertEquals(0, monitor.stats().getCallbackErrors());
        assertNotNull(ref.get());
        monitor.stop();
        // After stop() nothing holds it any more: it is collected (not leaked by a JNI global reference).
        assertTrue(collectedWithin(ref, 50), "the callback is still reachable after stop()");
    }

    @Test
    void badInputIsRejectedAndNothingStarts() {
        KernelMonitor kernels = new KernelMonitor();
        try {
            assertEquals(MsptiResult.MSPTI_ERROR_INVALID_PARAMETER, kernels.start((KernelCallback) null));
            assertFalse(Monitor.lastErrorMessage().isEmpty());
            assertEquals(MsptiResult.MSPTI_ERROR_INVALID_PARAMETER,
                         kernels.start((java.util.function.Consumer<KernelData>) null));
            assertEquals(MsptiResult.MSPTI_ERROR_INVALID_PARAMETER, kernels.startBatch((BatchCallback) null));
            assertFalse(kernels.isRunning());
        } finally {
            kernels.close();
        }
        assertEquals(MsptiResult.MSPTI_ERROR_INVALID_PARAMETER, monitor.startMarks(null));
        assertEquals(MsptiResult.MSPTI_ERROR_INVALID_PARAMETER, monitor.startRanges(null));
        assertEquals(MsptiResult.MSPTI_ERROR_INVALID_PARAMETER, monitor.startBatch((BatchCallback) null));
        assertFalse(monitor.isRunning());
        for (long size : new long[] {0, -1, 257, Long.MAX_VALUE, Long.MIN_VALUE}) {
            assertEquals(MsptiResult.MSPTI_ERROR_INVALID_PARAMETER, MstxMonitor.setBufferSize(size), "size " + size);
        }
        assertEquals(MsptiResult.MSPTI_SUCCESS, MstxMonitor.setBufferSize(1));
        assertEquals(MsptiResult.MSPTI_SUCCESS, MstxMonitor.setBufferSize(256));
        assertEquals(MsptiResult.MSPTI_SUCCESS, MstxMonitor.setBufferSize(8));
        assertEquals(MsptiResult.MSPTI_ERROR_INVALID_PARAMETER, monitor.enableDomain(""));
        assertEquals(MsptiResult.MSPTI_ERROR_INVALID_PARAMETER, monitor.enableDomain(null));
        assertEquals(MsptiResult.MSPTI_ERROR_INVALID_PARAMETER, monitor.disableDomain(""));
        assertEquals(MsptiResult.MSPTI_ERROR_INVALID_PARAMETER, monitor.disableDomain(null));
        assertEquals(MsptiResult.MSPTI_ERROR_INVALID_PARAMETER, monitor.enableDomain("x".repeat(255)));
        assertEquals("domain name must not be null or empty, not \"\"",
                     assertThrows(IllegalArgumentException.class, () -> Mstx.domain("")).getMessage());
        assertEquals("domain name must not be null or empty, not null",
                     assertThrows(IllegalArgumentException.class, () -> Mstx.domain(null)).getMessage());
        assertFalse(monitor.isRunning());
        assertEquals(MsptiResult.MSPTI_SUCCESS, monitor.stop());  // not running: a no-op
    }

    @Test
    void aRejectedStartKeepsTheRunningCallback() {
        AtomicInteger first = new AtomicInteger();
        assertEquals(MsptiResult.MSPTI_SUCCESS, monitor.startMarks(m -> first.incrementAndGet()));
        assertEquals(MsptiResult.MSPTI_ERROR_INVALID_PARAMETER, monitor.startBatch((BatchCallback) null));
        System.gc();
        Mstx.mark("x");
        monitor.stop();
        assertEquals(1, first.get());
    }

    @Test
    void aSecondStartSwitchesToTheNewCallbackAndReleasesTheOld() {
        AtomicInteger first = new AtomicInteger();
        AtomicInteger second = new AtomicInteger();
        assertEquals(MsptiResult.MSPTI_SUCCESS, monitor.startMarks(m -> first.incrementAndGet()));
        assertEquals(MsptiResult.MSPTI_SUCCESS, monitor.startMarks(m -> second.incrementAndGet()));
        System.gc();
        Mstx.mark("x");
        monitor.stop();
        assertEquals(0, first.get());
        assertEquals(1, second.get());
    }

    @Test
    void enumsAreJavaEnumsWithTheirCValues() {
        assertEquals(0, MsptiResult.MSPTI_SUCCESS.swigValue());
        assertEquals(6, MsptiResult.MSPTI_ERROR_WITHOUT_LD_PRELOAD.swigValue());
        assertEquals(MsptiActivityKind.MSPTI_ACTIVITY_KIND_KERNEL, MsptiActivityKind.swigToEnum(2));
        assertEquals(MsptiCommunicationDataType.MSPTI_ACTIVITY_COMMUNICATION_FP32, MsptiCommunicationDataType.valueOf(
            "MSPTI_ACTIVITY_COMMUNICATION_FP32"));
        assertTrue(MsptiActivityFlag.class.isEnum());
        assertEquals(65536L, MstxMonitor.MAX_OPEN_RANGES);
    }
}

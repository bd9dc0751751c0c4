package org.mspti;

import static org.junit.jupiter.api.Assertions.*;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * stop() with a large backlog returns within the stop timeout; the undelivered rest is counted as
 * dropped. No duration is asserted (a loaded machine stretches any): the dropped count shows that
 * stop() did not wait for the whole backlog.
 */
class BoundedStopTest {
    private static final long BOUND_MS = Monitor.DEFAULT_STOP_TIMEOUT_MS;
    private static final int RECORDS = 100000;  // ~0.1 ms each: 10 s or more to deliver in full

    private static MstxMonitor slowMonitor(AtomicLong calls) {
        MstxMonitor m = new MstxMonitor();
        assertEquals(MsptiResult.MSPTI_SUCCESS, m.startMarks(r -> {
            LockSupport.parkNanos(100_000);
            calls.incrementAndGet();
        }));
        for (int i = 0; i < RECORDS; i++) Mstx.mark("backlog");
        return m;
    }

    private static void checkCounts(MstxMonitor m, AtomicLong calls) {
        MonitorStats s = m.stats();
        assertEquals(calls.get(), s.getDelivered(), s.toString());
        assertEquals(RECORDS, s.getDelivered() + s.getDropped(), s.toString());
        assertTrue(s.getDropped() > 0, s.toString());
    }

    @Test
    void stopReturnsWithinTheBound() {
        AtomicLong calls = new AtomicLong();
        try (MstxMonitor m = slowMonitor(calls)) {
            assertEquals(BOUND_MS, m.stopTimeout());
            assertEquals(MsptiResult.MSPTI_SUCCESS, m.stop());
            checkCounts(m, calls);
        }
    }

    @Test
    void stopFromAnotherThreadReturnsWithinTheBound() throws Exception {
        AtomicLong calls = new AtomicLong();
        try (MstxMonitor m = slowMonitor(calls)) {
            MsptiResult[] result = new MsptiResult[1];
            Thread stopper = new Thread(() -> result[0] = m.stop());
            stopper.start();
            stopper.join();
            assertEquals(MsptiResult.MSPTI_SUCCESS, result[0]);
            checkCounts(m, calls);
        }
    }

    @Test
    void theJvmExitsWithinOneStopTimeoutWithABacklog() throws Exception {
        String java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
        String cp = System.getProperty("mspti.test.classpath");
        assertNotNull(cp, "run with -Dmspti.test.classpath=<mspti.jar:mspti-tests.jar>");
        ProcessBuilder pb = new ProcessBuilder(java, "-cp", cp, "org.mspti.ExitScenario", "backlog");
        pb.environment().put("MSPTI_STOP_TIMEOUT_MS", "500");
        Process p = pb.redirectErrorStream(true).start();
        // Delivering the whole backlog would take 200 s (see ExitScenario): a JVM that ends within
        // this generous bound did not wait for it.
        boolean done = p.waitFor(120, TimeUnit.SECONDS);
        if (!done) p.destroyForcibly();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(done, out);
        assertEquals(0, p.exitValue(), out);
        assertTrue(out.lines().anyMatch(l -> l.startsWith("main done")), out);
    }

    @Test
    void theStopTimeoutIsASetting() {
        try (MstxMonitor m = new MstxMonitor()) {
            assertEquals(MsptiResult.MSPTI_SUCCESS, m.setStopTimeout(250));
            assertEquals(250, m.stopTimeout());
            assertEquals(MsptiResult.MSPTI_ERROR_INVALID_PARAMETER, m.setStopTimeout(-2));
            assertEquals(MsptiResult.MSPTI_SUCCESS, m.setStopTimeout(BOUND_MS));
        }
    }

    // A callback that never returns (until the test releases it, after the call returned) holds
    // neither stop() nor a start() that switches callbacks: both return past the stop timeout and its
    // grace with MSPTI_ERROR_INNER. After a switch the new callback gets the next records, and the old
    // callback (left running) is kept alive: it returns normally once released.
    @Test
    void neitherStopNorASwitchWaitsForACallbackThatNeverReturns() throws Exception {
        for (boolean viaStart : new boolean[] {false, true}) {
            java.util.concurrent.CountDownLatch entered = new java.util.concurrent.CountDownLatch(1);
            java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
            AtomicLong oldCalls = new AtomicLong(), newCalls = new AtomicLong(), oldReturned = new AtomicLong();
            try (MstxMonitor m = new MstxMonitor()) {
                assertEquals(MsptiResult.MSPTI_SUCCESS, m.setStopTimeout(100));
                assertEquals(MsptiResult.MSPTI_SUCCESS, m.startMarks(r -> {
                    oldCalls.incrementAndGet();
                    entered.countDown();
                    try {
                        release.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    oldReturned.incrementAndGet();
                }));
                Mstx.mark("stuck");
                assertEquals(MsptiResult.MSPTI_SUCCESS, Monitor.flushPeriod(1));
                entered.await();
                java.util.concurrent.CompletableFuture<MsptiResult> call =
                    java.util.concurrent.CompletableFuture.supplyAsync(
                        () -> viaStart ? m.startMarks(r -> newCalls.incrementAndGet()) : m.stop());
                MsptiResult result = null;
                try {
                    result = call.get(60, TimeUnit.SECONDS);  // generous: only a hung call takes this long
                } catch (java.util.concurrent.TimeoutException e) {
                    // reported below, after the callback was released
                }
                release.countDown();
                assertNotNull(result, (viaStart ? "start" : "stop") + " waited for a callback that does not return");
                assertEquals(MsptiResult.MSPTI_ERROR_INNER, result);
                assertEquals(viaStart, m.isRunning());
                if (viaStart) {
                    Mstx.mark("after");
                    for (int i = 0; i < 60000 && newCalls.get() == 0; i++) Thread.sleep(1);  // polling, bounded
                    assertEquals(1, newCalls.get());
                }
                for (int i = 0; i < 60000 && oldReturned.get() == 0; i++) Thread.sleep(1);  // polling, bounded
                assertEquals(1, oldCalls.get());
                assertEquals(1, oldReturned.get());
                assertEquals(MsptiResult.MSPTI_SUCCESS, Monitor.flushPeriod(0));
                m.stop();
                assertEquals(MsptiResult.MSPTI_SUCCESS, m.setStopTimeout(Monitor.DEFAULT_STOP_TIMEOUT_MS));
            }
        }
    }
}

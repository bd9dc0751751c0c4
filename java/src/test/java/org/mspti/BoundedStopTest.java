package org.mspti;

import static org.junit.jupiter.api.Assertions.*;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/** stop() with a large backlog returns within the stop timeout; the undelivered rest is counted as dropped. */
class BoundedStopTest {
    private static final long BOUND_MS = Monitor.DEFAULT_STOP_TIMEOUT_MS;
    private static final long SLACK_MS = 4000;  // a loaded 2-core machine
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
            long t0 = System.nanoTime();
            assertEquals(MsptiResult.MSPTI_SUCCESS, m.stop());
            long tookMs = (System.nanoTime() - t0) / 1_000_000;
            assertTrue(tookMs < BOUND_MS + SLACK_MS, "stop took " + tookMs + " ms");
            checkCounts(m, calls);
        }
    }

    @Test
    void stopFromAnotherThreadReturnsWithinTheBound() throws Exception {
        AtomicLong calls = new AtomicLong();
        try (MstxMonitor m = slowMonitor(calls)) {
            long[] tookMs = new long[1];
            Thread stopper = new Thread(() -> {
                long t0 = System.nanoTime();
                m.stop();
                tookMs[0] = (System.nanoTime() - t0) / 1_000_000;
            });
            stopper.start();
            stopper.join();
            assertTrue(tookMs[0] < BOUND_MS + SLACK_MS, "stop took " + tookMs[0] + " ms");
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
        boolean done = p.waitFor(120, TimeUnit.SECONDS);
        long ended = System.nanoTime();
        if (!done) p.destroyForcibly();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(done, out);
        assertEquals(0, p.exitValue(), out);
        String line = out.lines().filter(l -> l.startsWith("main done ")).findFirst().orElseThrow();
        long exitMs = (ended - Long.parseLong(line.substring("main done ".length()).trim())) / 1_000_000;
        // Both monitors stop within the one 500 ms timeout (the hook's own fallback is 5 s).
        assertTrue(exitMs < 500 + 3000, "exit took " + exitMs + " ms\n" + out);
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
}

package org.mspti;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import org.mspti.vnpu.Tensor;
import org.mspti.vnpu.Vnpu;

/** A JVM that ends with monitors still running; run by ExitTest in a subprocess. */
public final class ExitScenario {
    private ExitScenario() {}

    // Two monitors with slow callbacks (1 ms a record) and a backlog of 200 s: the JVM exits within
    // one stop timeout.
    private static void backlog() {
        for (int k = 0; k < 2; k++) {
            MstxMonitor m = new MstxMonitor();
            m.startMarks(r -> java.util.concurrent.locks.LockSupport.parkNanos(1_000_000));
        }
        for (int i = 0; i < 100000; i++) Mstx.mark("backlog");
        System.out.println("main done " + System.nanoTime());
        System.out.flush();
    }

    public static void main(String[] args) throws Exception {
        String mode = args[0];
        if (mode.equals("backlog")) {
            backlog();
            return;
        }
        AtomicLong seen = new AtomicLong();
        CountDownLatch first = new CountDownLatch(1);
        CountDownLatch never = new CountDownLatch(1);
        CountDownLatch printed = new CountDownLatch(1);  // exit-in-callback exits only after "main done"
        Vnpu.setDevice(0);
        KernelMonitor kernels = new KernelMonitor();
        kernels.start(k -> seen.incrementAndGet());
        MstxMonitor marks = new MstxMonitor();
        marks.startMarks(m -> {
            seen.incrementAndGet();
            first.countDown();
            if (mode.equals("exit-in-callback")) {
                try {
                    printed.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                System.exit(4);
            }
            if (mode.equals("blocked-callback")) {
                try {
                    never.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        });
        Tensor x = new Tensor(new float[] {1, 2}, new long[] {2}, 0);
        for (int i = 0; i < 10; i++) x = Vnpu.add(x, x);
        for (int i = 0; i < 10000; i++) Mstx.mark("exit");
        Thread flusher = new Thread(Monitor::flushAll);
        flusher.setDaemon(true);
        flusher.start();
        first.await();
        System.out.println("main done");
        System.out.flush();
        printed.countDown();
        switch (mode) {
            case "return":
            case "blocked-callback":
                return;  // monitors running (and, for blocked-callback, a callback that never returns)
            case "exit":
                System.exit(3);
                break;
            case "exit-in-callback":
                never.await();  // System.exit comes from the callback
                break;
            default:
                throw new IllegalArgumentException(mode);
        }
    }
}

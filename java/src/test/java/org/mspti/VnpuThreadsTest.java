package org.mspti;

import static org.junit.jupiter.api.Assertions.*;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.Test;
import org.mspti.vnpu.Stream;
import org.mspti.vnpu.Tensor;
import org.mspti.vnpu.Vnpu;

/**
 * The virtual NPU from 8 Java threads at once: matmul, add and host copies on each thread's own tensors,
 * each thread on its own stream, then all on shared streams (one explicit stream and the default stream).
 * Tensors are deleted with work still queued on them (the others are left to the garbage collector,
 * which frees them on its own threads). Every result is compared with the same arithmetic done in Java.
 */
class VnpuThreadsTest {
    private static final int THREADS = 8;
    private static final int N = 16;
    private static final long SECONDS = Long.getLong("vnpu.threads.seconds", 10);

    private static float[] expected(float[] a, float[] b) {
        float[] out = new float[N * N];
        for (int i = 0; i < N; i++)
            for (int j = 0; j < N; j++) {
                float sum = 0;
                for (int k = 0; k < N; k++) sum += a[i * N + k] * b[k * N + j];
                out[i * N + j] = sum + a[i * N + j];
            }
        return out;
    }

    private static void phase(boolean shared, long nanos) throws InterruptedException {
        final long deadline = System.nanoTime() + nanos;
        final Stream common = new Stream(0);
        final ConcurrentLinkedQueue<String> errors = new ConcurrentLinkedQueue<>();
        final long[] steps = new long[THREADS];
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            final int index = t;
            threads.add(new Thread(() -> {
                try {
                    Vnpu.setDevice(0);
                    Stream stream = shared ? (index % 2 == 0 ? common : Stream.defaultStream(0)) : new Stream(0);
                    float[] a = new float[N * N];
                    float[] b = new float[N * N];
                    for (int i = 0; i < N * N; i++) {
                        a[i] = (i + index) % 5;
                        b[i] = (i * 3 + index) % 4;
                    }
                    float[] want = expected(a, b);
                    long[] shape = {N, N};
                    while (System.nanoTime() < deadline) {
                        Tensor ta = new Tensor(a, shape, 0);
                        Tensor tb = new Tensor(b, shape, 0);
                        Tensor c = Vnpu.matmul(ta, tb, stream);
                        Tensor d = Vnpu.add(c, ta, stream);
                        c.close();  // released at once (not by the GC) with the add still queued on it
                        if (steps[index] % 2 == 0) {
                            float[] got = d.toHost();
                            if (!java.util.Arrays.equals(want, got)) {
                                errors.add("thread " + index + ": wrong result at step " + steps[index]);
                                return;
                            }
                        }
                        ta.close();  // every other step with work still queued on them
                        tb.close();
                        d.close();
                        steps[index]++;
                    }
                } catch (RuntimeException e) {
                    errors.add("thread " + index + ": " + e);
                }
            }));
        }
        for (Thread thread : threads) thread.start();
        for (Thread thread : threads) thread.join();
        Vnpu.synchronize(0);
        assertTrue(errors.isEmpty(), errors.toString());
        for (int t = 0; t < THREADS; t++) assertTrue(steps[t] > 0, "thread " + t + " made no step");
    }

    @Test
    void eightThreadsOnTheirOwnStreams() throws InterruptedException {
        phase(false, SECONDS * 500_000_000L);
    }

    @Test
    void eightThreadsOnSharedStreams() throws InterruptedException {
        phase(true, SECONDS * 500_000_000L);
    }
}

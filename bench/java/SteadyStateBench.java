import java.util.Arrays;
import org.mspti.MsptiResult;
import org.mspti.Mstx;
import org.mspti.MstxMonitor;
import org.mspti.RecordBatch;

/**
 * mstx markers from Java in steady state (bench/steady_state.py runs it): loops long enough to
 * fill at least 20 of the MstxMonitor's 8 MB buffers, with a per-record callback (mark and range)
 * and with a batch callback; beside them a loop of {@code System.nanoTime()} calls (the baseline)
 * and short loops of 20,000 calls. Every loop is followed by an untimed flushAll(); records that
 * did not reach the callbacks are reported as dropped.
 *
 * <p>Usage: java -cp mspti.jar:mspti-bench.jar SteadyStateBench RECORDS_PER_LOOP [repetitions]
 * Prints JSON.
 */
public final class SteadyStateBench {
    private static final int SHORT_CALLS = 20_000;
    private static final int WARMUPS = 5;
    private static long sink;

    private static double time(Runnable loop, long calls) {
        long t0 = System.nanoTime();
        loop.run();
        return (System.nanoTime() - t0) / (double) calls;
    }

    private static void marks(long n) {
        for (long i = 0; i < n; i++) Mstx.mark("m");
    }

    private static void ranges(long n) {
        for (long i = 0; i < n; i++) Mstx.rangeEnd(Mstx.rangeStart("r"));
    }

    private static void clock(long n) {
        long s = 0;
        for (long i = 0; i < n; i++) s += System.nanoTime();
        sink += s;
    }

    private static double median(double[] v) {
        double[] c = v.clone();
        Arrays.sort(c);
        return c[c.length / 2];
    }

    private static String measure(String mode, long records, int repeats) {
        long[] seen = new long[1];
        MstxMonitor m = new MstxMonitor();
        try {
            MsptiResult r = mode.equals("per_record")
                ? m.start(d -> { seen[0] += 1; sink += d.getTimestamp(); },
                          d -> { seen[0] += 2; sink += d.getStart(); })
                : m.startBatch(b -> {
                      int n = b.getCount();
                      long s = 0;
                      for (int i = 0; i < n; i++) s += b.getLong(i, RecordBatch.Marker.TIMESTAMP);
                      sink += s;
                      seen[0] += n;
                  });
            if (r != MsptiResult.MSPTI_SUCCESS) throw new IllegalStateException("start failed: " + r);
            long expected = 0;
            for (int w = 0; w < WARMUPS; w++) {  // until the JIT's compiled code runs
                marks(SHORT_CALLS);
                ranges(SHORT_CALLS);
                clock(SHORT_CALLS);
                MstxMonitor.flushAll();
                expected += 3L * SHORT_CALLS;
            }
            double[] nano = new double[repeats], mark = new double[repeats], range = new double[repeats];
            double[] shortMark = new double[repeats], shortRange = new double[repeats];
            for (int rep = 0; rep < repeats; rep++) {
                nano[rep] = time(() -> clock(records), records);
                mark[rep] = time(() -> marks(records), records);
                MstxMonitor.flushAll();
                range[rep] = time(() -> ranges(records / 2), records / 2);
                MstxMonitor.flushAll();
                expected += records + records / 2 * 2;
                double[] sm = new double[10], sr = new double[10];
                for (int i = 0; i < 10; i++) {
                    sm[i] = time(() -> marks(SHORT_CALLS), SHORT_CALLS);
                    MstxMonitor.flushAll();
                    sr[i] = time(() -> ranges(SHORT_CALLS), SHORT_CALLS);
                    MstxMonitor.flushAll();
                    expected += 3L * SHORT_CALLS;
                }
                shortMark[rep] = median(sm);
                shortRange[rep] = median(sr);
            }
            MstxMonitor.flushAll();
            m.stop();
            return String.format(
                "{\"nanotime_ns\": %.3f, \"mark_ns\": %.3f, \"range_start_end_ns\": %.3f, \"short_mark_ns\": %.3f, "
                    + "\"short_range_start_end_ns\": %.3f, \"mark_min_ns\": %.3f, \"range_start_end_min_ns\": %.3f, "
                    + "\"records_expected\": %d, \"records_seen\": %d, \"dropped\": %d}",
                median(nano), median(mark), median(range), median(shortMark), median(shortRange),
                Arrays.stream(mark).min().getAsDouble(), Arrays.stream(range).min().getAsDouble(), expected, seen[0],
                expected - seen[0]);
        } finally {
            m.close();
        }
    }

    public static void main(String[] args) {
        long records = Long.parseLong(args[0]);
        int repeats = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        String perRecord = measure("per_record", records, repeats);
        String batch = measure("batch", records, repeats);
        System.out.printf("{\"records_per_loop\": %d, \"repetitions\": %d, \"java\": \"%s\", \"per_record\": %s, "
                              + "\"batch\": %s, \"sink\": %d}%n",
                          records, repeats, System.getProperty("java.version"), perRecord, batch, sink);
    }
}

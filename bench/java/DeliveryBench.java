import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.mspti.MsptiResult;
import org.mspti.Mstx;
import org.mspti.MstxMonitor;
import org.mspti.RecordBatch;

/**
 * Java delivery benchmark, with the C++ Monitor as baseline measured in the same run (the same
 * workload as bench/python/delivery_bench.py): N mstx marks collected into one 256 MB buffer, then
 * one flushAll() timed (delivery only); best, median and worst of REPEATS after WARMUPS untimed runs.
 *
 * <p>Usage: java -cp mspti.jar:mspti-bench.jar DeliveryBench [records] [path/to/bench_cpp_delivery]
 * Prints JSON.
 */
public final class DeliveryBench {
    private static final int REPEATS = 5;
    private static final int WARMUPS = 3;
    private static long sink;

    interface Starter {
        MsptiResult start(MstxMonitor m, long[] count);
    }

    private static double rate(int records, Starter starter) {
        MstxMonitor m = new MstxMonitor();
        try {
            MstxMonitor.setBufferSize(256);
            long[] count = new long[1];
            if (starter.start(m, count) != MsptiResult.MSPTI_SUCCESS) throw new IllegalStateException("start failed");
            for (int i = 0; i < records; i++) Mstx.mark("bench");
            long t0 = System.nanoTime();
            MstxMonitor.flushAll();
            long t1 = System.nanoTime();
            m.stop();
            if (count[0] != records) throw new IllegalStateException("delivered " + count[0] + " of " + records);
            return records / ((t1 - t0) / 1e9);
        } finally {
            m.close();
        }
    }

    public static void main(String[] args) throws Exception {
        int records = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        // Per record: a MarkerData (owned Java object, 2 strings, an object id) per call, built in
        // Java from the block the library delivers (one JNI upcall per block).
        Starter perRecord = (m, c) -> m.startMarks(d -> {
            c[0]++;
            sink += d.getTimestamp();
        });
        // Batch: a read-only direct ByteBuffer per block; one field read per record.
        Starter batch = (m, c) -> m.startBatch(b -> {
            int n = b.getCount();
            long s = 0;
            for (int i = 0; i < n; i++) s += b.getLong(i, RecordBatch.Marker.TIMESTAMP);
            sink += s;
            c[0] += n;
        });
        for (int w = 0; w < WARMUPS; w++) {  // until the JIT's compiled code runs (C2 compiles in the background)
            rate(records, perRecord);
            rate(records, batch);
        }
        double[] perRecordRates = new double[REPEATS], batchRates = new double[REPEATS];
        for (int r = 0; r < REPEATS; r++) {
            perRecordRates[r] = rate(records, perRecord);
            batchRates[r] = rate(records, batch);
        }
        java.util.Arrays.sort(perRecordRates);
        java.util.Arrays.sort(batchRates);
        double bestRecord = perRecordRates[REPEATS - 1], bestBatch = batchRates[REPEATS - 1];
        String cpp = "null";
        if (args.length > 1) {
            Process p = new ProcessBuilder(args[1], Integer.toString(records), Integer.toString(REPEATS)).start();
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            try (InputStream in = p.getInputStream()) {
                in.transferTo(out);
            }
            if (p.waitFor() != 0) throw new IllegalStateException("bench_cpp_delivery failed");
            cpp = out.toString(StandardCharsets.UTF_8).trim();
        }
        System.out.printf("{\"records\": %d, \"java_per_record_rps\": %.0f, \"java_batch_rps\": %.0f, "
                          + "\"java_per_record_median_rps\": %.0f, \"java_batch_median_rps\": %.0f, "
                          + "\"java_per_record_min_rps\": %.0f, \"java_batch_min_rps\": %.0f, \"cpp\": %s, "
                          + "\"java_version\": \"%s\", \"sink\": %d}%n",
                          records, bestRecord, bestBatch, perRecordRates[REPEATS / 2], batchRates[REPEATS / 2],
                          perRecordRates[0], batchRates[0], cpp, System.getProperty("java.version"), sink & 1);
    }
}

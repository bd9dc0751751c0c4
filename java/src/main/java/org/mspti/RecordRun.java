package org.mspti;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;

/**
 * How a per-record callback receives its records: the monitor runs on a block callback (one JNI
 * upcall per block of records, a {@link RecordBatch} over the library's buffer), and this builds
 * each record object in Java from the block's bytes and hands it to the callback.
 *
 * <p>String fields are addresses valid only during the upcall, so the JNI layer turns them into a
 * table of the block's distinct Java Strings ({@link #fillStrings}, java_record_runs.h) and each
 * record's strings into indices into it; a repeated name costs one array read.
 *
 * <p>What a record callback promises still holds per record: an exception is reported
 * ({@link CallbackErrors}) and counted, and delivery goes on; records are delivered in order; once
 * the native side lets go of the callback ({@link #retired()}: its monitor stopped or switched, or
 * the process exits) no further record is handed over, and the rest of the block counts as
 * dropped. The counts that differ from the block callback's (which counts a whole block as
 * delivered, and at most one error) are kept in {@link Counts} and added by the monitor's
 * {@code stats()}.
 */
abstract class RecordRun extends BatchCallback {
    /** Records per native string lookup: bounds the index array. */
    private static final int CHUNK = 4096;

    /** What the runs of one monitor add to its native counters (written on the delivery thread). */
    static final class Counts {
        private final AtomicLong errors = new AtomicLong();
        private final AtomicLong notHanded = new AtomicLong();
        private final AtomicLong dropped = new AtomicLong();

        /** The native snapshot with these counts applied. */
        MonitorStats adjust(MonitorStats s) {
            return new MonitorStats(s.getDelivered() - notHanded.get(), s.getCallbackErrors() + errors.get(),
                                    s.getUnpairedDropped(), s.getDropped() + dropped.get());
        }
    }

    private final Object callback;
    private final Counts counts;
    private final int kind;
    private final int stringsPerRecord;
    private final int[] indices;
    private String[] strings = new String[64];
    // Of the block being delivered (delivery thread only).
    private int errors;
    private int skipped;

    /**
     * @param callback the user's callback (what {@link CallbackErrors} reports)
     * @param kind the C value of the kind delivered
     * @param stringsPerRecord string fields per record
     */
    RecordRun(Object callback, Counts counts, int kind, int stringsPerRecord) {
        this.callback = callback;
        this.counts = counts;
        this.kind = kind;
        this.stringsPerRecord = stringsPerRecord;
        this.indices = new int[CHUNK * Math.max(1, stringsPerRecord)];
    }

    /**
     * Delivers records {@code first .. first + n - 1} of {@code b} ({@code stride} bytes apart),
     * whose strings are {@code s[x[(i - first) * stringsPerRecord + j]]}. Returns how many it took:
     * fewer than {@code n} once {@link #retired()}.
     */
    abstract int deliver(ByteBuffer b, int first, int n, int stride, String[] s, int[] x);

    /** Reports and counts an exception of the callback. */
    final void failed(Throwable t) {
        errors++;
        try {
            CallbackErrors.report(callback, t);
        } catch (Throwable ignored) {
            // the handler's own failure is ignored (CallbackErrors.setHandler)
        }
    }

    /** A record that was not for the callback (e.g. a range half for a marks callback). */
    final void skipped() {
        skipped++;
    }

    /**
     * Whether to hand over nothing more: the monitor stopped (its backlog delivered, its stop
     * timeout passed, or stopped from a callback) or switched away from this callback, or the
     * process exits. Asked after every record, as the native per-record delivery does.
     */
    final boolean retired() {
        return !MsptiNative.batchCallbackLive();
    }

    @Override
    public final void onBatch(RecordBatch batch) {
        ByteBuffer b = batch.view();
        int n = batch.getCount();
        int stride = batch.getStride();
        errors = 0;
        skipped = 0;
        int done = 0;
        boolean fresh = true;
        try {
            while (done < n && !retired()) {
                int m = Math.min(CHUNK, n - done);
                if (stringsPerRecord > 0) {
                    int ready = fillStrings(b, done, m, stride, kind, indices, strings, fresh);
                    fresh = false;
                    if (ready < 0) throw new IllegalStateException("no string fields for kind " + kind);
                    if (ready == 0) {  // the table is full: grow it (the indices stay valid)
                        strings = Arrays.copyOf(strings, strings.length * 2);
                        continue;
                    }
                    m = ready;
                }
                done += deliver(b, done, m, stride, strings, indices);
            }
        } finally {
            // Counted once per block. The records left when retired were never handed over.
            int left = n - done;
            if (errors != 0) counts.errors.addAndGet(errors);
            if (skipped + left != 0) counts.notHanded.addAndGet(skipped + left);
            // Dropped: in libmspti's counts where it takes the report (as records no callback
            // received), else in this monitor's own.
            if (left != 0 && !reportDiscarded(kind, left)) counts.dropped.addAndGet(left);
        }
    }

    /**
     * Writes the string indices of records {@code first .. first + count - 1} of a block of
     * {@code kind} into {@code indices} ({@code stringsPerRecord} per record), putting each
     * distinct string into {@code table}. {@code fresh}: a new block (its addresses are new).
     * Returns how many records it did: fewer than {@code count} when the table is full (0 if
     * not even one fit); -1 for a kind without string fields.
     */
    static native int fillStrings(ByteBuffer block, int first, int count, int stride, int kind, int[] indices,
                                  String[] table, boolean fresh);

    /** Tells libmspti that {@code count} records of {@code kind} were discarded; false if it cannot. */
    static native boolean reportDiscarded(int kind, long count);

    @Override
    public String toString() {
        return String.valueOf(callback);
    }
}

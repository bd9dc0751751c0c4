package org.mspti;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * How a per-record callback receives its records: the monitor hands them over a run at a time
 * (one JNI upcall per run of records, a {@link RecordBatch} over the library's buffer), and this
 * builds each record object in Java from the run's bytes and hands it to the callback.
 *
 * <p>String fields are addresses valid only during the upcall, so the JNI layer turns them into a
 * table of the run's distinct Java Strings ({@link #fillStrings}, java_record_runs.h) and each
 * record's strings into indices into it; a repeated name costs one array read.
 *
 * <p>The monitor counts what a run did as for any per-record callback (C++, Python): at its end
 * the run reports how many records it handed over, passed over (not for the callback) and how many
 * exceptions the callback raised (each reported through {@link CallbackErrors}); the records after
 * those, once the native side let go of the callback ({@link #retired()}), count as a per-record
 * callback's would.
 */
abstract class RecordRun extends RecordRunCallback {
    /** Records per native string lookup: bounds the index array. */
    private static final int CHUNK = 4096;

    private final Object callback;
    private final int kind;
    private final int stringsPerRecord;
    private final int[] indices;
    private String[] strings = new String[64];
    // Of the run being delivered (delivery thread only).
    private long errors;
    private long passed;

    /**
     * @param callback the user's callback (what {@link CallbackErrors} reports)
     * @param kind the C value of the kind delivered
     * @param stringsPerRecord string fields per record
     */
    RecordRun(Object callback, int kind, int stringsPerRecord) {
        this.callback = callback;
        this.kind = kind;
        this.stringsPerRecord = stringsPerRecord;
        this.indices = new int[CHUNK * Math.max(1, stringsPerRecord)];
    }

    /**
     * Delivers records {@code first .. first + n - 1} of {@code b} ({@code stride} bytes apart),
     * whose strings are {@code s[x[(i - first) * stringsPerRecord + j]]}. Returns how many it took
     * (handed over or passed over): fewer than {@code n} once {@link #retired()}.
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
        passed++;
    }

    /**
     * Whether to hand over nothing more: the monitor stopped (its backlog delivered, its stop
     * timeout passed, or stopped from a callback) or switched away from this callback, or the
     * process exits. Asked after every record, as the native per-record delivery does.
     */
    final boolean retired() {
        return !MsptiNative.recordRunLive();
    }

    @Override
    public final void onRun(RecordBatch batch) {
        ByteBuffer b = batch.view();
        int n = batch.getCount();
        int stride = batch.getStride();
        errors = 0;
        passed = 0;
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
            MsptiNative.recordRunTally(done - passed, passed, errors);
        }
    }

    /**
     * Writes the string indices of records {@code first .. first + count - 1} of a run of
     * {@code kind} into {@code indices} ({@code stringsPerRecord} per record), putting each
     * distinct string into {@code table}. {@code fresh}: a new run (its addresses are new).
     * Returns how many records it did: fewer than {@code count} when the table is full (0 if
     * not even one fit); -1 for a kind without string fields.
     */
    static native int fillStrings(ByteBuffer block, int first, int count, int stride, int kind, int[] indices,
                                  String[] table, boolean fresh);

    @Override
    public String toString() {
        return String.valueOf(callback);
    }
}

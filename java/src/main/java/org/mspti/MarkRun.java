package org.mspti;

import java.nio.ByteBuffer;

/**
 * Hands the marks among a block of MARKER records to a {@link MarkCallback}, one call per mark
 * (see {@link RecordRun}): MstxMonitor's marks-only delivery. Range halves are not for it (they
 * are paired for a RangeCallback, which takes the monitor's per-record path).
 */
final class MarkRun extends RecordRun {
    private static final int FLAG = RecordBatch.Marker.FLAG;
    private static final int INSTANTANEOUS = MsptiActivityFlag.MSPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS.swigValue();
    private static final int INSTANTANEOUS_WITH_DEVICE =
        MsptiActivityFlag.MSPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS_WITH_DEVICE.swigValue();
    private static final int STRINGS = RecordRuns.MARKER_STRINGS;

    private final MarkCallback callback;

    MarkRun(MarkCallback callback) {
        super(callback, MsptiActivityKind.MSPTI_ACTIVITY_KIND_MARKER.swigValue(), STRINGS);
        this.callback = callback;
    }

    @Override
    int deliver(ByteBuffer b, int first, int n, int stride, String[] s, int[] x) {
        MarkCallback cb = callback;
        for (int i = 0; i < n; i++) {
            int o = (first + i) * stride;
            int flag = b.getInt(o + FLAG);
            if (flag != INSTANTANEOUS && flag != INSTANTANEOUS_WITH_DEVICE) {
                skipped();
                continue;
            }
            MarkerData d = RecordRuns.markerData(b, o, s, x, i * STRINGS);
            try {
                cb.onRecord(d);
            } catch (Throwable t) {
                failed(t);
            }
            if (retired()) return i + 1;
        }
        return n;
    }
}

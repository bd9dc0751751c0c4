package org.mspti;

/** Counters of one monitor since it was created (a snapshot). */
public final class MonitorStats {
    private final long delivered, callbackErrors, unpairedDropped, dropped;

    /** A snapshot with the given counters. */
    public MonitorStats(long delivered, long callbackErrors, long unpairedDropped) {
        this(delivered, callbackErrors, unpairedDropped, 0);
    }

    /** A snapshot with the given counters. */
    public MonitorStats(long delivered, long callbackErrors, long unpairedDropped, long dropped) {
        this.delivered = delivered;
        this.callbackErrors = callbackErrors;
        this.unpairedDropped = unpairedDropped;
        this.dropped = dropped;
    }

    /** Records handed to the callback (batch records included). */
    public long getDelivered() { return delivered; }
    /** Callback calls that threw (reported through {@link CallbackErrors}; delivery went on). */
    public long getCallbackErrors() { return callbackErrors; }
    /** MstxMonitor: range starts evicted from the bounded open-range table. */
    public long getUnpairedDropped() { return unpairedDropped; }
    /**
     * Records collected for this monitor and never handed to it: the records of its kind that
     * libmspti dropped since the monitor was created (buffer declined or too small, staging full,
     * the backlog a stop() left when it reached its time bound ({@code Monitor.setStopTimeout}) or
     * the process exited), shared by monitors of one kind, plus those this monitor left that
     * another monitor of its kind received. Each record counts once.
     */
    public long getDropped() { return dropped; }

    @Override
    public String toString() {
        return "MonitorStats[delivered=" + delivered + ", callbackErrors=" + callbackErrors + ", unpairedDropped="
            + unpairedDropped + ", dropped=" + dropped + "]";
    }
}

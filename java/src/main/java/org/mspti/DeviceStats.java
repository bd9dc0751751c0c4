package org.mspti;

/**
 * What libmspti read from the device's profiling channels since the process started (a snapshot,
 * {@code Monitor.deviceStats()}). A device record that gave no activity record is counted here.
 */
public final class DeviceStats {
    private final boolean available;
    private final long bytes, records, skipped, malformed, unmatched, readErrors, shortFlushes;

    /** A snapshot with the given counters. */
    public DeviceStats(boolean available, long bytes, long records, long skipped, long malformed, long unmatched,
                       long readErrors, long shortFlushes) {
        this.available = available;
        this.bytes = bytes;
        this.records = records;
        this.skipped = skipped;
        this.malformed = malformed;
        this.unmatched = unmatched;
        this.readErrors = readErrors;
        this.shortFlushes = shortFlushes;
    }

    /** False where the libmspti.so in use lacks msptiExtDeviceGetStats (msPTI's own): all counts 0. */
    public boolean isAvailable() { return available; }
    /** Bytes read from the channels and parsed. */
    public long getBytes() { return bytes; }
    /** Whole device records decoded and handed on. */
    public long getRecords() { return records; }
    /** Whole records of types libmspti does not read. */
    public long getSkipped() { return skipped; }
    /** Whole records whose fields contradict their type (no activity record). */
    public long getMalformed() { return malformed; }
    /** Task begin or end records with no task track from the runtime (no activity record). */
    public long getUnmatched() { return unmatched; }
    /** Failed polls or reads of a channel. */
    public long getReadErrors() { return readErrors; }
    /** Flushes that gave up waiting (1 s) for bytes the driver said it held. */
    public long getShortFlushes() { return shortFlushes; }

    @Override
    public String toString() {
        return "DeviceStats[available=" + available + ", bytes=" + bytes + ", records=" + records + ", skipped="
            + skipped + ", malformed=" + malformed + ", unmatched=" + unmatched + ", readErrors=" + readErrors
            + ", shortFlushes=" + shortFlushes + "]";
    }
}

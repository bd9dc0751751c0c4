package org.mspti;

/**
 * mstx markers from Java (the functions libmspti.so exports). Markers are recorded while an
 * {@link MstxMonitor} runs. A {@code stream} ({@link NativeStream}, e.g. a vnpu stream) also marks
 * the point the stream reaches (a DEVICE record); without one the marker is host-only.
 *
 * <pre>{@code
 * Mstx.mark("step");
 * long id = Mstx.rangeStart("forward");
 * ...
 * Mstx.rangeEnd(id);
 * try (Mstx.Range r = Mstx.range("backward")) { ... }
 * Mstx.Domain io = Mstx.domain("io");
 * io.mark("read");
 * }</pre>
 */
public final class Mstx {
    private Mstx() {}

    private static long handle(NativeStream stream) {
        return stream == null ? 0 : stream.nativeHandle();
    }

    /** An instantaneous host marker. */
    public static void mark(String message) { MsptiNative.mstx_mark(message, 0); }

    /** An instantaneous marker, also on {@code stream} (null: host only). */
    public static void mark(String message, NativeStream stream) { MsptiNative.mstx_mark(message, handle(stream)); }

    /** Starts a host range; returns its id (0 if no tool records it). */
    public static long rangeStart(String message) { return MsptiNative.mstx_range_start(message, 0); }

    /** Starts a range, also on {@code stream}; returns its id. */
    public static long rangeStart(String message, NativeStream stream) {
        return MsptiNative.mstx_range_start(message, handle(stream));
    }

    /** Ends a range started by {@link #rangeStart}. */
    public static void rangeEnd(long id) { MsptiNative.mstx_range_end(id); }

    /** A range as a try-with-resources block. */
    public static Range range(String message) { return new Range(null, message, null); }

    /** A range on {@code stream} as a try-with-resources block. */
    public static Range range(String message, NativeStream stream) { return new Range(null, message, stream); }

    /** Creates (or finds) a domain. Its markers are switched by {@link MstxMonitor#enableDomain}. */
    public static Domain domain(String name) {
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException("domain name must not be null or empty, not "
                                               + (name == null ? "null" : "\"\""));
        }
        return new Domain(name, MsptiNative.mstx_domain_create(name));
    }

    /** A started range; {@link #close()} ends it. */
    public static final class Range implements AutoCloseable {
        private final Domain domain;
        private final long id;

        Range(Domain domain, String message, NativeStream stream) {
            this.domain = domain;
            this.id = domain == null ? rangeStart(message, stream) : domain.rangeStart(message, stream);
        }

        /** The range id (0 when not recorded). */
        public long getId() { return id; }

        @Override
        public void close() {
            if (domain == null) rangeEnd(id);
            else domain.rangeEnd(id);
        }
    }

    /** An mstx domain: markers that MstxMonitor.enableDomain/disableDomain switch by name. */
    public static final class Domain {
        private final String name;
        private volatile long handle;

        Domain(String name, long handle) {
            this.name = name;
            this.handle = handle;
        }

        /** The domain's name. */
        public String getName() { return name; }

        /** False when no tool records markers or the name was rejected (e.g. "default"). */
        public boolean isValid() { return handle != 0; }

        /** An instantaneous marker in this domain. */
        public void mark(String message) { mark(message, null); }

        /** An instantaneous marker in this domain, also on {@code stream}. */
        public void mark(String message, NativeStream stream) {
            long h = handle;
            if (h != 0) MsptiNative.mstx_domain_mark(h, message, handle(stream));
        }

        /** Starts a range in this domain; returns its id (0 when not recorded). */
        public long rangeStart(String message) { return rangeStart(message, null); }

        /** Starts a range in this domain, also on {@code stream}. */
        public long rangeStart(String message, NativeStream stream) {
            long h = handle;
            return h == 0 ? 0 : MsptiNative.mstx_domain_range_start(h, message, handle(stream));
        }

        /** Ends a range of this domain. */
        public void rangeEnd(long id) {
            long h = handle;
            if (h != 0) MsptiNative.mstx_domain_range_end(h, id);
        }

        /** A range in this domain as a try-with-resources block. */
        public Range range(String message) { return new Range(this, message, null); }

        /** Marks the domain destroyed (its markers stop being recorded). */
        public void destroy() {
            long h = handle;
            handle = 0;
            if (h != 0) MsptiNative.mstx_domain_destroy(h);
        }

        @Override
        public String toString() { return "Mstx.Domain[" + name + (isValid() ? "" : ", invalid") + "]"; }
    }
}

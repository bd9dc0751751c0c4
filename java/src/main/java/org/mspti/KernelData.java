package org.mspti;

import java.util.Objects;

/**
 * A kernel executed on a device (KERNEL record).
 *
 * <p>An immutable value owned by Java: it stays valid after the callback returns. Unsigned 64-bit
 * C fields (timestamps, ids) are Java longs with the same bits.
 */
public final class KernelData {
    private final MsptiActivityKind kind;
    private final long start;
    private final long end;
    private final long deviceId;
    private final long streamId;
    private final long correlationId;
    private final String type;
    private final String name;

    /** A record with every field given. */
    public KernelData(MsptiActivityKind kind, long start, long end, long deviceId, long streamId, long correlationId, String type, String name) {
        this.kind = kind;
        this.start = start;
        this.end = end;
        this.deviceId = deviceId;
        this.streamId = streamId;
        this.correlationId = correlationId;
        this.type = type;
        this.name = name;
    }

    /** Built by the JNI layer: enums as their C values. */
    KernelData(int kind, long start, long end, long deviceId, long streamId, long correlationId, String type, String name) {
        this(Enums.kind(kind), start, end, deviceId, streamId, correlationId, type, name);
    }

    /** Always KERNEL. */
    public MsptiActivityKind getKind() { return kind; }

    /** Start on the device, ns since the Unix epoch. */
    public long getStart() { return start; }

    /** End on the device, ns since the Unix epoch. */
    public long getEnd() { return end; }

    /** Device. */
    public long getDeviceId() { return deviceId; }

    /** Stream. */
    public long getStreamId() { return streamId; }

    /** Joins the API call that launched it. */
    public long getCorrelationId() { return correlationId; }

    /** Kernel type, e.g. "KERNEL_AIVEC". */
    public String getType() { return type; }

    /** Kernel name. */
    public String getName() { return name; }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof KernelData)) return false;
        KernelData x = (KernelData) o;
        return kind == x.kind
            && start == x.start
            && end == x.end
            && deviceId == x.deviceId
            && streamId == x.streamId
            && correlationId == x.correlationId
            && Objects.equals(type, x.type)
            && Objects.equals(name, x.name);
    }

    @Override
    public int hashCode() {
        return Objects.hash(kind, start, end, deviceId, streamId, correlationId, type, name);
    }

    @Override
    public String toString() {
        return "KernelData[" + "kind=" + kind
            + ", start=" + start
            + ", end=" + end
            + ", deviceId=" + deviceId
            + ", streamId=" + streamId
            + ", correlationId=" + correlationId
            + ", type='" + type + "'"
            + ", name='" + name + "'" + "]";
    }
}

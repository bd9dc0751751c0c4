package org.mspti;

import java.util.Objects;

/**
 * An HCCL operation with its bandwidth (HCCL record).
 *
 * <p>An immutable value owned by Java: it stays valid after the callback returns. Unsigned 64-bit
 * C fields (timestamps, ids) are Java longs with the same bits.
 */
public final class HcclData {
    private final MsptiActivityKind kind;
    private final long start;
    private final long end;
    private final long deviceId;
    private final long streamId;
    private final double bandwidth;
    private final String name;
    private final String commName;

    /** A record with every field given. */
    public HcclData(MsptiActivityKind kind, long start, long end, long deviceId, long streamId, double bandwidth, String name, String commName) {
        this.kind = kind;
        this.start = start;
        this.end = end;
        this.deviceId = deviceId;
        this.streamId = streamId;
        this.bandwidth = bandwidth;
        this.name = name;
        this.commName = commName;
    }

    /** Built by the JNI layer: enums as their C values. */
    HcclData(int kind, long start, long end, long deviceId, long streamId, double bandwidth, String name, String commName) {
        this(Enums.kind(kind), start, end, deviceId, streamId, bandwidth, name, commName);
    }

    /** Always HCCL. */
    public MsptiActivityKind getKind() { return kind; }

    /** Start on the device, ns since the Unix epoch. */
    public long getStart() { return start; }

    /** End on the device, ns since the Unix epoch. */
    public long getEnd() { return end; }

    /** Device. */
    public long getDeviceId() { return deviceId; }

    /** Stream. */
    public long getStreamId() { return streamId; }

    /** GB/s (1 GB = 1e9 bytes); 0 when unknown. */
    public double getBandwidth() { return bandwidth; }

    /** Operation, e.g. "HcclAllReduce". */
    public String getName() { return name; }

    /** Communicator name. */
    public String getCommName() { return commName; }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof HcclData)) return false;
        HcclData x = (HcclData) o;
        return kind == x.kind
            && start == x.start
            && end == x.end
            && deviceId == x.deviceId
            && streamId == x.streamId
            && Double.compare(bandwidth, x.bandwidth) == 0
            && Objects.equals(name, x.name)
            && Objects.equals(commName, x.commName);
    }

    @Override
    public int hashCode() {
        return Objects.hash(kind, start, end, deviceId, streamId, bandwidth, name, commName);
    }

    @Override
    public String toString() {
        return "HcclData[" + "kind=" + kind
            + ", start=" + start
            + ", end=" + end
            + ", deviceId=" + deviceId
            + ", streamId=" + streamId
            + ", bandwidth=" + bandwidth
            + ", name='" + name + "'"
            + ", commName='" + commName + "'" + "]";
    }
}

package org.mspti;

import java.util.Objects;

/**
 * A collective as executed on a device (COMMUNICATION record).
 *
 * <p>An immutable value owned by Java: it stays valid after the callback returns. Unsigned 64-bit
 * C fields (timestamps, ids) are Java longs with the same bits.
 */
public final class CommunicationData {
    private final MsptiActivityKind kind;
    private final MsptiCommunicationDataType dataType;
    private final long count;
    private final long deviceId;
    private final long streamId;
    private final long start;
    private final long end;
    private final String algType;
    private final String name;
    private final String commName;
    private final long correlationId;

    /** A record with every field given. */
    public CommunicationData(MsptiActivityKind kind, MsptiCommunicationDataType dataType, long count, long deviceId, long streamId, long start, long end, String algType, String name, String commName, long correlationId) {
        this.kind = kind;
        this.dataType = dataType;
        this.count = count;
        this.deviceId = deviceId;
        this.streamId = streamId;
        this.start = start;
        this.end = end;
        this.algType = algType;
        this.name = name;
        this.commName = commName;
        this.correlationId = correlationId;
    }

    /** Built by the JNI layer: enums as their C values. */
    CommunicationData(int kind, int dataType, long count, long deviceId, long streamId, long start, long end, String algType, String name, String commName, long correlationId) {
        this(Enums.kind(kind), Enums.dataType(dataType), count, deviceId, streamId, start, end, algType, name, commName, correlationId);
    }

    /** Always COMMUNICATION. */
    public MsptiActivityKind getKind() { return kind; }

    /** Element type. */
    public MsptiCommunicationDataType getDataType() { return dataType; }

    /** Element count. */
    public long getCount() { return count; }

    /** Device. */
    public long getDeviceId() { return deviceId; }

    /** Stream. */
    public long getStreamId() { return streamId; }

    /** Start on the device, ns since the Unix epoch. */
    public long getStart() { return start; }

    /** End on the device, ns since the Unix epoch. */
    public long getEnd() { return end; }

    /** Algorithm. */
    public String getAlgType() { return algType; }

    /** Operation, e.g. "hcom_allReduce_". */
    public String getName() { return name; }

    /** Communicator (group) name. */
    public String getCommName() { return commName; }

    /** Joins the API record of the launch. */
    public long getCorrelationId() { return correlationId; }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof CommunicationData)) return false;
        CommunicationData x = (CommunicationData) o;
        return kind == x.kind
            && dataType == x.dataType
            && count == x.count
            && deviceId == x.deviceId
            && streamId == x.streamId
            && start == x.start
            && end == x.end
            && Objects.equals(algType, x.algType)
            && Objects.equals(name, x.name)
            && Objects.equals(commName, x.commName)
            && correlationId == x.correlationId;
    }

    @Override
    public int hashCode() {
        return Objects.hash(kind, dataType, count, deviceId, streamId, start, end, algType, name, commName, correlationId);
    }

    @Override
    public String toString() {
        return "CommunicationData[" + "kind=" + kind
            + ", dataType=" + dataType
            + ", count=" + count
            + ", deviceId=" + deviceId
            + ", streamId=" + streamId
            + ", start=" + start
            + ", end=" + end
            + ", algType='" + algType + "'"
            + ", name='" + name + "'"
            + ", commName='" + commName + "'"
            + ", correlationId=" + correlationId + "]";
    }
}

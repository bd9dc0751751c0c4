package org.mspti;

import java.util.Objects;

/**
 * One marker record: a mark, or one end of a range, on the host or a device.
 *
 * <p>An immutable value owned by Java: it stays valid after the callback returns. Unsigned 64-bit
 * C fields (timestamps, ids) are Java longs with the same bits.
 */
public final class MarkerData {
    private final MsptiActivityKind kind;
    private final MsptiActivityFlag flag;
    private final MsptiActivitySourceKind sourceKind;
    private final long timestamp;
    private final long id;
    private final MsptiObjectId objectId;
    private final String name;
    private final String domain;

    /** A record with every field given. */
    public MarkerData(MsptiActivityKind kind, MsptiActivityFlag flag, MsptiActivitySourceKind sourceKind, long timestamp, long id, MsptiObjectId objectId, String name, String domain) {
        this.kind = kind;
        this.flag = flag;
        this.sourceKind = sourceKind;
        this.timestamp = timestamp;
        this.id = id;
        this.objectId = objectId;
        this.name = name;
        this.domain = domain;
    }

    /** Built by the JNI layer: enums as their C values. */
    MarkerData(int kind, int flag, int sourceKind, long timestamp, long id, long processId, long threadId,
               long deviceId, long streamId, String name, String domain) {
        this(Enums.kind(kind), Enums.flag(flag), Enums.source(sourceKind), timestamp, id,
             new MsptiObjectId(processId, threadId, deviceId, streamId), name, domain);
    }

    /** Always MARKER. */
    public MsptiActivityKind getKind() { return kind; }

    /** Which half, with or without device. */
    public MsptiActivityFlag getFlag() { return flag; }

    /** Host or device. */
    public MsptiActivitySourceKind getSourceKind() { return sourceKind; }

    /** ns since the Unix epoch. */
    public long getTimestamp() { return timestamp; }

    /** Marker id; a range's start and end share it. */
    public long getId() { return id; }

    /** Process/thread (host) or device/stream (device). */
    public MsptiObjectId getObjectId() { return objectId; }

    /** Message ("" on end and device records). */
    public String getName() { return name; }

    /** Domain ("default" for the non-domain API; "" on end and device records). */
    public String getDomain() { return domain; }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof MarkerData)) return false;
        MarkerData x = (MarkerData) o;
        return kind == x.kind
            && flag == x.flag
            && sourceKind == x.sourceKind
            && timestamp == x.timestamp
            && id == x.id
            && Objects.equals(objectId, x.objectId)
            && Objects.equals(name, x.name)
            && Objects.equals(domain, x.domain);
    }

    @Override
    public int hashCode() {
        return Objects.hash(kind, flag, sourceKind, timestamp, id, objectId, name, domain);
    }

    @Override
    public String toString() {
        return "MarkerData[" + "kind=" + kind
            + ", flag=" + flag
            + ", sourceKind=" + sourceKind
            + ", timestamp=" + timestamp
            + ", id=" + id
            + ", objectId=" + objectId
            + ", name='" + name + "'"
            + ", domain='" + domain + "'" + "]";
    }
}

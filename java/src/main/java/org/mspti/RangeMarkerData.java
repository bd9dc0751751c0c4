package org.mspti;

import java.util.Objects;

/**
 * A range: its start and end records paired (host and device halves separately).
 *
 * <p>An immutable value owned by Java: it stays valid after the callback returns. Unsigned 64-bit
 * C fields (timestamps, ids) are Java longs with the same bits.
 */
public final class RangeMarkerData {
    private final MsptiActivityKind kind;
    private final MsptiActivitySourceKind sourceKind;
    private final long id;
    private final MsptiObjectId objectId;
    private final String name;
    private final String domain;
    private final long start;
    private final long end;

    /** A record with every field given. */
    public RangeMarkerData(MsptiActivityKind kind, MsptiActivitySourceKind sourceKind, long id, MsptiObjectId objectId, String name, String domain, long start, long end) {
        this.kind = kind;
        this.sourceKind = sourceKind;
        this.id = id;
        this.objectId = objectId;
        this.name = name;
        this.domain = domain;
        this.start = start;
        this.end = end;
    }

    /** Built by the JNI layer: enums as their C values. */
    RangeMarkerData(int kind, int sourceKind, long id, long processId, long threadId, long deviceId, long streamId,
                    String name, String domain, long start, long end) {
        this(Enums.kind(kind), Enums.source(sourceKind), id, new MsptiObjectId(processId, threadId, deviceId, streamId),
             name, domain, start, end);
    }

    /** Always MARKER. */
    public MsptiActivityKind getKind() { return kind; }

    /** Host or device half. */
    public MsptiActivitySourceKind getSourceKind() { return sourceKind; }

    /** Range id. */
    public long getId() { return id; }

    /** From the start record. */
    public MsptiObjectId getObjectId() { return objectId; }

    /** From the start record. */
    public String getName() { return name; }

    /** From the start record. */
    public String getDomain() { return domain; }

    /** Start timestamp, ns since the Unix epoch. */
    public long getStart() { return start; }

    /** End timestamp, ns since the Unix epoch. */
    public long getEnd() { return end; }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof RangeMarkerData)) return false;
        RangeMarkerData x = (RangeMarkerData) o;
        return kind == x.kind
            && sourceKind == x.sourceKind
            && id == x.id
            && Objects.equals(objectId, x.objectId)
            && Objects.equals(name, x.name)
            && Objects.equals(domain, x.domain)
            && start == x.start
            && end == x.end;
    }

    @Override
    public int hashCode() {
        return Objects.hash(kind, sourceKind, id, objectId, name, domain, start, end);
    }

    @Override
    public String toString() {
        return "RangeMarkerData[" + "kind=" + kind
            + ", sourceKind=" + sourceKind
            + ", id=" + id
            + ", objectId=" + objectId
            + ", name='" + name + "'"
            + ", domain='" + domain + "'"
            + ", start=" + start
            + ", end=" + end + "]";
    }
}

package org.mspti;

import java.util.Objects;

/** Who a marker belongs to: host process and thread, or device and stream; -1 where not applicable. */
public final class MsptiObjectId {
    private final long processId, threadId, deviceId, streamId;

    /** A value with every field given. */
    public MsptiObjectId(long processId, long threadId, long deviceId, long streamId) {
        this.processId = processId;
        this.threadId = threadId;
        this.deviceId = deviceId;
        this.streamId = streamId;
    }

    /** Process id (host records), else -1. */
    public long getProcessId() { return processId; }
    /** Thread id (host records), else -1. */
    public long getThreadId() { return threadId; }
    /** Device id (device records), else -1. */
    public long getDeviceId() { return deviceId; }
    /** Stream id (device records), else -1. */
    public long getStreamId() { return streamId; }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof MsptiObjectId)) return false;
        MsptiObjectId x = (MsptiObjectId) o;
        return processId == x.processId && threadId == x.threadId && deviceId == x.deviceId && streamId == x.streamId;
    }

    @Override
    public int hashCode() { return Objects.hash(processId, threadId, deviceId, streamId); }

    @Override
    public String toString() {
        return "MsptiObjectId[processId=" + processId + ", threadId=" + threadId + ", deviceId=" + deviceId
            + ", streamId=" + streamId + "]";
    }
}

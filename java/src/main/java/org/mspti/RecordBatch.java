package org.mspti;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A block of records of one kind, as laid out by msPTI: packed little-endian structs (see
 * {@code mspti_activity.h}), {@link #getStride()} bytes apart, read through a read-only direct
 * {@link ByteBuffer}. Zero-copy: the buffer views the library's memory and is valid
 * <b>only during the callback</b>; {@link #copy()} keeps the bytes.
 *
 * <p>Field offsets (bytes from a record's start) are in one nested class per kind ({@link Kernel},
 * {@link Marker}, ...), generated from the record schema ({@code schema/records.py}) into
 * {@link RecordBatchLayouts}. String fields hold addresses of NUL-terminated strings
 * owned by the library for the life of the process: {@link #getString(int, int)} reads them.
 * Unsigned C fields are read with the Java type of the same width (as
 * {@link Integer#toUnsignedLong} where it matters, e.g. device and stream ids of 0xFFFFFFFF = none).
 *
 * <pre>{@code
 * monitor.startBatch(batch -> {
 *     for (int i = 0; i < batch.getCount(); i++) {
 *         long start = batch.getLong(i, RecordBatch.Kernel.START);
 *         long end = batch.getLong(i, RecordBatch.Kernel.END);
 *     }
 * });
 * }</pre>
 */
public final class RecordBatch extends RecordBatchLayouts {
    private final MsptiActivityKind kind;
    private final ByteBuffer buffer;
    private final int count;
    private final int stride;

    /** Built by the JNI layer over the library's memory. */
    RecordBatch(int kind, ByteBuffer buffer, int count, int stride) {
        this.kind = Enums.activityKind(kind);
        this.buffer = buffer.asReadOnlyBuffer().order(ByteOrder.LITTLE_ENDIAN);
        this.count = count;
        this.stride = stride;
    }

    /** Kind of every record. */
    public MsptiActivityKind getKind() { return kind; }

    /** Number of records. */
    public int getCount() { return count; }

    /** Bytes from one record to the next (the struct's size). */
    public int getStride() { return stride; }

    /** The records: read-only, little-endian, direct, {@code count * stride} bytes; valid during the callback only. */
    public ByteBuffer getBuffer() { return buffer; }

    /** 64-bit field at {@code offset} of record {@code index}. */
    public long getLong(int index, int offset) { return buffer.getLong(index * stride + offset); }

    /** 32-bit field at {@code offset} of record {@code index}. */
    public int getInt(int index, int offset) { return buffer.getInt(index * stride + offset); }

    /** double field at {@code offset} of record {@code index}. */
    public double getDouble(int index, int offset) { return buffer.getDouble(index * stride + offset); }

    /** The string a {@code const char *} field at {@code offset} of record {@code index} points to ("" for NULL). */
    public String getString(int index, int offset) { return stringAt(getLong(index, offset)); }

    /** The library-owned string at an address read from a batch ("" for 0). */
    public static String stringAt(long address) { return MsptiNative.stringAt(address); }

    /** A copy of the records in a heap buffer (little-endian), valid after the callback. */
    public ByteBuffer copy() {
        ByteBuffer out = ByteBuffer.allocate(buffer.capacity()).order(ByteOrder.LITTLE_ENDIAN);
        out.put(buffer.duplicate().clear());
        return out.flip();
    }

    @Override
    public String toString() {
        return "RecordBatch[kind=" + kind + ", count=" + count + ", stride=" + stride + "]";
    }
}

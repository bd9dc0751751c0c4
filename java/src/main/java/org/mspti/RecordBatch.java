package org.mspti;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A block of records of one kind, as laid out by msPTI: packed little-endian structs (see
 * {@code mspti_activity.h}), {@link #getStride()} bytes apart. Zero-copy: the accessors read the
 * library's memory, so a batch is valid <b>only during the callback</b>; used afterwards every
 * accessor throws {@link IllegalStateException}. {@link #copy()} keeps the bytes.
 *
 * <p>Field offsets (bytes from a record's start) are in one nested class per kind ({@link Kernel},
 * {@link Marker}, ...), generated from the record schema ({@code schema/records.py}) into
 * {@link RecordBatchLayouts}. String fields hold addresses of NUL-terminated strings owned by the
 * library: {@link #getString(int, int)} reads them. A marker's name (the mstx message) is
 * reclaimed once delivered, so read it during the callback; the other strings live as long as the
 * process.
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
    private final int count;
    private final int stride;
    // The library's memory, valid during the callback only: cleared (by the JNI layer, through
    // expire()) when the callback returns, and never handed out, so that no reference to it can
    // outlive the memory.
    private volatile ByteBuffer buffer;

    /** Built by the JNI layer over the library's memory. */
    RecordBatch(int kind, ByteBuffer buffer, int count, int stride) {
        this.kind = Enums.activityKind(kind);
        this.buffer = buffer.asReadOnlyBuffer().order(ByteOrder.LITTLE_ENDIAN);
        this.count = count;
        this.stride = stride;
    }

    /** Called by the JNI layer when the callback has returned. */
    void expire() { buffer = null; }

    private ByteBuffer live() {
        ByteBuffer b = buffer;
        if (b == null) {
            throw new IllegalStateException("RecordBatch used after its callback returned: it viewed the library's "
                                            + "buffer, which is no longer valid; keep copy() made inside the callback");
        }
        return b;
    }

    /** The records (read-only, little-endian) for the bindings' own decoding; throws once expired. */
    ByteBuffer view() { return live(); }

    /** Whether the batch can still be read (its callback is running). */
    public boolean isValid() { return buffer != null; }

    /** Kind of every record. */
    public MsptiActivityKind getKind() { return kind; }

    /** Number of records. */
    public int getCount() { return count; }

    /** Bytes from one record to the next (the struct's size). */
    public int getStride() { return stride; }

    /**
     * The records as a read-only little-endian buffer of {@code count * stride} bytes: a heap copy
     * (as {@link #copy()}), so it stays valid after the callback. Zero-copy reads go through
     * {@link #getLong}, {@link #getInt}, {@link #getDouble} and {@link #getString}.
     * @throws IllegalStateException after the callback returned
     */
    public ByteBuffer getBuffer() { return copy().asReadOnlyBuffer().order(ByteOrder.LITTLE_ENDIAN); }

    /**
     * 64-bit field at {@code offset} of record {@code index}.
     * @throws IllegalStateException after the callback returned
     */
    public long getLong(int index, int offset) { return live().getLong(index * stride + offset); }

    /**
     * 32-bit field at {@code offset} of record {@code index}.
     * @throws IllegalStateException after the callback returned
     */
    public int getInt(int index, int offset) { return live().getInt(index * stride + offset); }

    /**
     * double field at {@code offset} of record {@code index}.
     * @throws IllegalStateException after the callback returned
     */
    public double getDouble(int index, int offset) { return live().getDouble(index * stride + offset); }

    /**
     * The string a {@code const char *} field at {@code offset} of record {@code index} points to ("" for NULL).
     * @throws IllegalStateException after the callback returned
     */
    public String getString(int index, int offset) { return stringAt(getLong(index, offset)); }

    /** The library-owned string at an address read from a batch ("" for 0). */
    public static String stringAt(long address) { return MsptiNative.stringAt(address); }

    /**
     * A copy of the records in a heap buffer (little-endian), valid after the callback.
     * @throws IllegalStateException after the callback returned
     */
    public ByteBuffer copy() {
        ByteBuffer b = live();
        ByteBuffer out = ByteBuffer.allocate(b.capacity()).order(ByteOrder.LITTLE_ENDIAN);
        out.put(b.duplicate().clear());
        return out.flip();
    }

    @Override
    public String toString() {
        return "RecordBatch[kind=" + kind + ", count=" + count + ", stride=" + stride + "]";
    }
}

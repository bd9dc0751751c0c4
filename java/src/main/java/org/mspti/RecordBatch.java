package org.mspti;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.HashMap;
import java.util.Map;

/**
 * A block of records of one kind, as laid out by msPTI: packed little-endian structs (see
 * {@code mspti_activity.h}), {@link #getStride()} bytes apart. Zero-copy: the accessors read the
 * library's memory, so a batch is valid <b>only during the callback</b>; used afterwards every
 * accessor throws {@link IllegalStateException}. {@link #snapshot()} keeps the records with their
 * strings; {@link #copy()} keeps the bytes only.
 *
 * <p>Field offsets (bytes from a record's start) are in one nested class per kind ({@link Kernel},
 * {@link Marker}, ...), generated from the record schema ({@code schema/records.py}) into
 * {@link RecordBatchLayouts}. String fields hold addresses of NUL-terminated strings:
 * {@link #getString(int, int)} reads them. A marker's name (the mstx message) lies in the same
 * library buffer as its record, so its address means nothing after the callback: read it during
 * the callback, or keep a {@link #snapshot()}.
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
    // A snapshot's strings, by the address its records hold (null for a live batch).
    private final Map<Long, String> texts;

    /** Built by the JNI layer over the library's memory. */
    RecordBatch(int kind, ByteBuffer buffer, int count, int stride) {
        this(Enums.activityKind(kind), buffer, count, stride, null);
    }

    private RecordBatch(MsptiActivityKind kind, ByteBuffer buffer, int count, int stride, Map<Long, String> texts) {
        this.kind = kind;
        this.buffer = buffer.asReadOnlyBuffer().order(ByteOrder.LITTLE_ENDIAN);
        this.count = count;
        this.stride = stride;
        this.texts = texts;
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
    public String getString(int index, int offset) {
        long address = getLong(index, offset);
        if (texts == null) return stringAt(address);
        String text = texts.get(address);
        if (text != null || address == 0) return text != null ? text : "";
        throw new IllegalArgumentException("offset " + offset + " is not a string field of " + kind + " records");
    }

    /**
     * The string at an address read from a batch during its callback ("" for 0). After the
     * callback an address may point to freed or reused memory: use {@link #snapshot()} instead.
     */
    public static String stringAt(long address) { return MsptiNative.stringAt(address); }

    /**
     * An owned copy of the batch, valid after the callback: the records' bytes, and the text of
     * every string field read now, which its {@link #getString} returns.
     * @throws IllegalStateException after the callback returned
     */
    public RecordBatch snapshot() {
        ByteBuffer b = live();
        Map<Long, String> read = new HashMap<>();
        for (int offset : stringOffsets(kind)) {
            for (int i = 0; i < count; i++) {
                long address = b.getLong(i * stride + offset);
                if (texts != null)
                    read.put(address, texts.getOrDefault(address, ""));
                else
                    read.computeIfAbsent(address, RecordBatch::stringAt);
            }
        }
        return new RecordBatch(kind, copy(), count, stride, read);
    }

    /**
     * A copy of the records' bytes in a heap buffer (little-endian), valid after the callback; the
     * string addresses in it are not (see {@link #snapshot()}).
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

package org.mspti;

/**
 * A device stream that mstx markers can be placed on (e.g. {@code org.mspti.vnpu.Stream}): its
 * {@code aclrtStream} handle as a long.
 */
@FunctionalInterface
public interface NativeStream {
    /** The aclrtStream handle (0: none, host-only marker). */
    long nativeHandle();
}

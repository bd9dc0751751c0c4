package org.mspti;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What a Java monitor adds to the native one: it keeps its callbacks reachable while it runs (the
 * director holds only a weak reference to its Java object), keeps running monitors reachable so
 * that neither they nor their callbacks are collected or finalised while the delivery thread may
 * call them, and stops them all at JVM exit. One per {@link Monitor}.
 */
final class MonitorLifecycle {
    // Running monitors: reachable from here while the delivery thread may call their callbacks.
    private static final Set<Monitor> RUNNING = ConcurrentHashMap.newKeySet();
    // Callbacks of a stop() that left a callback running past its timeout and grace: that call may
    // still use them, so they are never released.
    private static final List<Object[]> ABANDONED = Collections.synchronizedList(new ArrayList<>());

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(MonitorLifecycle::stopAllAtExit, "mspti-shutdown"));
    }

    private final Monitor monitor;
    // Strong references to the callbacks, taken once the native start succeeded, dropped after stop().
    private Object[] callbacks;  // guarded by this

    MonitorLifecycle(Monitor monitor) {
        this.monitor = monitor;
    }

    /**
     * After a native start: on success the monitor switched to the new callbacks, so the old ones
     * are released (after the buffer, if this runs inside a callback, whose director may still
     * deliver it). wasRunning: the monitor ran before the native start. A switch whose old callback
     * was still running past the stop timeout and its grace (MSPTI_ERROR_INNER) put the new
     * callbacks in place all the same: they are kept, and the old ones, left running, never released.
     */
    MsptiResult started(boolean wasRunning, MsptiResult result, Object... keep) {
        if (result == MsptiResult.MSPTI_ERROR_INNER && wasRunning && monitor.isRunning()) {
            Object[] old = swap(keep);
            if (old != null) ABANDONED.add(old);
            return result;
        }
        if (result == MsptiResult.MSPTI_SUCCESS) {
            Object[] old = swap(keep);
            RUNNING.add(monitor);
            release(old);
            if (!monitor.isRunning()) dropCallbacks();  // stopped by another thread meanwhile
        }
        return result;
    }

    /** After a native stop: releases the callbacks, unless a call of them was left running. */
    MsptiResult stopped(MsptiResult result) {
        if (result != MsptiResult.MSPTI_SUCCESS) {
            Object[] keep = current();
            if (keep != null) ABANDONED.add(keep);
        }
        dropCallbacks();
        return result;
    }

    private synchronized Object[] swap(Object[] keep) {
        Object[] old = callbacks;
        callbacks = keep;
        return old;
    }

    private synchronized Object[] current() {
        return callbacks;
    }

    private void dropCallbacks() {
        Object[] keep = swap(null);
        RUNNING.remove(monitor);
        release(keep);
    }

    // From inside a callback its director is still on the delivery thread's stack: the native side
    // keeps the callbacks until the buffer is done.
    private static void release(Object[] keep) {
        if (keep != null) MsptiNative.keepUntilBufferEnd(keep);
    }

    // At JVM exit: the native stop of every monitor, all within one stop timeout, after which the
    // delivery thread has left the JVM. Bounded natively: a callback that never returns (or one
    // that called System.exit() and waits for this hook) cannot hold the exit.
    private static void stopAllAtExit() {
        if (!RUNNING.isEmpty()) Monitor.stopAll();
    }
}

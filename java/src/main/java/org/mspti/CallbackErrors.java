package org.mspti;

import java.util.function.BiConsumer;

/**
 * Where exceptions thrown by callbacks go. A callback that throws does not stop delivery: the
 * exception is reported here, counted in {@link MonitorStats#getCallbackErrors()}, and the next
 * record is delivered as usual.
 *
 * <p>By default the exception goes to the delivery thread's uncaught-exception handler (which, unless
 * the application installed its own with {@link Thread#setDefaultUncaughtExceptionHandler}, prints
 * {@code Exception in thread "mspti-delivery"} with the class, message and stack trace to
 * {@code System.err}). {@link #setHandler} replaces that, e.g. to log or collect them.
 */
public final class CallbackErrors {
    private static volatile BiConsumer<Object, Throwable> handler;

    private CallbackErrors() {}

    /**
     * Installs {@code handler(callback, exception)} for exceptions thrown by callbacks (null restores
     * the default). It runs on the delivery thread; an exception it throws is ignored.
     */
    public static void setHandler(BiConsumer<Object, Throwable> handler) {
        CallbackErrors.handler = handler;
    }

    /** Called by the JNI layer with the callback object (may be null) and its exception. */
    static void report(Object callback, Throwable error) {
        BiConsumer<Object, Throwable> h = handler;
        if (h != null) {
            h.accept(callback, error);
            return;
        }
        Thread t = Thread.currentThread();
        t.getUncaughtExceptionHandler().uncaughtException(t, error);
    }
}

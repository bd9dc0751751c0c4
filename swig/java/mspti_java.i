/*
 * mspti_java.i: the Java bindings (package org.mspti, JNI library libmspti_java.so). Java-specific
 * glue only; the API comes from the language-neutral ../monitor.i and ../mstx.i.
 *
 * - Records are immutable Java classes generated from the record schema (schema/records.py), as is
 *   their decoding; batches and stats are hand-written (java/src/main/java/org/mspti). All are owned
 *   copies, valid after the callback. Record callbacks are handed a run of records at a time, built
 *   in Java (RecordRun, java_record_runs.h) and counted by the monitor as any per-record callback;
 *   MstxMonitor's mark and range pair gets each record from the thread's RecordDecoder
 *   (java_record_decoder.h); batches and stats are built in JNI.
 * - Enums are real Java enums with their C values (%javaconst(1) + enums.swg); uint64_t is long.
 * - Names are lowerCamelCase (onRecord, startBatch, flushAll, getDeviceId).
 * - The monitors keep a strong reference to their callbacks while running (the director only holds
 *   a weak one) and accept lambdas (java.util.function.Consumer); see the javacode below.
 */
%module(directors="1") MsptiNative

%include <enums.swg>
%include "java_plumbing.i"
%javaconst(1);
%include <stdint.i>
%apply int64_t { uint64_t };
%apply const int64_t & { const uint64_t & };

%{
#include "java_glue.h"
#include "java_batch_lifetime.h"
%}

/* The lists of generated kinds and records (schema/records.py), invoked below. */
%include "schema_java.i"

/* The module class and its JNI class are internal: users see the monitors, records and Mstx. */
%pragma(java) moduleclassmodifiers="final class"
%pragma(java) jniclassclassmodifiers="final class"
%pragma(java) jniclasscode=%{
  static {
    NativeLoader.load("mspti_java");
  }
%}

/* ---- names: lowerCamelCase methods and fields, constants in upper case. */
%rename("%(lowercamelcase)s", %$isfunction) "";
%rename("%(lowercamelcase)s", %$isvariable) "";
%rename(MAX_OPEN_RANGES) mspti::MstxMonitor::kMaxOpenRanges;
%rename(DEFAULT_STOP_TIMEOUT_MS) mspti::Monitor::kDefaultStopTimeoutMs;
%rename(MAX_STOP_TIMEOUT_MS) mspti::Monitor::kMaxStopTimeoutMs;

/* ---- records, batches, stats: hand-written Java value classes built by java_glue.h. */
%define MSPTI_JAVA_VALUE(CTYPE, JTYPE)
%ignore CTYPE;
%typemap(jni) const CTYPE &, CTYPE "jobject"
%typemap(jtype) const CTYPE &, CTYPE "JTYPE"
%typemap(jstype) const CTYPE &, CTYPE "JTYPE"
%typemap(javain) const CTYPE & "$javainput"
%typemap(in) const CTYPE & ($*1_ltype temp) %{ (void)$input; $1 = &temp; %}
%typemap(javadirectorin) const CTYPE & "$jniinput"
%typemap(directorin, descriptor="Lorg/mspti/" #JTYPE ";", noblock=1) const CTYPE & {
  $input = mspti_java::record_arg(jenv, $1, swigjobj);
  Swig::LocalRefGuard $1_refguard(jenv, $input);
}
%typemap(out) CTYPE %{ $result = mspti_java::to_java(jenv, $1); %}
%typemap(javaout) CTYPE { return $jnicall; }
%enddef
/* Records of per-record directors (MstxMonitor's mark + range pair; the other record callbacks are
 * handed runs of records, RecordRun): the upcall passes the thread's RecordDecoder, which builds
 * the record in Java (java_record_decoder.h). */
%typemap(directorin, descriptor="Lorg/mspti/RecordDecoder;") jrecorddecoder ""  /* the upcall's parameter */
%define MSPTI_JAVA_RECORD(CTYPE, JTYPE, DECODE)
MSPTI_JAVA_VALUE(CTYPE, JTYPE)
%typemap(jni) const CTYPE & "jrecorddecoder"
%typemap(jtype) const CTYPE & "RecordDecoder"
%typemap(javadirectorin) const CTYPE & "$jniinput.DECODE()"
/* descriptor: the overridden Java method's parameter (JTYPE). */
%typemap(directorin, descriptor="Lorg/mspti/" #JTYPE ";", noblock=1) const CTYPE & {
  $input = mspti_java::record_decoder_arg(jenv, $1, swigjobj);
}
%enddef
/* Records of the simple kinds' callbacks: handed over a run at a time by RecordRun, in Java, never
 * by a director upcall (the generated upcall passes null and is not called). */
%define MSPTI_JAVA_RUN_RECORD(CTYPE, JTYPE)
MSPTI_JAVA_VALUE(CTYPE, JTYPE)
%typemap(directorin, descriptor="Lorg/mspti/" #JTYPE ";", noblock=1) const CTYPE & {
  $input = nullptr;
  (void)$1;
}
%enddef
MSPTI_JAVA_RECORD_VALUES
MSPTI_JAVA_VALUE(mspti::RecordBatch, RecordBatch)
/* A batch expires when its callback returns (java_batch_lifetime.h). */
%typemap(directorin, descriptor="Lorg/mspti/RecordBatch;", noblock=1) const mspti::RecordBatch & {
  $input = mspti_java::record_arg(jenv, $1, swigjobj);
  mspti_java::BatchExpiry $1_expiry(jenv, $input);
}
MSPTI_JAVA_VALUE(mspti::MonitorStats, MonitorStats)
MSPTI_JAVA_VALUE(mspti::DeviceStats, DeviceStats)
%ignore mspti::MsptiObjectId;

/* ---- a Java exception in a callback: reported (CallbackErrors), counted, delivery goes on. */
%feature("director:except") %{
  if (jenv->ExceptionCheck()) {
    mspti_java::report_callback_error(jenv, swigjobj);
  }
%}

/* ---- callbacks: abstract classes with an abstract method to override. */
%define MSPTI_JAVA_CALLBACK(CLASS, METHOD)
%typemap(javaclassmodifiers) mspti::CLASS "public abstract class"
%javamethodmodifiers mspti::CLASS::METHOD "public abstract"
%typemap(javaout) void mspti::CLASS::METHOD ";"
%enddef
MSPTI_JAVA_RECORD_CALLBACKS
MSPTI_JAVA_CALLBACK(MarkCallback, on_record)
MSPTI_JAVA_CALLBACK(RangeCallback, on_record)
MSPTI_JAVA_CALLBACK(BatchCallback, on_batch)

/* ---- monitors: the native start/stop are private; Java adds keep-alive, lambdas, AutoCloseable. */
%typemap(javainterfaces) mspti::Monitor "AutoCloseable"
%rename(stopNative) mspti::Monitor::stop;
%rename(setBufferSizeNative) mspti::Monitor::set_buffer_size;
%javamethodmodifiers mspti::Monitor::set_buffer_size "private";
%javamethodmodifiers mspti::Monitor::stop "final";
%typemap(javacode) mspti::Monitor %{
  // Keeps the callbacks and the running monitor reachable, and stops it at JVM exit.
  private final MonitorLifecycle lifecycle = new MonitorLifecycle(this);

  // After a native start (see MonitorLifecycle.started).
  final MsptiResult started(boolean wasRunning, MsptiResult result, Object... keep) {
    return lifecycle.started(wasRunning, result, keep);
  }

  /**
   * Stops collecting. Returns after every record produced before the call was delivered, or
   * once the stop timeout has passed (then a callback call in progress is waited for 5 s more,
   * and one still running is left running: MSPTI_ERROR_INNER, the monitor stopped all the same).
   * Safe from any thread, from inside this monitor's callback, and when not running (then a
   * no-op returning MSPTI_SUCCESS). Releases the monitor's reference to its callbacks.
   */
  public MsptiResult stop() {
    return lifecycle.stopped(stopNative());
  }

  /** Stops the monitor and frees its native part; the object is unusable afterwards. */
  @Override
  public void close() {
    stop();
    delete();
  }

  /**
   * Sets the size of each activity buffer in MB (1 to 256; the default is 8). Process-wide. Applies
   * when collection next starts: called while a monitor runs, it logs a warning (System.Logger
   * "org.mspti") and the running monitors keep the current size until all have stopped.
   * @return MSPTI_SUCCESS, or MSPTI_ERROR_INVALID_PARAMETER outside 1..256.
   */
  public static MsptiResult setBufferSize(long megabytes) {
    boolean running = anyRunning();
    MsptiResult result = setBufferSizeNative(megabytes);
    if (running && result == MsptiResult.MSPTI_SUCCESS) {
      System.getLogger("org.mspti").log(System.Logger.Level.WARNING,
          "setBufferSize: monitors are running; " + megabytes + " MB applies when collection next starts");
    }
    return result;
  }

  /** The reason the calling thread's last failing Monitor call failed ("" if none). */
  public static String lastErrorMessage() {
    return MsptiNative.lastErrorMessage();
  }

  /**
   * The device-channel counters of the libmspti.so the monitors run on: what kernel, HCCL and
   * communication records were read from, and the device records that gave none. Not available
   * (all zero) on a libmspti.so without msptiExtDeviceGetStats (msPTI's own).
   */
  public static DeviceStats deviceStats() {
    return MsptiNative.deviceStats();
  }

  static MsptiResult invalid() {
    return MsptiResult.MSPTI_ERROR_INVALID_PARAMETER;
  }
%}

%define MSPTI_JAVA_MONITOR(MONITOR, CALLBACK, RECORD, KIND)
%rename(startNative) mspti::MONITOR::start;
%rename(startBatchNative) mspti::MONITOR::start_batch;
%javamethodmodifiers mspti::MONITOR::start "private";
%javamethodmodifiers mspti::MONITOR::start_batch "private";
%typemap(javacode) mspti::MONITOR %{
  /**
   * Starts delivering KIND records to {@code callback}, one call per record, on the delivery
   * thread. The monitor keeps the callback alive until stop().
   * On a running monitor it switches to {@code callback}, as msPTI does.
   * @return MSPTI_SUCCESS; MSPTI_ERROR_INVALID_PARAMETER if callback is null (nothing changes).
   */
  public MsptiResult start(CALLBACK callback) {
    if (callback == null) return started(isRunning(), startNative(null));
    RecordRun run = RecordRuns.of(callback);  // records built in Java, a run at a time
    return started(isRunning(), MsptiNative.startRecordRun(this, run), run, callback);
  }

  /**
   * Starts delivering KIND records to a function, e.g. {@code monitor.start(data -> queue.add(data))}.
   * @return as {@link #start(CALLBACK)}; MSPTI_ERROR_INVALID_PARAMETER for null.
   */
  public MsptiResult start(java.util.function.Consumer<RECORD> callback) {
    return start(callback == null ? null : new CALLBACK() {
      @Override
      public void onRecord(RECORD data) {
        callback.accept(data);
      }

      @Override
      public String toString() {
        return callback.toString();
      }
    });
  }

  /**
   * Starts delivering KIND records in blocks (zero-copy views, see {@link RecordBatch}); switches a
   * running monitor to it.
   * @return MSPTI_SUCCESS; MSPTI_ERROR_INVALID_PARAMETER if callback is null (nothing changes).
   */
  public MsptiResult startBatch(BatchCallback callback) {
    return started(isRunning(), startBatchNative(callback), callback);
  }

  /** {@link #startBatch(BatchCallback)} with a function. */
  public MsptiResult startBatch(java.util.function.Consumer<RecordBatch> callback) {
    return startBatch(BatchCallback.of(callback));
  }
%}
%enddef
MSPTI_JAVA_RECORD_MONITORS

%rename(startNative) mspti::MstxMonitor::start;
%rename(startBatchNative) mspti::MstxMonitor::start_batch;
%rename(enableDomainNative) mspti::MstxMonitor::enable_domain;
%rename(disableDomainNative) mspti::MstxMonitor::disable_domain;
%javamethodmodifiers mspti::MstxMonitor::start "private";
%javamethodmodifiers mspti::MstxMonitor::start_batch "private";
%javamethodmodifiers mspti::MstxMonitor::enable_domain "private";
%javamethodmodifiers mspti::MstxMonitor::disable_domain "private";
%typemap(javacode) mspti::MstxMonitor %{
  /**
   * Starts delivering marks to {@code mark} and paired ranges to {@code range}; either may be null.
   * The monitor keeps both alive until stop(). On a running monitor it switches to these callbacks.
   * @return MSPTI_SUCCESS.
   */
  public MsptiResult start(MarkCallback mark, RangeCallback range) {
    if (mark != null && range == null) {  // marks alone: records built in Java, a run at a time (MarkRun)
      RecordRun run = new MarkRun(mark);
      return started(isRunning(), MsptiNative.startRecordRun(this, run), run, mark);
    }
    return started(isRunning(), startNative(mark, range), mark, range);  // ranges are paired natively
  }

  /** {@link #start(MarkCallback, RangeCallback)} with functions (either may be null). */
  public MsptiResult start(java.util.function.Consumer<MarkerData> mark,
                           java.util.function.Consumer<RangeMarkerData> range) {
    return start(MarkCallback.of(mark), RangeCallback.of(range));
  }

  /** Marks only: {@code start(mark, (RangeCallback) null)}. */
  public MsptiResult startMarks(java.util.function.Consumer<MarkerData> mark) {
    return mark == null ? invalid() : start(MarkCallback.of(mark), null);
  }

  /** Ranges only: {@code start((MarkCallback) null, range)}. */
  public MsptiResult startRanges(java.util.function.Consumer<RangeMarkerData> range) {
    return range == null ? invalid() : start(null, RangeCallback.of(range));
  }

  /** Starts delivering blocks of msptiActivityMarker records (see {@link RecordBatch}). */
  public MsptiResult startBatch(BatchCallback callback) {
    return started(isRunning(), startBatchNative(callback), callback);
  }

  /** {@link #startBatch(BatchCallback)} with a function. */
  public MsptiResult startBatch(java.util.function.Consumer<RecordBatch> callback) {
    return startBatch(BatchCallback.of(callback));
  }

  /**
   * Turns collection of the domain with exactly this name back on ("default" = the non-domain API).
   * @return MSPTI_SUCCESS, or MSPTI_ERROR_INVALID_PARAMETER for a null or empty name or one of 255
   *         characters or more.
   */
  public MsptiResult enableDomain(String name) {
    return name == null ? invalid() : enableDomainNative(name);
  }

  /** Turns collection of a domain off, now and for domains created later. As enableDomain(). */
  public MsptiResult disableDomain(String name) {
    return name == null ? invalid() : disableDomainNative(name);
  }
%}

/* Functions for the callback classes (Consumer -> director). */
%define MSPTI_JAVA_OF(CALLBACK, RECORD, METHOD)
%typemap(javacode) mspti::CALLBACK %{
  /** A CALLBACK calling {@code fn} (null for null). */
  public static CALLBACK of(java.util.function.Consumer<RECORD> fn) {
    return fn == null ? null : new CALLBACK() {
      @Override
      public void METHOD(RECORD data) {
        fn.accept(data);
      }

      @Override
      public String toString() {
        return fn.toString();
      }
    };
  }
%}
%enddef
MSPTI_JAVA_OF(MarkCallback, MarkerData, onRecord)
MSPTI_JAVA_OF(RangeCallback, RangeMarkerData, onRecord)
MSPTI_JAVA_OF(BatchCallback, RecordBatch, onBatch)

/* ---- mstx: streams and domains are opaque handles (long); org.mspti.Mstx is the Java API. */
%typemap(jni) aclrtStream, mstxDomainHandle_t "jlong"
%typemap(jtype) aclrtStream, mstxDomainHandle_t "long"
%typemap(jstype) aclrtStream, mstxDomainHandle_t "long"
%typemap(javain) aclrtStream, mstxDomainHandle_t "$javainput"
%typemap(javaout) mstxDomainHandle_t { return $jnicall; }
%typemap(in) aclrtStream %{ $1 = reinterpret_cast<aclrtStream>(static_cast<intptr_t>($input)); %}
%typemap(in) mstxDomainHandle_t %{ $1 = reinterpret_cast<mstxDomainHandle_t>(static_cast<intptr_t>($input)); %}
%typemap(out) mstxDomainHandle_t %{ $result = static_cast<jlong>(reinterpret_cast<intptr_t>($1)); %}
%feature("compactdefaultargs");

%include "../monitor.i"
%include "../mstx.i"

/* From the binding header (monitor_binding.h, included by java_glue.h): per-record callbacks are
 * handed a run of records at a time, built in Java (RecordRun) and counted by the monitor. */
%feature("director") mspti::RecordRunCallback;
%typemap(javaclassmodifiers) mspti::RecordRunCallback "abstract class"
%javamethodmodifiers mspti::RecordRunCallback::on_run "public abstract"
%typemap(javaout) void mspti::RecordRunCallback::on_run ";"
namespace mspti {
class RecordRunCallback {
public:
    virtual ~RecordRunCallback();
    virtual void on_run(const RecordBatch &run) = 0;
};
MsptiResult start_record_run(Monitor &monitor, RecordRunCallback *callback);
bool record_run_live();
void record_run_tally(uint64_t handed, uint64_t passed, uint64_t errors);
}

%inline %{
namespace mspti_java {
/** A monitor's callbacks let go: kept until the buffer is done when called from a callback. */
void keep_until_buffer_end(jobject callbacks) {
  JNIEnv *env = nullptr;
  if (types().vm != nullptr && types().vm->GetEnv(reinterpret_cast<void **>(&env), JNI_VERSION_1_8) == JNI_OK)
    delivery_hooks().keep_until_buffer_end(env, callbacks);
}
/** The NUL-terminated string at a library-owned address of a batch record ("" for 0). */
const char *string_at(int64_t address) {
  return address != 0 ? reinterpret_cast<const char *>(static_cast<intptr_t>(address)) : "";
}
}
%}

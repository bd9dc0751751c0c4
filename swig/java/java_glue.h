// java_glue.h: the JNI side of the Java bindings (org.mspti), used by mspti_java.i.
//
// - JNI_OnLoad caches the classes and constructors JNI builds (RecordBatch, MonitorStats) and
//   installs the delivery-thread hooks (JNI_OnLoad, at the end).
// - Records reach Java as owned, immutable Java objects (valid after the callback), built in Java:
//   the per-record callbacks are handed runs of records that Java decodes from the library's
//   buffer, with a per-run table of their strings (java_record_runs.h, org.mspti.RecordRun);
//   MstxMonitor's pair of mark and range callbacks gets each record from the thread's
//   RecordDecoder (java_record_decoder.h). Batches and stats are built here.
// - The delivery thread is attached to the JVM once, as a daemon named "mspti-delivery", and
//   detached when it ends; a Java shutdown hook waits for that before the VM goes away.
// - A Java exception escaping a callback is handed to org.mspti.CallbackErrors (class, message,
//   stack trace), then mspti::CallbackErrorReported makes the monitor count it and go on.
#ifndef MSPTI_SWIG_JAVA_GLUE_H
#define MSPTI_SWIG_JAVA_GLUE_H

#include <jni.h>
#include <pthread.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "monitor_binding.h"
#include "mspti/monitor_types.h"

namespace mspti_java {

/** Classes and constructors cached at JNI_OnLoad (global references). */
struct JavaTypes {
    JavaVM *vm = nullptr;
    jclass batch = nullptr, stats = nullptr, device_stats = nullptr, errors = nullptr;
    jmethodID batch_ctor = nullptr, stats_ctor = nullptr, device_stats_ctor = nullptr;
    jmethodID report = nullptr;
};

inline JavaTypes &types() {
    static JavaTypes t;
    return t;
}

/** Looks up a class and one of its constructors or static methods; false (exception pending) if missing. */
inline bool cache_class(JNIEnv *env, const char *name, jclass *cls) {
    jclass local = env->FindClass(name);
    if (local == nullptr) return false;
    *cls = static_cast<jclass>(env->NewGlobalRef(local));
    env->DeleteLocalRef(local);
    return *cls != nullptr;
}

// ---- strings ------------------------------------------------------------------------------------

/**
 * A Java String from the UTF-8 bytes text[0, size) (NUL-terminated at size); invalid sequences
 * become U+FFFD (NewStringUTF would reject them, and reads modified UTF-8).
 */
inline jstring new_string(JNIEnv *env, const char *text, size_t size) {
    bool ascii = true;
    for (size_t i = 0; i < size; ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c == 0 || c >= 0x80) {
            ascii = false;
            break;
        }
    }
    if (ascii) return env->NewStringUTF(text);
    std::vector<jchar> out;
    out.reserve(size);
    const auto *p = reinterpret_cast<const unsigned char *>(text);
    const unsigned char *end = p + size;
    while (p < end) {
        uint32_t c = *p;
        size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
        bool ok = n != 0 && static_cast<size_t>(end - p) >= n;
        uint32_t cp = n == 1 ? c : n == 2 ? (c & 0x1F) : n == 3 ? (c & 0x0F) : (c & 0x07);
        for (size_t i = 1; ok && i < n; ++i) {
            ok = (p[i] & 0xC0) == 0x80;
            cp = (cp << 6) | (p[i] & 0x3F);
        }
        static constexpr uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
        if (!ok || cp < kMin[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
            out.push_back(0xFFFD);
            ++p;
            continue;
        }
        p += n;
        if (cp >= 0x10000) {
            cp -= 0x10000;
            out.push_back(static_cast<jchar>(0xD800 + (cp >> 10)));
            out.push_back(static_cast<jchar>(0xDC00 + (cp & 0x3FF)));
        } else {
            out.push_back(static_cast<jchar>(cp));
        }
    }
    return env->NewString(out.data(), static_cast<jsize>(out.size()));
}

// ---- exceptions in callbacks --------------------------------------------------------------------

/**
 * The pending Java exception of a callback (or of building its argument): handed to
 * org.mspti.CallbackErrors.report(callback, throwable), which prints or forwards it; then
 * mspti::CallbackErrorReported for the monitor to count. `callback` (NULL, or the director's local
 * reference to its Java object, which the generated code would delete after a normal return) is
 * deleted here: the delivery thread stays attached, so a leaked local reference would never be freed.
 */
[[noreturn]] inline void report_callback_error(JNIEnv *env, jobject callback) {
    jthrowable error = env->ExceptionOccurred();
    env->ExceptionClear();
    const JavaTypes &t = types();
    if (error != nullptr && t.errors != nullptr) {
        env->CallStaticVoidMethod(t.errors, t.report, callback, error);
        if (env->ExceptionCheck()) env->ExceptionClear();  // the reporter itself failed: nothing more to do
    }
    if (error != nullptr) env->DeleteLocalRef(error);
    if (callback != nullptr) env->DeleteLocalRef(callback);
    throw mspti::CallbackErrorReported();
}

// ---- records -> Java ----------------------------------------------------------------------------

inline jlong j(uint64_t v) { return static_cast<jlong>(v); }  // two's complement, as Java's long
template <typename E>
inline jint e(E v) {
    return static_cast<jint>(v);
}

}  // namespace mspti_java

#include "java_record_decoder.h"  // per-record callbacks of MstxMonitor with ranges: records built in Java
#include "java_record_runs.h"  // the other per-record callbacks: blocks decoded in Java

namespace mspti_java {

/** A batch: a direct ByteBuffer over the library's memory (zero-copy; made read-only and LE in Java). */
inline jobject to_java(JNIEnv *env, const mspti::RecordBatch &b) {
    const JavaTypes &t = types();
    jobject buffer = env->NewDirectByteBuffer(const_cast<void *>(b.data), static_cast<jlong>(b.size_bytes()));
    if (buffer == nullptr) return nullptr;
    jobject r = env->NewObject(t.batch, t.batch_ctor, e(b.kind), buffer, static_cast<jint>(b.count),
                               static_cast<jint>(b.stride));
    env->DeleteLocalRef(buffer);
    return r;
}

inline jobject to_java(JNIEnv *env, const mspti::MonitorStats &s) {
    const JavaTypes &t = types();
    return env->NewObject(t.stats, t.stats_ctor, j(s.delivered), j(s.callback_errors), j(s.unpaired_dropped),
                          j(s.dropped));
}

inline jobject to_java(JNIEnv *env, const mspti::DeviceStats &s) {
    const JavaTypes &t = types();
    return env->NewObject(t.device_stats, t.device_stats_ctor, static_cast<jboolean>(s.available), j(s.bytes),
                          j(s.records), j(s.skipped), j(s.malformed), j(s.unmatched), j(s.read_errors),
                          j(s.short_flushes));
}

/** A record argument of a director call; reports and throws if it could not be built. */
template <typename T>
inline jobject record_arg(JNIEnv *env, const T &value, jobject callback) {
    jobject r = to_java(env, value);
    if (r == nullptr) report_callback_error(env, callback);
    return r;
}

// ---- the delivery thread ------------------------------------------------------------------------

/**
 * The binding's delivery-thread hooks: the thread is attached to the JVM once (daemon
 * "mspti-delivery") and detached when it ends. They also keep the callbacks a monitor let go of
 * from inside a callback (stop() or start() there): their director may still be on the delivery
 * thread's stack, so they are kept, as global references, until the buffer is done.
 */
class JavaDeliveryThreadHooks final : public mspti::DeliveryThreadHooks {
public:
    void on_thread_start() override {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            thread_ = pthread_self();
            alive_ = true;
        }
        JNIEnv *env = nullptr;
        JavaVMAttachArgs args{JNI_VERSION_1_8, const_cast<char *>("mspti-delivery"), nullptr};
        attached_ = types().vm->AttachCurrentThreadAsDaemon(reinterpret_cast<void **>(&env), &args) == JNI_OK;
    }

    void on_thread_end() override {
        release_kept();  // while still attached
        if (attached_) {
            JNIEnv *env = nullptr;
            if (types().vm->GetEnv(reinterpret_cast<void **>(&env), JNI_VERSION_1_8) == JNI_OK) {
                RecordDecoder::release_thread(env);
            }
            attached_ = false;
            types().vm->DetachCurrentThread();
        }
        std::lock_guard<std::mutex> lock(mutex_);
        alive_ = false;
    }

    void on_buffer_end() override { release_kept(); }

    /** On the delivery thread: keeps `callbacks` until the buffer is done. Elsewhere nothing. */
    void keep_until_buffer_end(JNIEnv *env, jobject callbacks) {
        if (callbacks == nullptr || !on_delivery_thread()) return;
        if (jobject ref = env->NewGlobalRef(callbacks)) kept_.push_back(ref);
    }

private:
    bool on_delivery_thread() {
        std::lock_guard<std::mutex> lock(mutex_);
        return alive_ && pthread_equal(thread_, pthread_self());
    }

    void release_kept() {
        if (kept_.empty()) return;
        JNIEnv *env = nullptr;
        if (types().vm->GetEnv(reinterpret_cast<void **>(&env), JNI_VERSION_1_8) == JNI_OK)
            for (jobject ref : kept_) env->DeleteGlobalRef(ref);
        kept_.clear();
    }

    std::mutex mutex_;
    pthread_t thread_{};
    bool alive_ = false;
    bool attached_ = false;  // delivery thread only
    std::vector<jobject> kept_;  // delivery thread only
};

inline JavaDeliveryThreadHooks &delivery_hooks() {
    static auto *hooks = new JavaDeliveryThreadHooks;  // outlives every monitor
    return *hooks;
}

/** Caches the Java classes; 0 on success, -1 with a pending exception. */
inline int on_load(JavaVM *vm, JNIEnv *env) {
    JavaTypes &t = types();
    t.vm = vm;
    struct Ctor {
        const char *cls;
        jclass *slot;
        jmethodID *id;
        const char *sig;
    } ctors[] = {
        {"org/mspti/RecordBatch", &t.batch, &t.batch_ctor, "(ILjava/nio/ByteBuffer;II)V"},
        {"org/mspti/MonitorStats", &t.stats, &t.stats_ctor, "(JJJJ)V"},
        {"org/mspti/DeviceStats", &t.device_stats, &t.device_stats_ctor, "(ZJJJJJJJ)V"},
    };
    for (const Ctor &c : ctors) {
        if (!cache_class(env, c.cls, c.slot)) return -1;
        *c.id = env->GetMethodID(*c.slot, "<init>", c.sig);
        if (*c.id == nullptr) return -1;
    }
    if (!RecordDecoder::on_load(env)) return -1;
    if (!cache_class(env, "org/mspti/CallbackErrors", &t.errors)) return -1;
    t.report = env->GetStaticMethodID(t.errors, "report", "(Ljava/lang/Object;Ljava/lang/Throwable;)V");
    if (t.report == nullptr) return -1;
    mspti::set_delivery_thread_hooks(&delivery_hooks());
    return 0;
}

}  // namespace mspti_java

extern "C" JNIEXPORT jint JNICALL JNI_OnLoad(JavaVM *vm, void *) {
    JNIEnv *env = nullptr;
    if (vm->GetEnv(reinterpret_cast<void **>(&env), JNI_VERSION_1_8) != JNI_OK) return JNI_ERR;
    return mspti_java::on_load(vm, env) == 0 ? JNI_VERSION_1_8 : JNI_ERR;
}

#endif  // MSPTI_SWIG_JAVA_GLUE_H

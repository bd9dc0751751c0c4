// java_glue.h: the JNI side of the Java bindings (org.mspti), used by mspti_java.i.
//
// - JNI_OnLoad caches the classes and constructors of the hand-written Java value classes
//   (KernelData, MarkerData, ..., RecordBatch, MonitorStats) and installs the delivery-thread hooks.
// - Records reach Java as owned, immutable Java objects built here from the C++ values (valid after
//   the callback). Strings go through a small per-thread cache of global references: record names
//   repeat, so most records allocate no String at all.
// - The delivery thread is attached to the JVM once, as a daemon named "mspti-delivery", and
//   detached when it ends; a Java shutdown hook waits for that before the VM goes away.
// - A Java exception escaping a callback is handed to org.mspti.CallbackErrors (class, message,
//   stack trace), then mspti::CallbackErrorReported makes the monitor count it and go on.
#ifndef MSPTI_SWIG_JAVA_GLUE_H
#define MSPTI_SWIG_JAVA_GLUE_H

#include <jni.h>
#include <pthread.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "mspti/monitor.h"
#include "mspti/monitor_types.h"

namespace mspti_java {

/** Classes and constructors cached at JNI_OnLoad (global references). */
struct JavaTypes {
    JavaVM *vm = nullptr;
    jclass kernel = nullptr, hccl = nullptr, communication = nullptr, marker = nullptr, range = nullptr;
    jclass object_id = nullptr, batch = nullptr, stats = nullptr, errors = nullptr;
    jmethodID kernel_ctor = nullptr, hccl_ctor = nullptr, communication_ctor = nullptr, marker_ctor = nullptr;
    jmethodID range_ctor = nullptr, object_id_ctor = nullptr, batch_ctor = nullptr, stats_ctor = nullptr;
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

/** A Java String from UTF-8 bytes; invalid sequences become U+FFFD (NewStringUTF would reject them). */
inline jstring new_string(JNIEnv *env, const std::string &s) {
    bool ascii = true;
    for (unsigned char c : s) {
        if (c == 0 || c >= 0x80) {
            ascii = false;
            break;
        }
    }
    if (ascii) return env->NewStringUTF(s.c_str());
    std::vector<jchar> out;
    out.reserve(s.size());
    const auto *p = reinterpret_cast<const unsigned char *>(s.data());
    const unsigned char *end = p + s.size();
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

/**
 * Interned Java strings for the record strings a thread converts: a direct-mapped table of global
 * references (bounded: 256 entries per thread), so a repeated kernel name or domain costs a hash
 * and a compare instead of a String allocation. Java Strings are immutable, so sharing is safe.
 * Returns a reference the caller must not delete (a global one) or a local one (`*local` = true);
 * `*evicted` is a global reference the caller deletes after use (or NULL).
 */
class StringCache {
public:
    jstring get(JNIEnv *env, const std::string &s, bool *local, jstring *evicted) {
        *local = false;
        *evicted = nullptr;
        if (s.size() > 128) {  // long strings are rare: not worth caching
            *local = true;
            return new_string(env, s);
        }
        uint64_t h = 1469598103934665603ull;  // FNV-1a
        for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
        Entry &e = entries_[h & (kSize - 1)];
        if (e.ref != nullptr && e.hash == h && e.key == s) return e.ref;
        jstring fresh = new_string(env, s);
        if (fresh == nullptr) return nullptr;
        auto global = static_cast<jstring>(env->NewGlobalRef(fresh));
        env->DeleteLocalRef(fresh);
        if (global == nullptr) return nullptr;
        // The evicted string may be another argument of the same record: the caller deletes it
        // once the record is built.
        *evicted = e.ref;
        e.ref = global;
        e.hash = h;
        e.key = s;
        return global;
    }

private:
    static constexpr size_t kSize = 256;
    struct Entry {
        uint64_t hash = 0;
        std::string key;
        jstring ref = nullptr;
    };
    Entry entries_[kSize];
};

inline StringCache &string_cache() {
    // One per thread (records are converted on the delivery thread). Its global references live as
    // long as the process; a thread's table is at most 256 strings.
    static thread_local StringCache *cache = new StringCache;
    return *cache;
}

/** Holds up to 3 strings for one constructor call; deletes the local ones after. */
class Strings {
public:
    explicit Strings(JNIEnv *env) : env_(env) {}
    ~Strings() {
        for (int i = 0; i < n_; ++i) {
            if (local_[i]) env_->DeleteLocalRef(refs_[i]);
            if (evicted_[i] != nullptr) env_->DeleteGlobalRef(evicted_[i]);
        }
    }
    jstring add(const std::string &s) {
        bool local = false;
        jstring r = string_cache().get(env_, s, &local, &evicted_[n_]);
        if (r == nullptr) ok_ = false;
        refs_[n_] = r;
        local_[n_] = local && r != nullptr;
        ++n_;
        return r;
    }
    bool ok() const { return ok_; }

private:
    JNIEnv *env_;
    jstring refs_[3] = {};
    jstring evicted_[3] = {};
    bool local_[3] = {};
    int n_ = 0;
    bool ok_ = true;
};

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
inline jint e(E v) { return static_cast<jint>(v); }

inline jobject to_java(JNIEnv *env, const mspti::MsptiObjectId &o) {
    const JavaTypes &t = types();
    return env->NewObject(t.object_id, t.object_id_ctor, static_cast<jlong>(o.process_id),
                          static_cast<jlong>(o.thread_id), static_cast<jlong>(o.device_id),
                          static_cast<jlong>(o.stream_id));
}

inline jobject to_java(JNIEnv *env, const mspti::KernelData &d) {
    const JavaTypes &t = types();
    Strings s(env);
    jstring type = s.add(d.type), name = s.add(d.name);
    if (!s.ok()) return nullptr;
    return env->NewObject(t.kernel, t.kernel_ctor, e(d.kind), j(d.start), j(d.end), static_cast<jlong>(d.device_id),
                          static_cast<jlong>(d.stream_id), j(d.correlation_id), type, name);
}

inline jobject to_java(JNIEnv *env, const mspti::HcclData &d) {
    const JavaTypes &t = types();
    Strings s(env);
    jstring name = s.add(d.name), comm = s.add(d.comm_name);
    if (!s.ok()) return nullptr;
    return env->NewObject(t.hccl, t.hccl_ctor, e(d.kind), j(d.start), j(d.end), static_cast<jlong>(d.device_id),
                          static_cast<jlong>(d.stream_id), static_cast<jdouble>(d.bandwidth), name, comm);
}

inline jobject to_java(JNIEnv *env, const mspti::CommunicationData &d) {
    const JavaTypes &t = types();
    Strings s(env);
    jstring alg = s.add(d.alg_type), name = s.add(d.name), comm = s.add(d.comm_name);
    if (!s.ok()) return nullptr;
    return env->NewObject(t.communication, t.communication_ctor, e(d.kind), e(d.data_type), j(d.count),
                          static_cast<jlong>(d.device_id), static_cast<jlong>(d.stream_id), j(d.start), j(d.end), alg,
                          name, comm, j(d.correlation_id));
}

inline jobject to_java(JNIEnv *env, const mspti::MarkerData &d) {
    const JavaTypes &t = types();
    Strings s(env);
    jstring name = s.add(d.name), domain = s.add(d.domain);
    if (!s.ok()) return nullptr;
    const mspti::MsptiObjectId &o = d.object_id;  // flattened: one JNI upcall per record
    return env->NewObject(t.marker, t.marker_ctor, e(d.kind), e(d.flag), e(d.source_kind), j(d.timestamp), j(d.id),
                          static_cast<jlong>(o.process_id), static_cast<jlong>(o.thread_id),
                          static_cast<jlong>(o.device_id), static_cast<jlong>(o.stream_id), name, domain);
}

inline jobject to_java(JNIEnv *env, const mspti::RangeMarkerData &d) {
    const JavaTypes &t = types();
    Strings s(env);
    jstring name = s.add(d.name), domain = s.add(d.domain);
    if (!s.ok()) return nullptr;
    const mspti::MsptiObjectId &o = d.object_id;
    return env->NewObject(t.range, t.range_ctor, e(d.kind), e(d.source_kind), j(d.id), static_cast<jlong>(o.process_id),
                          static_cast<jlong>(o.thread_id), static_cast<jlong>(o.device_id),
                          static_cast<jlong>(o.stream_id), name, domain, j(d.start), j(d.end));
}

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

/** A record argument of a director call; reports and throws if it could not be built. */
template <typename T>
inline jobject record_arg(JNIEnv *env, const T &value, jobject callback) {
    jobject r = to_java(env, value);
    if (r == nullptr) report_callback_error(env, callback);
    return r;
}

// ---- the delivery thread ------------------------------------------------------------------------

/** Attaches the delivery thread once (daemon "mspti-delivery"), detaches it when it ends. */
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
        if (attached_) {
            attached_ = false;
            types().vm->DetachCurrentThread();
        }
        std::lock_guard<std::mutex> lock(mutex_);
        alive_ = false;
        ended_.notify_all();
    }

    bool on_delivery_thread() {
        std::lock_guard<std::mutex> lock(mutex_);
        return alive_ && pthread_equal(thread_, pthread_self());
    }

    /** Waits until no delivery thread is attached (at JVM shutdown, after the monitors stopped). */
    bool await_detached(int64_t millis) {
        std::unique_lock<std::mutex> lock(mutex_);
        if (alive_ && pthread_equal(thread_, pthread_self())) return false;
        return ended_.wait_for(lock, std::chrono::milliseconds(millis), [&] { return !alive_; });
    }

private:
    std::mutex mutex_;
    std::condition_variable ended_;
    pthread_t thread_{};
    bool alive_ = false;
    bool attached_ = false;  // delivery thread only
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
        {"org/mspti/KernelData", &t.kernel, &t.kernel_ctor, "(IJJJJJLjava/lang/String;Ljava/lang/String;)V"},
        {"org/mspti/HcclData", &t.hccl, &t.hccl_ctor, "(IJJJJDLjava/lang/String;Ljava/lang/String;)V"},
        {"org/mspti/CommunicationData", &t.communication, &t.communication_ctor,
         "(IIJJJJJLjava/lang/String;Ljava/lang/String;Ljava/lang/String;J)V"},
        {"org/mspti/MsptiObjectId", &t.object_id, &t.object_id_ctor, "(JJJJ)V"},
        {"org/mspti/MarkerData", &t.marker, &t.marker_ctor,
         "(IIIJJJJJJLjava/lang/String;Ljava/lang/String;)V"},
        {"org/mspti/RangeMarkerData", &t.range, &t.range_ctor,
         "(IIJJJJJLjava/lang/String;Ljava/lang/String;JJ)V"},
        {"org/mspti/RecordBatch", &t.batch, &t.batch_ctor, "(ILjava/nio/ByteBuffer;II)V"},
        {"org/mspti/MonitorStats", &t.stats, &t.stats_ctor, "(JJJJ)V"},
    };
    for (const Ctor &c : ctors) {
        if (!cache_class(env, c.cls, c.slot)) return -1;
        *c.id = env->GetMethodID(*c.slot, "<init>", c.sig);
        if (*c.id == nullptr) return -1;
    }
    if (!cache_class(env, "org/mspti/CallbackErrors", &t.errors)) return -1;
    t.report = env->GetStaticMethodID(t.errors, "report", "(Ljava/lang/Object;Ljava/lang/Throwable;)V");
    if (t.report == nullptr) return -1;
    mspti::set_delivery_thread_hooks(&delivery_hooks());
    return 0;
}

}  // namespace mspti_java

#endif  // MSPTI_SWIG_JAVA_GLUE_H

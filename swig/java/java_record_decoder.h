// java_record_decoder.h: how the record of a per-record director call reaches Java (included by
// java_glue.h). Used by MstxMonitor's mark + range pair, whose ranges are paired natively; the other
// record callbacks decode whole blocks in Java (java_record_runs.h).
//
// Building the Java object in JNI (NewObject per record, plus the strings' global references) cost
// more than the rest of the delivery. Instead each delivering thread has one org.mspti.RecordDecoder:
// the record's fields are written as plain stores into its 64-bit slots (a direct ByteBuffer), its
// strings as indices into a table (a String[]) of the thread's recent strings, and the director's
// one upcall passes the decoder, whose generated method builds the record in Java (JIT-compiled).
// A record whose strings are in the table costs no JNI call besides the upcall.
#ifndef MSPTI_SWIG_JAVA_RECORD_DECODER_H
#define MSPTI_SWIG_JAVA_RECORD_DECODER_H

#include <jni.h>

#include <cstdint>
#include <cstring>
#include <string>

/** The JNI type of a record argument of an upcall (a RecordDecoder); named for SWIG's typemaps. */
typedef jobject jrecorddecoder;

namespace mspti_java {  // uses new_string() and report_callback_error() of java_glue.h

/** The slots and string table of one thread's org.mspti.RecordDecoder. */
class RecordDecoder {
public:
    static constexpr int kSlots = 16;  // 64-bit slots: the most JNI constructor arguments of a record
    static constexpr int kArgStrings = 3;  // the most strings of a record
    static constexpr int kCached = 256;  // direct-mapped string table; then one uncached slot per argument

    RecordDecoder(const RecordDecoder &) = delete;
    RecordDecoder &operator=(const RecordDecoder &) = delete;

    /** The class, constructor and String class, cached at JNI_OnLoad; false with a pending exception. */
    static bool on_load(JNIEnv *env) {
        Classes &c = classes();
        jclass local = env->FindClass("org/mspti/RecordDecoder");
        if (local == nullptr) return false;
        c.decoder = static_cast<jclass>(env->NewGlobalRef(local));
        env->DeleteLocalRef(local);
        local = env->FindClass("java/lang/String");
        if (local == nullptr || c.decoder == nullptr) return false;
        c.string = static_cast<jclass>(env->NewGlobalRef(local));
        env->DeleteLocalRef(local);
        c.ctor = env->GetMethodID(c.decoder, "<init>", "(Ljava/nio/ByteBuffer;[Ljava/lang/String;)V");
        return c.string != nullptr && c.ctor != nullptr;
    }

    /** The calling thread's decoder, made on first use; NULL with a pending exception. */
    static RecordDecoder *of_thread(JNIEnv *env) {
        RecordDecoder *&d = thread_slot();
        if (d == nullptr) {
            auto *fresh = new RecordDecoder;
            if (!fresh->init(env)) {
                fresh->release(env);
                delete fresh;
                return nullptr;
            }
            d = fresh;
        }
        return d;
    }

    /** Frees the calling thread's decoder (the delivery thread, before it leaves the JVM). */
    static void release_thread(JNIEnv *env) {
        RecordDecoder *&d = thread_slot();
        if (d == nullptr) return;
        d->release(env);
        delete d;
        d = nullptr;
    }

    /** The Java object the director upcall passes (a global reference the caller must not delete). */
    jobject object() const { return object_; }
    int64_t *slots() { return slots_; }

    /** Starts a record: its strings must not evict one another from the table. */
    void begin_record() { used_ = 0; }

    /** The index in the string table of `s` (argument `arg` of the record); -1 with a pending exception. */
    int64_t string(JNIEnv *env, const std::string &s, int arg) {
        if (s.size() <= 128) {  // long strings are rare: not worth caching
            uint64_t h = 14695981039346656037ull;  // FNV-1a (64-bit offset basis)
            for (unsigned char ch : s) h = (h ^ ch) * 1099511628211ull;
            int i = static_cast<int>(h & (kCached - 1));
            Entry &e = entries_[i];
            if (e.set && e.hash == h && e.key == s) return use(i);
            bool taken = false;
            for (int k = 0; k < used_; ++k) taken = taken || used_slots_[k] == i;
            if (!taken) {
                e.set = false;
                if (!store(env, i, s)) return -1;
                e.key = s;
                e.hash = h;
                e.set = true;
                return use(i);
            }
        }
        int slot = kCached + arg;
        return store(env, slot, s) ? slot : -1;
    }

private:
    struct Classes {
        jclass decoder = nullptr, string = nullptr;
        jmethodID ctor = nullptr;
    };
    static Classes &classes() {
        static Classes c;
        return c;
    }
    static RecordDecoder *&thread_slot() {
        static thread_local RecordDecoder *d = nullptr;  // a thread that never frees it keeps one (bounded)
        return d;
    }

    RecordDecoder() = default;

    bool init(JNIEnv *env) {
        const Classes &c = classes();
        jobject buffer = env->NewDirectByteBuffer(slots_, sizeof slots_);
        if (buffer == nullptr) return false;
        jobjectArray table = env->NewObjectArray(kCached + kArgStrings, c.string, nullptr);
        if (table == nullptr) {
            env->DeleteLocalRef(buffer);
            return false;
        }
        jobject object = env->NewObject(c.decoder, c.ctor, buffer, table);
        env->DeleteLocalRef(buffer);
        if (object != nullptr) {
            object_ = env->NewGlobalRef(object);
            strings_ = static_cast<jobjectArray>(env->NewGlobalRef(table));
            env->DeleteLocalRef(object);
        }
        env->DeleteLocalRef(table);
        return object_ != nullptr && strings_ != nullptr;
    }

    void release(JNIEnv *env) {
        if (object_ != nullptr) env->DeleteGlobalRef(object_);
        if (strings_ != nullptr) env->DeleteGlobalRef(strings_);
        object_ = nullptr;
        strings_ = nullptr;
    }

    int64_t use(int i) {
        used_slots_[used_++] = i;
        return i;
    }

    bool store(JNIEnv *env, int slot, const std::string &s) {
        jstring js = new_string(env, s.data(), s.size());
        if (js == nullptr) return false;
        env->SetObjectArrayElement(strings_, slot, js);
        env->DeleteLocalRef(js);
        return !env->ExceptionCheck();
    }

    struct Entry {
        uint64_t hash = 0;
        bool set = false;
        std::string key;
    };
    alignas(8) int64_t slots_[kSlots] = {};
    Entry entries_[kCached];
    int used_slots_[kArgStrings] = {};
    int used_ = 0;
    jobject object_ = nullptr;
    jobjectArray strings_ = nullptr;
};

/** The bits of a double, as Java's Double.longBitsToDouble reads them back. */
inline int64_t f64_bits(double v) {
    int64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    return bits;
}

}  // namespace mspti_java

#include "java_schema_encoders.h"  // encode() of each record

namespace mspti_java {

/**
 * The argument of a record callback's director upcall: the thread's decoder, holding `value`.
 * Reports and throws (counted as a callback error) if it could not be written.
 */
template <typename T>
inline jobject record_decoder_arg(JNIEnv *env, const T &value, jobject callback) {
    RecordDecoder *d = RecordDecoder::of_thread(env);
    if (d == nullptr || !encode(env, *d, value)) report_callback_error(env, callback);
    return d->object();
}

}  // namespace mspti_java

#endif  // MSPTI_SWIG_JAVA_RECORD_DECODER_H

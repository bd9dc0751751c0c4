// java_record_runs.h: the native half of org.mspti.RecordRun, how a per-record callback receives
// its records (included by java_glue.h).
//
// The monitor hands a run of records at a time to a RecordRunCallback (monitor_binding.h): one JNI
// upcall per run, whose records Java decodes from the library's buffer (a direct ByteBuffer).
// String fields are addresses, valid only until the upcall returns, so Java asks here
// (RecordRun.fillStrings, a plain downcall per 4096 records) for each record's strings as indices
// into a table of the run's distinct Java Strings. The
// addresses repeat (the library interns names), so the table is keyed by address: a repeated name
// costs a hash probe here and an array read in Java; only a new address makes a String.
#ifndef MSPTI_SWIG_JAVA_RECORD_RUNS_H
#define MSPTI_SWIG_JAVA_RECORD_RUNS_H

#include <jni.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "java_schema_strings.h"

namespace mspti_java {  // uses new_string() of java_glue.h

/**
 * The address -> table index map of the block being decoded on this thread. Open addressing,
 * entries tagged with the block's generation (a new block invalidates them all without clearing);
 * grows so that it stays at most half full. Memory is kept between blocks: no allocation once
 * the largest block's distinct strings fit.
 */
class BlockStrings {
public:
    /**
     * Fills `indices` for records [first, first + count) of the block at `data`; new strings go
     * into `table`. Returns the records done (fewer when the table is full), or -1 with a pending
     * Java exception.
     */
    jint fill(JNIEnv *env, const uint8_t *data, jint first, jint count, jint stride, const StringFields &fields,
              jintArray indices, jobjectArray table, bool fresh) {
        if (fresh) begin_block();
        const jint capacity = env->GetArrayLength(table);
        out_.resize(static_cast<size_t>(count) * static_cast<size_t>(fields.count));
        jint done = 0;
        for (; done < count; ++done) {
            const uint8_t *record = data + static_cast<size_t>(first + done) * static_cast<size_t>(stride);
            // A record whose new strings do not all fit is left for the next call (after Java grows
            // the table); strings it added meanwhile stay valid.
            if (used_ + fields.count > capacity) break;
            for (int f = 0; f < fields.count; ++f) {
                const char *address;
                std::memcpy(&address, record + fields.offsets[f], sizeof address);  // packed: unaligned
                const jint index = index_of(env, address, table);
                if (index < 0) return -1;
                out_[static_cast<size_t>(done) * static_cast<size_t>(fields.count) + static_cast<size_t>(f)] = index;
            }
        }
        env->SetIntArrayRegion(indices, 0, static_cast<jsize>(done * fields.count), out_.data());
        return env->ExceptionCheck() ? -1 : done;
    }

private:
    struct Slot {
        const char *key = nullptr;
        uint32_t generation = 0;  // valid in the block of this generation only
        jint index = 0;
    };

    void begin_block() {
        used_ = 0;
        if (++generation_ == 0) {  // wrapped: stale tags could match again
            for (Slot &s : slots_) s.generation = 0;
            generation_ = 1;
        }
    }

    static size_t hash(const char *p) {
        return static_cast<size_t>((reinterpret_cast<uintptr_t>(p) * 0x9E3779B97F4A7C15ull) >> 20);
    }

    Slot *find(const char *key) {
        const size_t mask = slots_.size() - 1;
        for (size_t i = hash(key) & mask;; i = (i + 1) & mask) {
            Slot &s = slots_[i];
            if (s.generation != generation_ || s.key == key) return &s;
        }
    }

    void grow() {
        std::vector<Slot> old;
        old.swap(slots_);
        slots_.assign(old.empty() ? 256 : old.size() * 2, Slot{});
        for (const Slot &s : old)
            if (s.generation == generation_) *find(s.key) = s;
    }

    /** The table index of the string at `address` (NULL is ""); -1 with a pending exception. */
    jint index_of(JNIEnv *env, const char *address, jobjectArray table) {
        if (static_cast<size_t>(used_ + 1) * 2 > slots_.size()) grow();
        Slot *s = find(address);
        if (s->generation == generation_) return s->index;
        const char *text = address != nullptr ? address : "";
        jstring js = new_string(env, text, std::strlen(text));
        if (js == nullptr) return -1;
        env->SetObjectArrayElement(table, used_, js);
        env->DeleteLocalRef(js);
        if (env->ExceptionCheck()) return -1;
        *s = Slot{address, generation_, used_};
        return used_++;
    }

    std::vector<Slot> slots_;
    std::vector<jint> out_;
    uint32_t generation_ = 1;  // never 0: fresh slots (generation 0) are empty
    jint used_ = 0;  // strings in the table for this block
};

/** The delivery thread's map (blocks are decoded one at a time, on the thread that delivers them). */
inline BlockStrings &block_strings() {
    static thread_local BlockStrings strings;
    return strings;
}

}  // namespace mspti_java

/** org.mspti.RecordRun.fillStrings (see there). */
extern "C" JNIEXPORT jint JNICALL Java_org_mspti_RecordRun_fillStrings(JNIEnv *env, jclass, jobject block, jint first,
                                                                       jint count, jint stride, jint kind,
                                                                       jintArray indices, jobjectArray table,
                                                                       jboolean fresh) {
    const mspti_java::StringFields *fields = mspti_java::string_fields(kind);
    const auto *data = static_cast<const uint8_t *>(env->GetDirectBufferAddress(block));
    if (fields == nullptr || data == nullptr || first < 0 || count < 0 || stride <= 0 ||
        (static_cast<jlong>(first) + count) * stride > env->GetDirectBufferCapacity(block) ||
        static_cast<jlong>(count) * fields->count > env->GetArrayLength(indices))
        return -1;
    return mspti_java::block_strings().fill(env, data, first, count, stride, *fields, indices, table,
                                            fresh == JNI_TRUE);
}

#endif  // MSPTI_SWIG_JAVA_RECORD_RUNS_H

// java_batch_lifetime.h: a RecordBatch handed to Java is valid only during its callback. When the
// director's upcall returns (normally or with an exception), RecordBatch.expire() drops the batch's
// view of the library's buffer: every accessor then throws IllegalStateException instead of
// reading memory the library reuses or frees.
#ifndef MSPTI_SWIG_JAVA_BATCH_LIFETIME_H
#define MSPTI_SWIG_JAVA_BATCH_LIFETIME_H

#include <jni.h>

#include <atomic>

namespace mspti_java {

/** Scope guard of one batch argument: expires it and deletes the local reference. */
class BatchExpiry {
public:
    BatchExpiry(JNIEnv *env, jobject batch) : env_(env), batch_(batch) {}
    BatchExpiry(const BatchExpiry &) = delete;
    BatchExpiry &operator=(const BatchExpiry &) = delete;
    ~BatchExpiry() {
        if (batch_ == nullptr) return;
        jthrowable pending = env_->ExceptionOccurred();  // a call with one pending is not allowed
        if (pending != nullptr) env_->ExceptionClear();
        if (jmethodID expire = expire_method(env_, batch_)) env_->CallVoidMethod(batch_, expire);
        if (env_->ExceptionCheck()) env_->ExceptionClear();
        if (pending != nullptr) {
            env_->Throw(pending);
            env_->DeleteLocalRef(pending);
        }
        env_->DeleteLocalRef(batch_);
    }

private:
    static jmethodID expire_method(JNIEnv *env, jobject batch) {
        static std::atomic<jmethodID> cached{nullptr};  // valid while org.mspti is loaded
        jmethodID id = cached.load(std::memory_order_acquire);
        if (id != nullptr) return id;
        jclass cls = env->GetObjectClass(batch);
        id = env->GetMethodID(cls, "expire", "()V");
        env->DeleteLocalRef(cls);
        if (id == nullptr) {
            env->ExceptionClear();
            return nullptr;
        }
        cached.store(id, std::memory_order_release);
        return id;
    }

    JNIEnv *env_;
    jobject batch_;
};

}  // namespace mspti_java

#endif  // MSPTI_SWIG_JAVA_BATCH_LIFETIME_H

// Test helper: collects every activity record delivered to the client buffers, by copy.
#pragma once

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <vector>

#include "mspti/mspti.h"
#include "mspti/mspti_ext.h"

namespace mspti_test {

struct Record {
    std::vector<unsigned char> bytes;
    msptiActivityKind kind() const {
        msptiActivityKind k;
        std::memcpy(&k, bytes.data(), sizeof(k));
        return k;
    }
    template <typename T>
    T as() const {
        T t;
        std::memcpy(&t, bytes.data(), sizeof(T));
        return t;
    }
};

class Collector {
public:
    static Collector &instance() {
        static Collector c;
        return c;
    }

    // Registers the buffer callbacks (once per process).
    void install() {
        static bool done = [] { return msptiActivityRegisterCallbacks(&request, &complete) == MSPTI_SUCCESS; }();
        (void)done;
    }

    /** Records whose kind msptiExtRecordSize() does not know (none expected). */
    size_t unknown() {
        std::lock_guard<std::mutex> lock(mutex_);
        return unknown_;
    }

    void clear() {
        msptiActivityFlushAll(1);
        std::lock_guard<std::mutex> lock(mutex_);
        records_.clear();
    }

    // Flushes and returns the records of `kind` (all kinds if INVALID), in delivery order.
    template <typename T>
    std::vector<T> take(msptiActivityKind kind) {
        msptiActivityFlushAll(1);
        std::lock_guard<std::mutex> lock(mutex_);
        std::vector<T> out;
        for (const Record &r : records_)
            if (r.kind() == kind) out.push_back(r.as<T>());
        return out;
    }

    std::vector<Record> all() {
        msptiActivityFlushAll(1);
        std::lock_guard<std::mutex> lock(mutex_);
        return records_;
    }

private:
    static void request(uint8_t **buffer, size_t *size, size_t *maxNumRecords) {
        constexpr size_t kSize = 1 << 20;
        *buffer = static_cast<uint8_t *>(std::aligned_alloc(8, kSize));
        *size = kSize;
        *maxNumRecords = 0;
    }
    static void complete(uint8_t *buffer, size_t, size_t validSize) {
        Collector &c = instance();
        if (buffer != nullptr) {
            std::lock_guard<std::mutex> lock(c.mutex_);
            msptiActivity *record = nullptr;
            while (msptiActivityGetNextRecord(buffer, validSize, &record) == MSPTI_SUCCESS) {
                auto *p = reinterpret_cast<unsigned char *>(record);
                const size_t n = msptiExtRecordSize(record->kind);
                if (n == 0) {  // a kind this header does not know: keep the count honest
                    ++c.unknown_;
                    continue;
                }
                c.records_.push_back(Record{std::vector<unsigned char>(p, p + n)});
            }
        }
        std::free(buffer);
    }

    std::mutex mutex_;
    std::vector<Record> records_;
    size_t unknown_ = 0;
};

}  // namespace mspti_test

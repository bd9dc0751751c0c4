// A test client of the Activity API: hands out buffers of a chosen size, walks every
// completed buffer with msptiActivityGetNextRecord and keeps a copy of each record.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <mutex>
#include <string>
#include <vector>

#include "mspti/mspti.h"
#include "mspti/mspti_ext.h"

namespace mspti_test {

struct CopiedRecord {
    msptiActivityKind kind;
    std::array<uint8_t, 72> bytes;
    template <typename T>
    T as() const {
        T value;
        std::memcpy(&value, bytes.data(), sizeof(T));
        return value;
    }
};

class RecordCollector {
public:
    static RecordCollector &instance() {
        static RecordCollector collector;
        return collector;
    }

    // Registers the callbacks; buffers of `buffer_bytes`; `decline` makes requests return NULL.
    void install(size_t buffer_bytes = 1 << 20) {
        buffer_bytes_.store(buffer_bytes);
        decline_.store(false);
        msptiActivityRegisterCallbacks(&Request, &Complete);
    }
    void set_decline(bool decline) { decline_.store(decline); }

    std::vector<CopiedRecord> records() {
        std::lock_guard<std::mutex> lock(mutex_);
        return records_;
    }
    size_t count(msptiActivityKind kind) {
        std::lock_guard<std::mutex> lock(mutex_);
        size_t n = 0;
        for (const CopiedRecord &r : records_) n += r.kind == kind;
        return n;
    }
    template <typename T>
    std::vector<T> of_kind(msptiActivityKind kind) {
        std::lock_guard<std::mutex> lock(mutex_);
        std::vector<T> out;
        for (const CopiedRecord &r : records_)
            if (r.kind == kind) out.push_back(r.as<T>());
        return out;
    }
    void clear() {
        std::lock_guard<std::mutex> lock(mutex_);
        records_.clear();
    }
    uint64_t requests() const { return requests_.load(); }
    uint64_t completions() const { return completions_.load(); }
    uint64_t walk_errors() const { return walk_errors_.load(); }

private:
    static void Request(uint8_t **buffer, size_t *size, size_t *max_records) {
        RecordCollector &self = instance();
        self.requests_.fetch_add(1);
        *max_records = 0;
        if (self.decline_.load()) {
            *buffer = nullptr;
            *size = 0;
            return;
        }
        size_t bytes = self.buffer_bytes_.load();
        *buffer = static_cast<uint8_t *>(std::aligned_alloc(8, (bytes + 7) / 8 * 8));
        *size = bytes;
    }

    static void Complete(uint8_t *buffer, size_t, size_t valid) {
        RecordCollector &self = instance();
        self.completions_.fetch_add(1);
        std::vector<CopiedRecord> local;
        msptiActivity *record = nullptr;
        msptiResult result;
        while ((result = msptiActivityGetNextRecord(buffer, valid, &record)) == MSPTI_SUCCESS) {
            CopiedRecord copy{record->kind, {}};
            size_t size = msptiExtRecordSize(record->kind);
            std::memcpy(copy.bytes.data(), record, size);
            local.push_back(copy);
        }
        if (result != MSPTI_ERROR_MAX_LIMIT_REACHED) self.walk_errors_.fetch_add(1);
        {
            std::lock_guard<std::mutex> lock(self.mutex_);
            for (CopiedRecord &copy : local)
                if (copy.kind == MSPTI_ACTIVITY_KIND_MARKER) self.keep_marker_strings(copy);
            self.records_.insert(self.records_.end(), local.begin(), local.end());
        }
        std::free(buffer);
    }

    // A marker's name is valid only until the complete callback returns (mspti_ext.h): the copy
    // points to strings of ours instead. Other kinds' strings live as long as the process.
    void keep_marker_strings(CopiedRecord &copy) {
        msptiActivityMarker m;
        std::memcpy(&m, copy.bytes.data(), sizeof(m));
        const char *name = m.name, *domain = m.domain;  // packed fields: no references to them
        if (name != nullptr) m.name = strings_.emplace_back(name).c_str();
        if (domain != nullptr) m.domain = strings_.emplace_back(domain).c_str();
        std::memcpy(copy.bytes.data(), &m, sizeof(m));
    }

    std::atomic<size_t> buffer_bytes_{1 << 20};
    std::atomic<bool> decline_{false};
    std::atomic<uint64_t> requests_{0};
    std::atomic<uint64_t> completions_{0};
    std::atomic<uint64_t> walk_errors_{0};
    std::mutex mutex_;
    std::vector<CopiedRecord> records_;
    std::deque<std::string> strings_;  // stable addresses
};

}  // namespace mspti_test

// RecordBatchCopy: a batch's records and strings, owned. The records' string fields are
// rewritten to point into the copy's own string storage.
#include <cstdint>
#include <cstring>
#include <unordered_map>

#include "monitor/convert.h"
#include "mspti/monitor_types.h"

namespace mspti {

namespace {

const char *read_pointer(const char *field) {
    const char *p;
    std::memcpy(&p, field, sizeof(p));
    return p;
}

void write_pointer(char *field, const char *p) { std::memcpy(field, &p, sizeof(p)); }

}  // namespace

RecordBatchCopy::RecordBatchCopy(const RecordBatch &batch) : view_(batch) {
    if (batch.data != nullptr) {
        const char *from = static_cast<const char *>(batch.data);
        records_.assign(from, from + batch.size_bytes());
    }
    view_.data = records_.data();
    const detail::StringFields *fields = detail::string_fields(static_cast<int>(batch.kind));
    if (fields == nullptr) return;
    // Offsets of each distinct text in strings_, then the pointers set once strings_ stops growing.
    std::unordered_map<const char *, size_t> placed;
    std::string offsets_of_fields;  // one size_t per string field, in record order
    for (size_t i = 0; i < batch.count; ++i) {
        for (int f = 0; f < fields->count; ++f) {
            const char *text = read_pointer(records_.data() + i * batch.stride + fields->offsets[f]);
            size_t at = SIZE_MAX;
            if (text != nullptr) {
                auto [it, fresh] = placed.emplace(text, strings_.size());
                if (fresh) strings_.insert(strings_.end(), text, text + std::strlen(text) + 1);
                at = it->second;
            }
            offsets_of_fields.append(reinterpret_cast<const char *>(&at), sizeof(at));
        }
    }
    size_t n = 0;
    for (size_t i = 0; i < batch.count; ++i) {
        for (int f = 0; f < fields->count; ++f, ++n) {
            size_t at;
            std::memcpy(&at, offsets_of_fields.data() + n * sizeof(at), sizeof(at));
            write_pointer(records_.data() + i * batch.stride + fields->offsets[f],
                          at == SIZE_MAX ? nullptr : strings_.data() + at);
        }
    }
}

RecordBatchCopy::RecordBatchCopy(const RecordBatchCopy &other)
    : records_(other.records_), strings_(other.strings_), view_(other.view_) {
    repoint(other.strings_.data());
}

RecordBatchCopy &RecordBatchCopy::operator=(const RecordBatchCopy &other) {
    if (this != &other) {
        records_ = other.records_;
        strings_ = other.strings_;
        view_ = other.view_;
        repoint(other.strings_.data());
    }
    return *this;
}

void RecordBatchCopy::repoint(const char *old_strings) {
    view_.data = records_.data();
    const detail::StringFields *fields = detail::string_fields(static_cast<int>(view_.kind));
    if (fields == nullptr) return;
    for (size_t i = 0; i < view_.count; ++i) {
        for (int f = 0; f < fields->count; ++f) {
            char *field = records_.data() + i * view_.stride + fields->offsets[f];
            const char *p = read_pointer(field);
            if (p != nullptr) write_pointer(field, strings_.data() + (p - old_strings));
        }
    }
}

}  // namespace mspti

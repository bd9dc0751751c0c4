// A sequence that grows by fixed-size chunks and never moves what it holds: growing copies
// nothing (a Slice is about 300 bytes), and clear() keeps the chunks for the next window.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

namespace mspti_trace {

template <class T, size_t kChunk = 128>
class Chunked {
public:
    // The next element, default-initialized (a trivial T is left unwritten): the caller fills it.
    T &push_unset() {
        if (size_ == chunks_.size() * kChunk) chunks_.emplace_back(new T[kChunk]);
        T &t = chunks_[size_ / kChunk][size_ % kChunk];
        ++size_;
        return t;
    }
    T &operator[](size_t i) { return chunks_[i / kChunk][i % kChunk]; }
    const T &operator[](size_t i) const { return chunks_[i / kChunk][i % kChunk]; }
    size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }
    void clear() { size_ = 0; }

private:
    std::vector<std::unique_ptr<T[]>> chunks_;
    size_t size_ = 0;
};

}  // namespace mspti_trace

#include "monitor/buffer_pool.h"

#include <algorithm>
#include <cstdlib>

namespace mspti::detail {

void BufferPool::activate(size_t bytes) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (bytes != size_) {
        for (uint8_t *b : idle_) std::free(b);
        allocated_ -= idle_.size();
        idle_.clear();
    }
    active_ = true;
    size_ = bytes;
    limit_ = std::max<size_t>(2, kBudgetBytes / bytes);
}

void BufferPool::deactivate() {
    std::lock_guard<std::mutex> lock(mutex_);
    active_ = false;
    for (uint8_t *b : idle_) std::free(b);
    allocated_ -= idle_.size();
    idle_.clear();
    idle_.shrink_to_fit();
}

uint8_t *BufferPool::acquire(size_t &size) {
    std::lock_guard<std::mutex> lock(mutex_);
    size = 0;
    if (!active_) return nullptr;
    if (!idle_.empty()) {
        uint8_t *b = idle_.back();
        idle_.pop_back();
        size = size_;
        return b;
    }
    if (allocated_ >= limit_) return nullptr;
    // malloc aligns to 16, more than the 8 the records need. Its pages are faulted in by libmspti
    // when it asks ahead of need (on its worker); writing them here instead would also do it on
    // an application thread when a producer asks (the first buffer).
    auto *b = static_cast<uint8_t *>(std::malloc(size_));
    if (b == nullptr) return nullptr;
    ++allocated_;
    size = size_;
    return b;
}

void BufferPool::recycle(uint8_t *buffer, size_t size) {
    if (buffer == nullptr) return;
    std::lock_guard<std::mutex> lock(mutex_);
    if (active_ && size == size_) {
        idle_.push_back(buffer);
        return;
    }
    std::free(buffer);
    --allocated_;
}

void BufferPool::disown(uint8_t *buffer, size_t size) {
    (void)size;
    if (buffer == nullptr) return;
    // A binding keeps the memory past the callbacks (with the marker names its records point to).
    std::lock_guard<std::mutex> lock(mutex_);
    --allocated_;
}

size_t BufferPool::allocated() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return allocated_;
}

}  // namespace mspti::detail

// Activity buffers handed to libmspti: a bounded set of equal-sized buffers (set_buffer_size; at
// most 256 MiB in all), recycled after delivery, so that each buffer's pages are faulted in once:
// by libmspti's worker, which asks for buffers ahead of need and faults them in there. A request
// the pool cannot serve is declined (libmspti then counts the drop).
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>


namespace mspti::detail {

class BufferPool {
public:
    /** Total bytes the pool may hold (at least two buffers are always allowed). */
    static constexpr size_t kBudgetBytes = size_t{256} << 20;

    /** Starts serving buffers of `bytes`. */
    void activate(size_t bytes);
    /** Stops serving; frees idle buffers now and outstanding ones when they come back. */
    void deactivate();
    /** A buffer of the current size, or nullptr (inactive or exhausted). */
    uint8_t *acquire(size_t &size);
    /** Takes a buffer back (keeps it for reuse while active and of the current size). */
    void recycle(uint8_t *buffer, size_t size);

    /** Lets a buffer go without freeing it: its new owner frees it (std::free, free_kept_buffer()). */
    void disown(uint8_t *buffer, size_t size);

    /** Buffers allocated and not freed. */
    size_t allocated() const;

    /** fork(): held across the fork by the session's handlers. */
    void lock_for_fork() { mutex_.lock(); }
    void unlock_after_fork() { mutex_.unlock(); }

private:
    mutable std::mutex mutex_;
    bool active_ = false;
    size_t size_ = 0;
    size_t limit_ = 0;
    size_t allocated_ = 0;
    std::vector<uint8_t *> idle_;
};

}  // namespace mspti::detail

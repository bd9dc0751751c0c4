#include "core/client_buffers.h"

#include <new>

namespace mspti {

void ClientBuffers::retire_current() {
    current_.seq = next_seq_++;
    completed_.push_back(current_);
    current_ = Buffer{};
    // A flush or the worker waiting at the limit hands it back (a producer never does).
    changed_.notify_all();
}

void ClientBuffers::retire_unused(const Buffer &b) {
    Buffer done = b;
    done.seq = next_seq_++;
    completed_.push_back(done);
    changed_.notify_all();
}

void ClientBuffers::retire_all() {
    if (current_.data != nullptr) retire_current();
    for (const Buffer &spare : spares_) {
        current_ = spare;
        retire_current();
    }
    spares_.clear();
}

std::vector<ClientBuffers::Buffer> ClientBuffers::take_completed() {
    std::vector<Buffer> batch;
    batch.swap(completed_);
    for (const Buffer &b : batch) in_flight_.insert(b.seq);
    return batch;
}

void ClientBuffers::handed_back(const Buffer &b) {
    in_flight_.erase(b.seq);
    --out_;
    out_bytes_ -= b.size;
    if (b.seq == next_handback_) {
        ++next_handback_;
        while (!handed_back_early_.empty() && *handed_back_early_.begin() == next_handback_) {
            handed_back_early_.erase(handed_back_early_.begin());
            ++next_handback_;
        }
    } else {
        handed_back_early_.insert(b.seq);
    }
    changed_.notify_all();
}

void ClientBuffers::restart_after_fork() {
    if (current_.data != nullptr) spares_.push_back(current_);
    current_ = Buffer{};
    spares_.insert(spares_.end(), completed_.begin(), completed_.end());
    completed_.clear();
    for (Buffer &b : spares_) b = fresh(b.data, b.size);
    in_flight_.clear();
    // The buffers out are the ones kept above; those the parent was handing back stay its own.
    out_ = spares_.size();
    out_bytes_ = 0;
    for (const Buffer &b : spares_) out_bytes_ += b.size;
    asking_ = 0;  // asks in progress at the fork were the parent's threads
    handed_back_early_.clear();
    next_handback_ = next_seq_;
    // It may count waiters that exist only in the parent: start it afresh.
    new (&changed_) std::condition_variable();
}

}  // namespace mspti

// Live handles of one kind (contexts, streams, events, executors, communicators). A handle is the address
// of the object; looking it up validates it and hands out a reference that keeps the object alive.
#pragma once

#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace vnpu {

template <class T>
class HandleRegistry {
public:
    void *add(std::shared_ptr<T> object) {
        void *handle = object.get();
        std::lock_guard<std::mutex> lock(mu_);
        live_[handle] = std::move(object);
        return handle;
    }

    std::shared_ptr<T> find(const void *handle) const {
        if (handle == nullptr) {
            return nullptr;
        }
        std::lock_guard<std::mutex> lock(mu_);
        auto it = live_.find(const_cast<void *>(handle));
        return it == live_.end() ? nullptr : it->second;
    }

    /// Removes the handle and returns its object (nullptr if it was not live).
    std::shared_ptr<T> remove(const void *handle) {
        std::lock_guard<std::mutex> lock(mu_);
        auto it = live_.find(const_cast<void *>(handle));
        if (it == live_.end()) {
            return nullptr;
        }
        std::shared_ptr<T> object = std::move(it->second);
        live_.erase(it);
        return object;
    }

    std::vector<std::shared_ptr<T>> snapshot() const {
        std::lock_guard<std::mutex> lock(mu_);
        std::vector<std::shared_ptr<T>> all;
        all.reserve(live_.size());
        for (const auto &entry : live_) {
            all.push_back(entry.second);
        }
        return all;
    }

private:
    mutable std::mutex mu_;
    std::unordered_map<void *, std::shared_ptr<T>> live_;
};

}  // namespace vnpu

// Live handles of one kind (contexts, streams, events, executors, communicators). A handle is the address
// of the object; looking it up validates it and hands out a reference that keeps the object alive.
#pragma once

#include <pthread.h>

#include <algorithm>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace vnpu {

/**
 * The locks of every HandleRegistry, taken around fork(): a child forked while another thread held
 * one would wait for it forever on its first lookup. They are leaf locks (nothing else is taken
 * under them), so the order does not matter.
 */
class RegistryForkLocks {
public:
    static void enlist(std::mutex *lock) {
        State &s = state();
        std::lock_guard<std::mutex> guard(s.list_mutex);
        s.locks.push_back(lock);
    }
    static void delist(std::mutex *lock) {
        State &s = state();
        std::lock_guard<std::mutex> guard(s.list_mutex);
        s.locks.erase(std::remove(s.locks.begin(), s.locks.end(), lock), s.locks.end());
    }

private:
    struct State {
        std::mutex list_mutex;
        std::vector<std::mutex *> locks;
    };
    static State &state() {
        static State *s = [] {
            auto *created = new State;  // leaked, like the registries
            pthread_atfork(&prepare, &release, &release);
            return created;
        }();
        return *s;
    }
    static void prepare() {
        State &s = state();
        s.list_mutex.lock();
        for (std::mutex *lock : s.locks) lock->lock();
    }
    static void release() {
        State &s = state();
        for (std::mutex *lock : s.locks) lock->unlock();
        s.list_mutex.unlock();
    }
};

template <class T>
class HandleRegistry {
public:
    HandleRegistry() { RegistryForkLocks::enlist(&mu_); }
    ~HandleRegistry() { RegistryForkLocks::delist(&mu_); }
    HandleRegistry(const HandleRegistry &) = delete;
    HandleRegistry &operator=(const HandleRegistry &) = delete;

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

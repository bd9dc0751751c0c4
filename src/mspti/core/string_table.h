// Interned strings: names in records point here and stay valid until the process exits.
#pragma once

#include <cstddef>

namespace mspti {

// Returns the interned copy of `text` (a NUL-terminated string), creating it on first sight.
// Thread-safe; sharded so that threads interning different strings rarely contend.
const char *intern(const char *text);

// Same for a string of known length (need not be NUL-terminated).
const char *intern(const char *text, size_t length);

// fork(): holds every shard lock across the fork (see core/fork_guard.h).
void strings_fork_prepare();
void strings_fork_release();

}  // namespace mspti

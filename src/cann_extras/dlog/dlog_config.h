// dlog's levels per module and its environment, read once.
#pragma once

#include <string>

namespace dlog {

/// Module names in CANN's numbering; nullptr for an id out of range.
const char *module_name(int moduleId);

/// Output settings, fixed at the first use.
struct Output {
    bool to_stdout = false;
    std::string dir;  ///< the plog directory (…/debug/plog)
    unsigned long long file_bytes = 0;  ///< a file is closed when a line would take it over this
    unsigned file_count = 0;  ///< files kept per process
};
const Output &output();

/// Level checks (lock-free; the environment is read at the first call).
int level_of(int moduleId);  ///< -1 for a bad id
bool events_enabled();
int set_level(int moduleId, int level, int enableEvent);  ///< 0, or -1 on a bad argument
bool enabled(int moduleId, int level);
void init();

}  // namespace dlog

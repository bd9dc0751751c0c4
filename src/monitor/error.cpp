// last_error_message(): one message per thread, set by every failing call (mspti::fail, whose
// copy in this library keeps its own last error).
#include "monitor/internal.h"

namespace mspti {

std::string last_error_message() { return last_error(); }

}  // namespace mspti

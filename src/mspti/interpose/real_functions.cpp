#include "interpose/real_functions.h"

namespace mspti::interpose::real {

// Constant-initialised: usable by interposed calls made before (or during) static initialisation.
#define X(name) constinit RealSymbol<decltype(&::name)> name{#name};
#include "interpose/interposed_functions.def"
#undef X

}  // namespace mspti::interpose::real

// The real runtime definition of every function of interposed_functions.def, as
// mspti::interpose::real::<name>: one RealSymbol each, resolved on first use.
#pragma once

#include "interpose/acl_abi.h"
#include "interpose/real_symbol.h"

namespace mspti::interpose::real {

#define X(name) extern RealSymbol<decltype(&::name)> name;
#include "interpose/interposed_functions.def"
#undef X

}  // namespace mspti::interpose::real

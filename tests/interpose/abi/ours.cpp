// libmspti's side: the signatures of interpose/acl_abi.h.
#include <map>
#include <string>

#include "interpose/acl_abi.h"
#include "signature.h"

std::map<std::string, std::string> our_signatures() {
    std::map<std::string, std::string> m;
#define X(name) m[#name] = abi::Signature<decltype(name)>::text();
#include "interpose/interposed_functions.def"
#undef X
    return m;
}

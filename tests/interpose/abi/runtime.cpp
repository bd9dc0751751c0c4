// The runtime's side: the signatures of include/acl and include/hccl.
#include <map>
#include <string>

#include "acl/acl.h"
#include "hccl/hccl.h"
#include "signature.h"

std::map<std::string, std::string> runtime_signatures() {
    std::map<std::string, std::string> m;
#define X(name) m[#name] = abi::Signature<decltype(name)>::text();
#include "interpose/interposed_functions.def"
#undef X
    return m;
}

// Signatures of types that differ in one way the ABI sees, for the test that the description tells
// them apart (kept out of the test's file: gtest's <cxxabi.h> claims the name abi).
#include <map>
#include <string>

#include "signature.h"

std::map<std::string, std::string> probe_signatures() {
    return {
        {"base", abi::Signature<int(void *, unsigned long)>::text()},
        {"narrower parameter", abi::Signature<int(void *, unsigned)>::text()},
        {"reordered", abi::Signature<int(unsigned long, void *)>::text()},
        {"extra parameter", abi::Signature<int(void *, unsigned long, void *)>::text()},
        {"missing parameter", abi::Signature<int(void *)>::text()},
        {"wider return", abi::Signature<long(void *, unsigned long)>::text()},
        {"float for integer", abi::Signature<int(void *, double)>::text()},
    };
}

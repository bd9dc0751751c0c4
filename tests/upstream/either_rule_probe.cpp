// Which libmspti.so libmspti_monitor chose (test_selection_rule.py cpp): starts a KernelMonitor, prints
// "start: OK" or "start: FAILED <last error>", then every libmspti.so* mapped in the process. Links
// libmspti_monitor only, as a program using the C++ Monitor API does.
#include <cstdio>
#include <fstream>
#include <string>

#include "mspti/monitor.h"

namespace {

class Ignore : public mspti::KernelCallback {
public:
    void on_record(const mspti::KernelData &) override {}
};

}  // namespace

int main() {
    Ignore ignore;
    mspti::KernelMonitor kernels;
    if (kernels.start(&ignore) == mspti::MsptiResult::MSPTI_SUCCESS) {
        std::printf("start: OK\n");
        kernels.stop();
    } else {
        std::printf("start: FAILED %s\n", mspti::last_error_message().c_str());
    }
    std::ifstream maps("/proc/self/maps");
    std::string line;
    std::string last;
    while (std::getline(maps, line)) {
        const size_t slash = line.find('/');
        if (slash == std::string::npos) continue;
        const std::string path = line.substr(slash);
        const std::string name = path.substr(path.rfind('/') + 1);
        if ((name == "libmspti.so" || name.rfind("libmspti.so.", 0) == 0) && path != last) {
            std::printf("mapped: %s\n", path.c_str());
            last = path;
        }
    }
    return 0;
}

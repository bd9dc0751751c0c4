// What loading libmspti adds to an exec: every process of a shell that preloads it pays the load.
// Usage: bench_preload_cost <libmspti.so> [runs]. Prints the fastest of `runs` (default 40) runs
// of /bin/true with and without LD_PRELOAD, so that the machine's noise (which only ever adds
// time) cancels out. A benchmark, not a test: a loaded machine moves the numbers (a calibration
// spin at load alone would cost 2 ms, loading libstdc++.so about 0.5 ms more). The properties
// behind the number are tested in tests/mspti/preload_cost_test.cpp.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <string>
#include <vector>

#include <cstdio>
#include <spawn.h>
#include <sys/wait.h>

extern char **environ;

namespace {

// Wall time of one run of /bin/true, LD_PRELOAD set to `preload` unless it is empty.
double RunTrueSeconds(const std::string &preload) {
    std::vector<std::string> env_strings;
    for (char **e = environ; *e != nullptr; ++e)
        if (std::string(*e).rfind("LD_PRELOAD=", 0) != 0) env_strings.emplace_back(*e);
    if (!preload.empty()) env_strings.push_back("LD_PRELOAD=" + preload);
    std::vector<char *> env;
    for (std::string &s : env_strings) env.push_back(s.data());
    env.push_back(nullptr);
    char arg0[] = "/bin/true";
    char *argv[] = {arg0, nullptr};
    auto start = std::chrono::steady_clock::now();
    pid_t pid;
    if (posix_spawn(&pid, "/bin/true", nullptr, nullptr, argv, env.data()) != 0) return -1;
    int status = 0;
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return -1;
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int main(int argc, char **argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s <libmspti.so> [runs]\n", argv[0]);
        return 2;
    }
    const std::string library = argv[1];
    const int runs = argc > 2 ? std::atoi(argv[2]) : 40;
    double fastest_plain = 1e9, fastest_preloaded = 1e9;
    for (int i = 0; i < runs; ++i) {
        const double plain = RunTrueSeconds("");
        const double preloaded = RunTrueSeconds(library);
        if (plain < 0 || preloaded < 0) {
            std::fprintf(stderr, "/bin/true failed (LD_PRELOAD=%s)\n", library.c_str());
            return 1;
        }
        fastest_plain = std::min(fastest_plain, plain);
        fastest_preloaded = std::min(fastest_preloaded, preloaded);
    }
    std::printf("fastest /bin/true %.3f ms, with LD_PRELOAD %.3f ms: +%.3f ms\n", fastest_plain * 1e3,
                fastest_preloaded * 1e3, (fastest_preloaded - fastest_plain) * 1e3);
    return 0;
}

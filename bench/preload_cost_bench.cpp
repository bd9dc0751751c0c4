// Loading libmspti is cheap: every process of a shell that preloads it pays the load, so the
// library does no work at load that can wait (the TSC calibration is taken at first use, not
// by spinning at load) and brings no libstdc++.so to load and relocate.
//
// Measured as the fastest of many runs of /bin/true with and without LD_PRELOAD, so that the
// machine's noise (which only ever adds time) cancels out.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <string>
#include <vector>

#include <gtest/gtest.h>
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

TEST(PreloadCost, PreloadingAddsUnderHalfAMillisecondToAnExec) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    GTEST_SKIP() << "a sanitizer runtime cannot be preloaded into /bin/true";
#endif
    const char *library = std::getenv("MSPTI_LIBRARY");
    ASSERT_NE(library, nullptr) << "MSPTI_LIBRARY must name libmspti.so";
    double fastest_plain = 1e9, fastest_preloaded = 1e9;
    for (int i = 0; i < 40; ++i) {
        double plain = RunTrueSeconds("");
        double preloaded = RunTrueSeconds(library);
        ASSERT_GE(plain, 0);
        ASSERT_GE(preloaded, 0) << "/bin/true failed under LD_PRELOAD=" << library;
        fastest_plain = std::min(fastest_plain, plain);
        fastest_preloaded = std::min(fastest_preloaded, preloaded);
    }
    double added_ms = (fastest_preloaded - fastest_plain) * 1e3;
    std::printf("fastest /bin/true %.3f ms, with LD_PRELOAD %.3f ms: +%.3f ms\n", fastest_plain * 1e3,
                fastest_preloaded * 1e3, added_ms);
    // A calibration spin at load alone costs 2 ms; loading libstdc++.so about 0.5 ms more.
    EXPECT_LT(added_ms, 0.5);
}

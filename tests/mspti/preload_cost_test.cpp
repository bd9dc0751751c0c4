// Loading libmspti is cheap: every process of a shell that preloads it pays the load. Tested as
// the properties behind the cost, not as a time (bench/preload_cost_bench.cpp measures that): a
// preloaded C program maps no libstdc++.so (nothing more to load and relocate) and runs no
// thread of ours at load (the TSC calibration and the worker start at first use).
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

#include <gtest/gtest.h>

extern char **environ;

namespace {

// Runs `argv` with LD_PRELOAD set to `preload`; returns its stdout ("" and a failure if it fails).
std::string RunPreloaded(const std::string &preload, std::vector<std::string> args) {
    std::vector<std::string> env_strings;
    for (char **e = environ; *e != nullptr; ++e)
        if (std::string(*e).rfind("LD_PRELOAD=", 0) != 0) env_strings.emplace_back(*e);
    env_strings.push_back("LD_PRELOAD=" + preload);
    std::vector<char *> env, argv;
    for (std::string &s : env_strings) env.push_back(s.data());
    env.push_back(nullptr);
    for (std::string &a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    int fds[2];
    EXPECT_EQ(pipe(fds), 0);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&actions, fds[0]);
    pid_t pid = 0;
    const int spawned = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), env.data());
    posix_spawn_file_actions_destroy(&actions);
    close(fds[1]);
    std::string out;
    char buf[4096];
    for (ssize_t n; spawned == 0 && (n = read(fds[0], buf, sizeof(buf))) > 0;) out.append(buf, static_cast<size_t>(n));
    close(fds[0]);
    EXPECT_EQ(spawned, 0) << args[0];
    int status = 0;
    if (spawned == 0) {
        EXPECT_EQ(waitpid(pid, &status, 0), pid);
    }
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << args[0] << " under LD_PRELOAD=" << preload;
    return out;
}

const char *Library() {
    const char *library = std::getenv("MSPTI_LIBRARY");
    EXPECT_NE(library, nullptr) << "MSPTI_LIBRARY must name libmspti.so";
    return library != nullptr ? library : "";
}

}  // namespace

TEST(PreloadCost, APreloadedCProgramMapsNoLibstdcxx) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    GTEST_SKIP() << "a sanitizer runtime cannot be preloaded into /bin/cat";
#endif
    const std::string library = Library();
    const std::string maps = RunPreloaded(library, {"/bin/cat", "/proc/self/maps"});
    EXPECT_NE(maps.find("libmspti"), std::string::npos) << "the preload did not happen:\n" << maps;
    EXPECT_EQ(maps.find("libstdc++"), std::string::npos) << maps;
}

TEST(PreloadCost, LoadingStartsNoThread) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    GTEST_SKIP() << "a sanitizer runtime cannot be preloaded into /bin/ls";
#endif
    const std::string library = Library();
    // /proc/self/task of the listing process: one entry per thread.
    const std::string tasks = RunPreloaded(library, {"/bin/ls", "-1", "/proc/self/task"});
    size_t lines = 0;
    for (char c : tasks) lines += c == '\n' ? 1 : 0;
    EXPECT_EQ(lines, 1u) << tasks;
}

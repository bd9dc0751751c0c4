// For tests that fork: how a child ended, as a message that names the cause.
#pragma once

#include <cerrno>
#include <csignal>
#include <string>
#include <sys/wait.h>

namespace mspti_test {

// Waits for the child (bounded by its own alarm, if it set one) and describes how it ended:
// "" for exit status 0, else what went wrong (a hang killed by SIGALRM, another signal, or the
// exit status, which the tests use as the number of the check that failed).
inline std::string reap_child(pid_t pid) {
    int status = 0;
    pid_t got;
    do {
        got = waitpid(pid, &status, 0);
    } while (got < 0 && errno == EINTR);
    if (got != pid) return "waitpid failed";
    if (WIFSIGNALED(status))
        return WTERMSIG(status) == SIGALRM ? "child hung (killed by its alarm)"
                                           : "child died of signal " + std::to_string(WTERMSIG(status));
    if (WEXITSTATUS(status) != 0) return "child failed check " + std::to_string(WEXITSTATUS(status));
    return "";
}

}  // namespace mspti_test

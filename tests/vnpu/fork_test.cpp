// fork() while other threads use the virtual NPU: a child can allocate, copy and free memory at
// once (the runtime's registries are not left locked by threads the child does not have). Its
// own process: it forks.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "acl/acl.h"

namespace {

// In the child: memory calls that take the runtime's locks. 0 when all succeeded.
int ChildUsesMemory() {
    void *dev = nullptr;
    void *host = nullptr;
    if (aclrtMalloc(&dev, 4096, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) return 1;
    if (aclrtMallocHost(&host, 4096) != ACL_SUCCESS) return 2;
    std::memset(host, 7, 4096);
    if (aclrtMemcpy(dev, 4096, host, 4096, ACL_MEMCPY_HOST_TO_DEVICE) != ACL_SUCCESS) return 3;
    if (aclrtFree(dev) != ACL_SUCCESS) return 4;
    if (aclrtFreeHost(host) != ACL_SUCCESS) return 5;
    return 0;
}

}  // namespace

TEST(VnpuFork, ChildrenForkedWhileThreadsUseMemoryCanUseIt) {
    ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
    std::atomic<bool> stop{false};
    std::vector<std::thread> users;
    for (int t = 0; t < 2; ++t) {
        users.emplace_back([&stop] {
            aclrtSetDevice(0);
            std::vector<char> host(4096, 1);
            while (!stop.load(std::memory_order_relaxed)) {
                void *dev = nullptr;
                if (aclrtMalloc(&dev, 4096, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) continue;
                aclrtMemcpy(dev, 4096, host.data(), 4096, ACL_MEMCPY_HOST_TO_DEVICE);
                aclrtFree(dev);
            }
        });
    }
    int hung = 0, failed = 0;
    for (int c = 0; c < 30; ++c) {
        const pid_t pid = fork();
        if (pid == 0) _exit(ChildUsesMemory());
        ASSERT_GT(pid, 0);
        int status = 0;
        bool exited = false;
        for (int polls = 0; polls < 20000 && !exited; ++polls) {  // polling for its exit, bounded (20 s)
            exited = waitpid(pid, &status, WNOHANG) == pid;
            if (!exited) usleep(1000);
        }
        if (!exited) {
            ++hung;
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
        } else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            ++failed;
        }
    }
    stop.store(true);
    for (auto &t : users) t.join();
    EXPECT_EQ(hung, 0) << "children that never finished their first memory calls";
    EXPECT_EQ(failed, 0);
    aclrtResetDevice(0);
}

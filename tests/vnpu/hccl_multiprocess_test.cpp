// Multi-process HCCL: four processes join one communicator through HcclGetRootInfo / HcclCommInitRootInfo.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include "hccl/hccl.h"
#include "test_support.h"

namespace {

std::string toHex(const HcclRootInfo &info) {
    std::string hex;
    char byte[3];
    for (char c : info.internal) {
        std::snprintf(byte, sizeof byte, "%02x", static_cast<unsigned char>(c));
        hex += byte;
    }
    return hex;
}

}  // namespace

TEST(HcclMultiProcess, FourProcessesAllReduceThroughRootInfo) {
    HcclRootInfo root{};
    ASSERT_EQ(HcclGetRootInfo(&root), HCCL_SUCCESS);
    const std::string hex = toHex(root);
    const uint32_t nRanks = 4;
    std::vector<pid_t> children;
    for (uint32_t rank = 0; rank < nRanks; ++rank) {
        const std::string n = std::to_string(nRanks);
        const std::string r = std::to_string(rank);
        pid_t pid = fork();
        ASSERT_GE(pid, 0);
        if (pid == 0) {
            // exec at once: the child of a multi-threaded process may only call async-signal-safe functions.
            execl(VNPU_RANK_WORKER, VNPU_RANK_WORKER, n.c_str(), r.c_str(), hex.c_str(), static_cast<char *>(nullptr));
            _exit(127);
        }
        children.push_back(pid);
    }
    for (pid_t pid : children) {
        int status = 0;
        ASSERT_EQ(waitpid(pid, &status, 0), pid);
        ASSERT_TRUE(WIFEXITED(status));
        EXPECT_EQ(WEXITSTATUS(status), 0);
    }
}

TEST(HcclMultiProcess, RootInfoIsCheckedBeforeJoining) {
    HcclRootInfo garbage{};
    HcclComm comm = nullptr;
    EXPECT_EQ(HcclCommInitRootInfo(2, &garbage, 0, &comm), HCCL_E_PARA);
    HcclRootInfo root{};
    ASSERT_EQ(HcclGetRootInfo(&root), HCCL_SUCCESS);
    EXPECT_EQ(HcclCommInitRootInfo(2, &root, 2, &comm), HCCL_E_PARA);  // rank out of range
    EXPECT_EQ(HcclCommInitRootInfo(0, &root, 0, &comm), HCCL_E_PARA);
    EXPECT_EQ(HcclCommInitRootInfo(2, nullptr, 0, &comm), HCCL_E_PTR);
    EXPECT_EQ(HcclGetRootInfo(nullptr), HCCL_E_PTR);
    // One rank alone completes the rendezvous of a one-rank communicator.
    ASSERT_EQ(HcclCommInitRootInfo(1, &root, 0, &comm), HCCL_SUCCESS);
    uint32_t size = 0;
    EXPECT_EQ(HcclGetRankSize(comm, &size), HCCL_SUCCESS);
    EXPECT_EQ(size, 1u);
    EXPECT_EQ(HcclCommDestroy(comm), HCCL_SUCCESS);
}

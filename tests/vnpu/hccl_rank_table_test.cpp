// HcclCommInitClusterInfo: CANN's rank table (the subset read), malformed tables rejected with
// HCCL_E_PARA, and a valid one forming a communicator (shared memory: ranks are threads here).
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <thread>

#include "hccl/hccl.h"
#include "test_support.h"

using vnpu_test::DeviceBuffer;

namespace {

std::string writeTable(const std::string &name, const std::string &json) {
    const std::string path = "/tmp/vnpu_rank_table_" + std::to_string(getpid()) + "_" + name + ".json";
    std::ofstream(path) << json;
    return path;
}

const char *kTwoRanks = R"({
  "version": "1.0", "status": "completed", "server_count": "1",
  "server_list": [{"server_id": "10.0.0.1", "device": [
      {"device_id": "1", "device_ip": "192.168.1.1", "rank_id": "1"},
      {"device_id": 0, "device_ip": "192.168.1.0", "rank_id": 0}]}]
})";

}  // namespace

TEST(HcclRankTable, MalformedTablesAreRejected) {
    HcclComm comm = nullptr;
    const std::pair<const char *, const char *> bad[] = {
        {"syntax", R"({"server_list": [)"},
        {"not_object", R"([1, 2])"},
        {"no_servers", R"({"status": "completed"})"},
        {"empty_servers", R"({"server_list": []})"},
        {"status",
         R"({"status": "initializing", "server_list": [{"server_id": "a", "device": [{"device_id": "0", "rank_id": "0"}]}]})"},
        {"count",
         R"({"server_count": "2", "server_list": [{"server_id": "a", "device": [{"device_id": "0", "rank_id": "0"}]}]})"},
        {"no_server_id", R"({"server_list": [{"device": [{"device_id": "0", "rank_id": "0"}]}]})"},
        {"no_rank_id", R"({"server_list": [{"server_id": "a", "device": [{"device_id": "0"}]}]})"},
        {"bad_rank_id", R"({"server_list": [{"server_id": "a", "device": [{"device_id": "0", "rank_id": "x1"}]}]})"},
        {"negative", R"({"server_list": [{"server_id": "a", "device": [{"device_id": "-1", "rank_id": "0"}]}]})"},
        {"duplicate",
         R"({"server_list": [{"server_id": "a", "device": [{"device_id": "0", "rank_id": "0"}, {"device_id": "1", "rank_id": "0"}]}]})"},
        {"gap",
         R"({"server_list": [{"server_id": "a", "device": [{"device_id": "0", "rank_id": "0"}, {"device_id": "1", "rank_id": "2"}]}]})"},
        {"trailing", R"({"server_list": []} x)"},
    };
    for (const auto &[name, json] : bad) {
        const std::string path = writeTable(name, json);
        EXPECT_EQ(HcclCommInitClusterInfo(path.c_str(), 0, &comm), HCCL_E_PARA) << name;
        std::remove(path.c_str());
    }
    EXPECT_EQ(HcclCommInitClusterInfo("/nonexistent/rank_table.json", 0, &comm), HCCL_E_PARA);
    EXPECT_EQ(HcclCommInitClusterInfo(nullptr, 0, &comm), HCCL_E_PTR);
    const std::string path = writeTable("valid", kTwoRanks);
    EXPECT_EQ(HcclCommInitClusterInfo(path.c_str(), 0, nullptr), HCCL_E_PTR);
    EXPECT_EQ(HcclCommInitClusterInfo(path.c_str(), 2, &comm), HCCL_E_PARA);  // no rank 2 in the table
    const std::string far =
        writeTable("far_device",
                   R"({"server_list": [{"server_id": "a", "device": [{"device_id": "4096", "rank_id": "0"}]}]})");
    EXPECT_EQ(HcclCommInitClusterInfo(far.c_str(), 0, &comm), HCCL_E_PARA);  // no such device
    std::remove(path.c_str());
    std::remove(far.c_str());
}

TEST(HcclRankTable, ValidTableFormsACommunicatorOnItsDevices) {
    const std::string path = writeTable("allreduce", kTwoRanks);
    std::string names[2];
    std::thread ranks[2];
    for (uint32_t r = 0; r < 2; ++r) {
        ranks[r] = std::thread([&, r] {
            HcclComm comm = nullptr;
            ASSERT_EQ(HcclCommInitClusterInfo(path.c_str(), r, &comm), HCCL_SUCCESS);
            uint32_t size = 0, rank = 9;
            EXPECT_EQ(HcclGetRankSize(comm, &size), HCCL_SUCCESS);
            EXPECT_EQ(HcclGetRankId(comm, &rank), HCCL_SUCCESS);
            EXPECT_EQ(size, 2u);
            EXPECT_EQ(rank, r);
            char name[COMM_NAME_MAX_LENGTH] = {};
            EXPECT_EQ(HcclGetCommName(comm, name), HCCL_SUCCESS);
            names[r] = name;
            ASSERT_EQ(aclrtSetDevice(static_cast<int32_t>(r)), ACL_SUCCESS);  // rank r has device r in the table
            aclrtStream stream = nullptr;
            ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
            DeviceBuffer buf(std::vector<int32_t>(64, static_cast<int32_t>(r + 1)));
            ASSERT_EQ(HcclAllReduce(buf.get(), buf.get(), 64, HCCL_DATA_TYPE_INT32, HCCL_REDUCE_SUM, comm, stream),
                      HCCL_SUCCESS);
            ASSERT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);
            EXPECT_EQ(buf.read<int32_t>(), std::vector<int32_t>(64, 3));
            EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
            EXPECT_EQ(HcclCommDestroy(comm), HCCL_SUCCESS);
        });
    }
    for (auto &t : ranks) t.join();
    EXPECT_EQ(names[0], names[1]);
    EXPECT_FALSE(names[0].empty());
    std::remove(path.c_str());
}

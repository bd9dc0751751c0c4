// Every interposed entry point has the runtime's exact C signature (as far as the ABI sees it):
// libmspti carries its own copy of the declarations, so this keeps the two from drifting apart.
#include <gtest/gtest.h>

#include <map>
#include <string>

std::map<std::string, std::string> our_signatures();
std::map<std::string, std::string> runtime_signatures();

TEST(InterposedAbi, SignaturesMatchTheRuntimeHeaders) {
    auto ours = our_signatures();
    auto theirs = runtime_signatures();
    ASSERT_EQ(ours.size(), theirs.size());
    EXPECT_GE(ours.size(), 47u);
    for (const auto &[name, signature] : ours) EXPECT_EQ(signature, theirs[name]) << name;
}

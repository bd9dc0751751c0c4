// Every interposed entry point has the runtime's exact C signature (as far as the ABI sees it):
// libmspti carries its own copy of the declarations, so this keeps the two from drifting apart.
// The list compared is itself checked against what libmspti.so exports, so an entry point added
// to the interposer without a line in src/mspti/interpose/interposed_functions.def fails here too (before, both maps
// came from that list alone and a missing line went unnoticed).
#include <elf.h>
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <string>
#include <vector>

std::map<std::string, std::string> our_signatures();
std::map<std::string, std::string> runtime_signatures();
std::map<std::string, std::string> probe_signatures();

namespace {

/// The functions libmspti.so defines and exports under the runtime's names (acl*, Hccl*).
std::set<std::string> exported_runtime_functions(const char *path) {
    std::ifstream in(path, std::ios::binary);
    std::vector<char> image((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::set<std::string> names;
    if (image.size() < sizeof(Elf64_Ehdr)) return names;
    const auto *ehdr = reinterpret_cast<const Elf64_Ehdr *>(image.data());
    const auto *shdrs = reinterpret_cast<const Elf64_Shdr *>(image.data() + ehdr->e_shoff);
    for (int i = 0; i < ehdr->e_shnum; ++i) {
        if (shdrs[i].sh_type != SHT_DYNSYM) continue;
        const char *strtab = image.data() + shdrs[shdrs[i].sh_link].sh_offset;
        const auto *syms = reinterpret_cast<const Elf64_Sym *>(image.data() + shdrs[i].sh_offset);
        for (size_t k = 0; k < shdrs[i].sh_size / sizeof(Elf64_Sym); ++k) {
            const Elf64_Sym &s = syms[k];
            if (s.st_shndx == SHN_UNDEF || ELF64_ST_TYPE(s.st_info) != STT_FUNC) continue;
            if (ELF64_ST_VISIBILITY(s.st_other) != STV_DEFAULT) continue;
            const std::string name = strtab + s.st_name;
            if (name.rfind("acl", 0) == 0 || name.rfind("Hccl", 0) == 0) names.insert(name);
        }
    }
    return names;
}

}  // namespace

// The list also holds the runtime functions libmspti only calls (looked up with dlsym, e.g.
// HcclGetCommName); what matters is that no exported one is missing from it.
TEST(InterposedAbi, TheListHoldsEveryEntryPointLibmsptiExports) {
    std::set<std::string> listed;
    for (const auto &entry : our_signatures()) listed.insert(entry.first);
    const std::set<std::string> exported = exported_runtime_functions(MSPTI_LIBRARY_PATH);
    ASSERT_GE(exported.size(), 40u) << "acl*/Hccl* functions read from " << MSPTI_LIBRARY_PATH;
    for (const std::string &name : exported) EXPECT_EQ(listed.count(name), 1u) << name << " is not in the list";
}

TEST(InterposedAbi, SignaturesMatchTheRuntimeHeaders) {
    auto ours = our_signatures();
    auto theirs = runtime_signatures();
    ASSERT_EQ(ours.size(), theirs.size());
    EXPECT_GE(ours.size(), 47u);
    for (const auto &[name, signature] : ours) {
        ASSERT_EQ(theirs.count(name), 1u) << name;
        EXPECT_EQ(signature, theirs.at(name)) << name;
    }
}

// The description tells apart what the ABI tells apart: otherwise the comparison above proves nothing.
TEST(InterposedAbi, TheDescriptionSeesEveryDifferenceThatMatters) {
    const auto probes = probe_signatures();
    EXPECT_EQ(probes.at("base"), "i4(p,i8)");
    for (const auto &[difference, signature] : probes) {
        if (difference != "base") {
            EXPECT_NE(signature, probes.at("base")) << difference;
        }
    }
}

// A small JSON reader (objects, arrays, strings, numbers, true/false/null) and the rank-table checks.
#include "hccl_rank_table.h"

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>

namespace vnpu::hccl {
namespace {

struct Json {
    enum class Type { Null, Bool, Number, String, Array, Object } type = Type::Null;
    std::string text;  // String, and the spelling of a Number
    std::vector<Json> items;
    std::map<std::string, Json> fields;

    const Json *get(const std::string &key) const {
        auto it = fields.find(key);
        return it == fields.end() ? nullptr : &it->second;
    }
};

class Parser {
public:
    explicit Parser(const std::string &s) : s_(s) {}

    bool parse(Json &out, std::string &error) {
        if (!value(out, 0) || (skip(), pos_ != s_.size())) {
            error = "not valid JSON near byte " + std::to_string(pos_);
            return false;
        }
        return true;
    }

private:
    void skip() {
        while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
    }
    bool eat(char c) {
        skip();
        if (pos_ < s_.size() && s_[pos_] == c) {
            ++pos_;
            return true;
        }
        return false;
    }
    bool word(const char *w) {
        const size_t n = std::char_traits<char>::length(w);
        if (s_.compare(pos_, n, w) != 0) return false;
        pos_ += n;
        return true;
    }
    bool string(std::string &out) {
        if (!eat('"')) return false;
        while (pos_ < s_.size() && s_[pos_] != '"') {
            char c = s_[pos_++];
            if (c == '\\') {
                if (pos_ >= s_.size()) return false;
                c = s_[pos_++];
                switch (c) {
                case 'n': c = '\n'; break;
                case 't': c = '\t'; break;
                case 'r': c = '\r'; break;
                case 'b': c = '\b'; break;
                case 'f': c = '\f'; break;
                case 'u':  // kept as '?': rank tables are ASCII
                    if (pos_ + 4 > s_.size()) return false;
                    pos_ += 4;
                    c = '?';
                    break;
                default: break;  // \" \\ \/
                }
            }
            out += c;
        }
        return eat('"');
    }
    bool value(Json &out, int depth) {
        if (depth > 32) return false;
        skip();
        if (pos_ >= s_.size()) return false;
        const char c = s_[pos_];
        if (c == '{') {
            ++pos_;
            out.type = Json::Type::Object;
            if (eat('}')) return true;
            do {
                std::string key;
                Json v;
                skip();
                if (!string(key) || !eat(':') || !value(v, depth + 1)) return false;
                out.fields[key] = std::move(v);
            } while (eat(','));
            return eat('}');
        }
        if (c == '[') {
            ++pos_;
            out.type = Json::Type::Array;
            if (eat(']')) return true;
            do {
                Json v;
                if (!value(v, depth + 1)) return false;
                out.items.push_back(std::move(v));
            } while (eat(','));
            return eat(']');
        }
        if (c == '"') {
            out.type = Json::Type::String;
            return string(out.text);
        }
        if (word("true") || word("false")) {
            out.type = Json::Type::Bool;
            return true;
        }
        if (word("null")) return true;
        const size_t start = pos_;
        while (pos_ < s_.size() && (std::isdigit(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '-' ||
                                    s_[pos_] == '+' || s_[pos_] == '.' || s_[pos_] == 'e' || s_[pos_] == 'E')) {
            ++pos_;
        }
        out.type = Json::Type::Number;
        out.text = s_.substr(start, pos_ - start);
        return pos_ > start;
    }

    const std::string &s_;
    size_t pos_ = 0;
};

// A non-negative integer given as a JSON number or a string of digits.
bool integer(const Json *v, long long &out) {
    if (v == nullptr || (v->type != Json::Type::String && v->type != Json::Type::Number) || v->text.empty()) {
        return false;
    }
    char *end = nullptr;
    out = std::strtoll(v->text.c_str(), &end, 10);
    return *end == '\0' && out >= 0;
}

uint64_t fnv1a(const std::string &bytes) {
    uint64_t h = 1469598103934665603ULL;
    for (unsigned char c : bytes) h = (h ^ c) * 1099511628211ULL;
    return h;
}

}  // namespace

bool load_rank_table(const char *path, RankTable &table, std::string &error) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        error = "cannot read the file";
        return false;
    }
    std::stringstream buffer;
    buffer << in.rdbuf();
    const std::string text = buffer.str();
    Json root;
    if (!Parser(text).parse(root, error)) return false;
    if (root.type != Json::Type::Object) {
        error = "the rank table is not a JSON object";
        return false;
    }
    if (const Json *status = root.get("status"); status != nullptr && status->text != "completed") {
        error = "status is \"" + status->text + "\", not \"completed\"";
        return false;
    }
    const Json *servers = root.get("server_list");
    if (servers == nullptr || servers->type != Json::Type::Array || servers->items.empty()) {
        error = "server_list is missing or empty";
        return false;
    }
    long long declared = 0;
    if (const Json *count = root.get("server_count");
        count != nullptr && (!integer(count, declared) || static_cast<size_t>(declared) != servers->items.size())) {
        error = "server_count does not match server_list";
        return false;
    }
    std::vector<RankEntry> by_rank;
    std::vector<bool> seen;
    for (const Json &server : servers->items) {
        const Json *id = server.get("server_id");
        const Json *devices = server.get("device");
        if (id == nullptr || id->type != Json::Type::String || devices == nullptr ||
            devices->type != Json::Type::Array) {
            error = "a server has no server_id or no device list";
            return false;
        }
        for (const Json &device : devices->items) {
            long long device_id = 0, rank_id = 0;
            if (!integer(device.get("device_id"), device_id) || !integer(device.get("rank_id"), rank_id) ||
                rank_id >= 4096) {
                error = "a device of server " + id->text + " lacks a valid device_id or rank_id";
                return false;
            }
            if (static_cast<size_t>(rank_id) >= by_rank.size()) {
                by_rank.resize(static_cast<size_t>(rank_id) + 1);
                seen.resize(static_cast<size_t>(rank_id) + 1);
            }
            if (seen[static_cast<size_t>(rank_id)]) {
                error = "rank_id " + std::to_string(rank_id) + " appears twice";
                return false;
            }
            seen[static_cast<size_t>(rank_id)] = true;
            by_rank[static_cast<size_t>(rank_id)] = RankEntry{id->text, static_cast<int32_t>(device_id)};
        }
    }
    for (size_t r = 0; r < seen.size(); ++r) {
        if (!seen[r]) {
            error = "rank_id " + std::to_string(r) + " is missing (rank ids must be 0..n-1)";
            return false;
        }
    }
    if (by_rank.empty()) {
        error = "no devices";
        return false;
    }
    table.ranks = std::move(by_rank);
    table.content_hash = fnv1a(text);
    return true;
}

}  // namespace vnpu::hccl

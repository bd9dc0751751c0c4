// SQLite, one database per process (docs/trace.md, "SQLite"): the records as msPTI delivered
// them, one table per kind, names in a string table; one transaction per window (WAL). A window
// whose transaction fails (disk full, EIO) is rolled back whole and counted as lost.
#pragma once

#include <sqlite3.h>

#include <string>
#include <unordered_map>
#include <vector>

#include "config.h"
#include "sink.h"

namespace mspti_trace {

class SqliteSink : public Sink {
public:
    SqliteSink(const Config &config, uint32_t pid) : config_(config), pid_(pid) {}
    ~SqliteSink() override;
    bool writes_records_as_they_come() const override { return true; }  // rows, at record()
    bool open(const std::string &path, std::string &error) override;
    void track(const Track &) override {}
    void begin(const Slice &) override {}
    void end(uint32_t, uint64_t) override {}
    void instant(const Slice &) override {}
    void counter(uint32_t, const char *, uint64_t, int64_t) override {}
    void record(const Record &r) override;
    void range(const Record &start, uint64_t end) override;
    void stats(const Stats &s, uint64_t ts, bool final) override;
    void flush() override;
    void close() override;

private:
    // The fixed statements, then one insert per record table (kRecordTable + its index).
    enum Stmt { kRange, kStats, kString, kRecordTable, kCount = kRecordTable + kRecordTableCount };
    int64_t string_id(const char *s);
    sqlite3_stmt *bind(Stmt which, std::initializer_list<int64_t> values);
    void step(sqlite3_stmt *st);
    void exec(const char *sql);
    void write_stats(const Stats &s);
    // A statement of this window failed: the window is rolled back and what it added forgotten.
    void fail_window(int rc);
    // Opens the database again after an I/O error; false while that fails.
    bool reopen();

    const Config &config_;
    uint32_t pid_;
    sqlite3 *db_ = nullptr;
    sqlite3_stmt *stmts_[kCount] = {};
    std::unordered_map<std::string, int64_t> strings_;
    std::vector<std::string> window_strings_;  // added to strings_ in this window
    std::string path_;
    Stats final_stats_{};
    bool have_final_ = false, final_lost_ = false;
    bool in_txn_ = false;
    bool window_failed_ = false;
    bool reopen_ = false;
};

}  // namespace mspti_trace

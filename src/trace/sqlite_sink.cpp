#include "sqlite_sink.h"

#include <unistd.h>

#include <cstdio>

#include "derived.h"
#include "loss.h"
#include "write_fault.h"

namespace mspti_trace {

namespace {

// The tables that are not one per kind; the record tables come from the schema (sqlite_kinds.inc).
const char *const kHeadTables = R"SQL(
PRAGMA journal_mode=WAL;
PRAGMA synchronous=NORMAL;
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE ranks (rank INTEGER, world_size INTEGER, local_rank INTEGER, pid INTEGER, host TEXT);
CREATE TABLE strings (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
)SQL";
const char *const kTailTables = R"SQL(
CREATE TABLE range (id INTEGER, start INTEGER, end INTEGER, source_kind INTEGER, pid_or_device INTEGER,
                    tid_or_stream INTEGER, name_id INTEGER, domain_id INTEGER);
CREATE TABLE stats (kind TEXT PRIMARY KEY, produced INTEGER, delivered INTEGER, dropped INTEGER);
)SQL";

const char *const kInserts[] = {
    "INSERT INTO range VALUES (?,?,?,?,?,?,?,?)",
    "INSERT OR REPLACE INTO stats VALUES (?,?,?,?)",
    "INSERT INTO strings VALUES (?,?)",
};

int64_t i64(uint64_t v) { return static_cast<int64_t>(v); }

}  // namespace

// The record tables, their inserts and each kind's row: generated from schema/records.py.
#include "sqlite_kinds.inc"

SqliteSink::~SqliteSink() { close(); }

void SqliteSink::exec(const char *sql) {
    char *msg = nullptr;
    if (sqlite3_exec(db_, sql, nullptr, nullptr, &msg) != SQLITE_OK) {
        std::fprintf(stderr, "mspti-trace: sqlite: %s\n", msg != nullptr ? msg : "error");
        sqlite3_free(msg);
    }
}

bool SqliteSink::open(const std::string &path, std::string &error) {
    ::unlink(path.c_str());
    path_ = path;
    if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, sqlite_fault_vfs()) !=
        SQLITE_OK) {
        error = "cannot create " + path + ": " + (db_ != nullptr ? sqlite3_errmsg(db_) : "out of memory");
        sqlite3_close(db_);
        db_ = nullptr;
        return false;
    }
    // The tables come first: without them (a disk full from the start) nothing can be written.
    for (const char *tables : {kHeadTables, kRecordTables, kTailTables}) {
        if (sqlite3_exec(db_, tables, nullptr, nullptr, nullptr) != SQLITE_OK) {
            error = "cannot create the tables of " + path + ": " + sqlite3_errmsg(db_);
            close();
            return false;
        }
    }
    for (int i = 0; i < kCount; ++i) {
        const char *sql = i < kRecordTable ? kInserts[i] : kRecordInserts[i - kRecordTable];
        if (sqlite3_prepare_v2(db_, sql, -1, &stmts_[i], nullptr) != SQLITE_OK) {
            error = std::string("sqlite: ") + sqlite3_errmsg(db_);
            close();
            return false;
        }
    }
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    exec("BEGIN");
    sqlite3_stmt *st = nullptr;
    sqlite3_prepare_v2(db_, "INSERT INTO meta VALUES (?,?)", -1, &st, nullptr);
    auto meta = [&](const char *k, const std::string &v) {
        sqlite3_bind_text(st, 1, k, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(st, 2, v.c_str(), -1, SQLITE_TRANSIENT);
        sqlite3_step(st);
        sqlite3_reset(st);
    };
    meta("format", "1");
    meta("pid", std::to_string(pid_));
    meta("rank", std::to_string(config_.rank));
    meta("world_size", std::to_string(config_.world_size));
    meta("start_ns", std::to_string(config_.start_ns));
    meta("host", host);
    sqlite3_finalize(st);
    sqlite3_prepare_v2(db_, "INSERT INTO ranks VALUES (?,?,?,?,?)", -1, &st, nullptr);
    sqlite3_bind_int64(st, 1, config_.rank);
    sqlite3_bind_int64(st, 2, config_.world_size);
    sqlite3_bind_int64(st, 3, config_.local_rank);
    sqlite3_bind_int64(st, 4, pid_);
    sqlite3_bind_text(st, 5, host, -1, SQLITE_TRANSIENT);
    sqlite3_step(st);
    sqlite3_finalize(st);
    exec("COMMIT");
    return true;
}

bool SqliteSink::reopen() {
    for (auto &st : stmts_) {
        sqlite3_finalize(st);
        st = nullptr;
    }
    sqlite3_close(db_);
    db_ = nullptr;
    int rc = sqlite3_open_v2(path_.c_str(), &db_, SQLITE_OPEN_READWRITE, sqlite_fault_vfs());
    for (int i = 0; rc == SQLITE_OK && i < kCount; ++i)
        rc = sqlite3_prepare_v2(db_, i < kRecordTable ? kInserts[i] : kRecordInserts[i - kRecordTable], -1, &stmts_[i],
                                nullptr);
    if (rc == SQLITE_OK) reopen_ = false;
    return rc == SQLITE_OK;
}

void SqliteSink::step(sqlite3_stmt *st) {
    progressed();
    if (window_failed_) return;  // the rest of a failed window is lost with it
    if (reopen_) {  // the database could not be opened again: this window is lost too
        window_failed_ = true;
        return;
    }
    if (!in_txn_) {
        int rc = sqlite3_exec(db_, "BEGIN", nullptr, nullptr, nullptr);
        if (rc != SQLITE_OK) {
            fail_window(rc);
            return;
        }
        in_txn_ = true;
    }
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    if (rc != SQLITE_DONE && rc != SQLITE_ROW) fail_window(rc);
}

void SqliteSink::fail_window(int rc) {
    window_failed_ = true;
    // After an I/O error SQLite's connection may keep failing (its WAL index in doubt): the next
    // window opens the database again, which recovers it from the WAL.
    if ((rc & 0xFF) == SQLITE_IOERR) reopen_ = true;
    if (!sqlite3_get_autocommit(db_)) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    in_txn_ = false;
    for (const std::string &s : window_strings_) strings_.erase(s);  // their rows were rolled back
    window_strings_.clear();
    report_write_failure(path_, sqlite3_errstr(rc));
}

sqlite3_stmt *SqliteSink::bind(Stmt which, std::initializer_list<int64_t> values) {
    sqlite3_stmt *st = stmts_[which];
    int i = 1;
    for (int64_t v : values) sqlite3_bind_int64(st, i++, v);
    return st;
}

int64_t SqliteSink::string_id(const char *s) {
    if (s == nullptr) s = "";
    auto [it, inserted] = strings_.try_emplace(s, static_cast<int64_t>(strings_.size()) + 1);
    if (inserted) {
        window_strings_.push_back(it->first);
        sqlite3_stmt *st = stmts_[kString];
        sqlite3_bind_int64(st, 1, it->second);
        sqlite3_bind_text(st, 2, s, -1, SQLITE_TRANSIENT);
        step(st);
    }
    return it->second;
}

void SqliteSink::range(const Record &start, uint64_t end) {
    if (db_ == nullptr) return;
    const auto &m = start.u.marker;
    int64_t name = string_id(m.name), domain = string_id(m.domain);
    step(bind(kRange, {i64(m.id), i64(m.timestamp), i64(end), m.sourceKind, m.objectId.pt.processId,
                       m.objectId.pt.threadId, name, domain}));
}

void SqliteSink::stats(const Stats &s, uint64_t, bool final) {
    if (db_ == nullptr) return;
    if (final) {
        final_stats_ = s;
        have_final_ = true;
    }
    write_stats(s);
}

void SqliteSink::write_stats(const Stats &s) {
    sqlite3_stmt *st = stmts_[kStats];
    auto row = [&](const char *kind, uint64_t produced, uint64_t delivered, uint64_t dropped) {
        sqlite3_bind_text(st, 1, kind, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int64(st, 2, i64(produced));
        sqlite3_bind_int64(st, 3, i64(delivered));
        sqlite3_bind_int64(st, 4, i64(dropped));
        step(st);
    };
    if (!s.per_kind) row("per_kind_stats_unavailable", 0, 0, 1);
    for (int k = 1; s.per_kind && k < MSPTI_ACTIVITY_KIND_COUNT; ++k) {
        if (!traced_kind(k)) continue;
        row(kind_name(static_cast<msptiActivityKind>(k)), s.kinds[k].produced, s.kinds[k].delivered,
            s.kinds[k].dropped);
    }
    row("filtered", 0, 0, s.filtered);
    row("unmatched_ranges", 0, 0, s.unmatched_ranges);
    if (s.lost != 0) row("lost_to_write_failures", 0, 0, s.lost);
}

void SqliteSink::flush() {
    if (db_ != nullptr && in_txn_ && !window_failed_) {
        int rc = sqlite3_exec(db_, "COMMIT", nullptr, nullptr, nullptr);
        in_txn_ = false;
        if (rc != SQLITE_OK) fail_window(rc);
    }
    in_txn_ = false;
    window_strings_.clear();
    if (window_failed_) {
        window_failed_ = false;
        window_lost_ = true;
        final_lost_ = have_final_;
    }
    if (reopen_) reopen();  // for the next window
}

void SqliteSink::close() {
    if (db_ == nullptr) return;
    flush();
    if (final_lost_) {
        // The last window could not be committed: the stats alone, counting its records as lost.
        final_lost_ = false;
        write_stats(with_window_lost(final_stats_));
        flush();
        if (final_lost_) final_stats_written_ = false;
    }
    for (auto &st : stmts_) {
        sqlite3_finalize(st);
        st = nullptr;
    }
    sqlite3_close(db_);
    db_ = nullptr;
}

}  // namespace mspti_trace

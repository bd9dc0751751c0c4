#include "sqlite_sink.h"

#include <unistd.h>

#include <cstdio>

namespace mspti_trace {

namespace {

const char *const kSchema = R"SQL(
PRAGMA journal_mode=WAL;
PRAGMA synchronous=NORMAL;
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE ranks (rank INTEGER, world_size INTEGER, local_rank INTEGER, pid INTEGER, host TEXT);
CREATE TABLE strings (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE api (start INTEGER, end INTEGER, kind INTEGER, pid INTEGER, tid INTEGER,
                  correlation_id INTEGER, name_id INTEGER);
CREATE TABLE kernel (start INTEGER, end INTEGER, device_id INTEGER, stream_id INTEGER,
                     correlation_id INTEGER, name_id INTEGER, type_id INTEGER);
CREATE TABLE memcpy (start INTEGER, end INTEGER, copy_kind INTEGER, bytes INTEGER, device_id INTEGER,
                     stream_id INTEGER, is_async INTEGER, correlation_id INTEGER);
CREATE TABLE memset (start INTEGER, end INTEGER, value INTEGER, bytes INTEGER, device_id INTEGER,
                     stream_id INTEGER, is_async INTEGER, correlation_id INTEGER);
CREATE TABLE memory (start INTEGER, end INTEGER, operation INTEGER, memory_kind INTEGER, address INTEGER,
                     bytes INTEGER, device_id INTEGER, correlation_id INTEGER);
CREATE TABLE hccl (start INTEGER, end INTEGER, device_id INTEGER, stream_id INTEGER, bandwidth_gbps REAL,
                   bytes INTEGER, name_id INTEGER, comm_id INTEGER);
CREATE TABLE communication (start INTEGER, end INTEGER, device_id INTEGER, stream_id INTEGER,
                            correlation_id INTEGER, count INTEGER, data_type INTEGER, bytes INTEGER,
                            name_id INTEGER, comm_id INTEGER, alg_id INTEGER);
CREATE TABLE marker (timestamp INTEGER, flag INTEGER, source_kind INTEGER, id INTEGER,
                     pid_or_device INTEGER, tid_or_stream INTEGER, name_id INTEGER, domain_id INTEGER);
CREATE TABLE range (id INTEGER, start INTEGER, end INTEGER, source_kind INTEGER, pid_or_device INTEGER,
                    tid_or_stream INTEGER, name_id INTEGER, domain_id INTEGER);
CREATE TABLE stats (kind TEXT PRIMARY KEY, produced INTEGER, delivered INTEGER, dropped INTEGER);
)SQL";

const char *const kInserts[] = {
    "INSERT INTO api VALUES (?,?,?,?,?,?,?)",
    "INSERT INTO kernel VALUES (?,?,?,?,?,?,?)",
    "INSERT INTO memcpy VALUES (?,?,?,?,?,?,?,?)",
    "INSERT INTO memset VALUES (?,?,?,?,?,?,?,?)",
    "INSERT INTO memory VALUES (?,?,?,?,?,?,?,?)",
    "INSERT INTO hccl VALUES (?,?,?,?,?,?,?,?)",
    "INSERT INTO communication VALUES (?,?,?,?,?,?,?,?,?,?,?)",
    "INSERT INTO marker VALUES (?,?,?,?,?,?,?,?)",
    "INSERT INTO range VALUES (?,?,?,?,?,?,?,?)",
    "INSERT OR REPLACE INTO stats VALUES (?,?,?,?)",
    "INSERT INTO strings VALUES (?,?)",
};

int64_t i64(uint64_t v) { return static_cast<int64_t>(v); }

}  // namespace

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
    if (sqlite3_open(path.c_str(), &db_) != SQLITE_OK) {
        error = "cannot create " + path + ": " + (db_ != nullptr ? sqlite3_errmsg(db_) : "out of memory");
        sqlite3_close(db_);
        db_ = nullptr;
        return false;
    }
    exec(kSchema);
    for (int i = 0; i < kCount; ++i) {
        if (sqlite3_prepare_v2(db_, kInserts[i], -1, &stmts_[i], nullptr) != SQLITE_OK) {
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

void SqliteSink::step(sqlite3_stmt *st) {
    if (!in_txn_) {
        exec("BEGIN");
        in_txn_ = true;
    }
    sqlite3_step(st);
    sqlite3_reset(st);
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
        sqlite3_stmt *st = stmts_[kString];
        sqlite3_bind_int64(st, 1, it->second);
        sqlite3_bind_text(st, 2, s, -1, SQLITE_TRANSIENT);
        step(st);
    }
    return it->second;
}

void SqliteSink::record(const Record &r) {
    if (db_ == nullptr) return;
    switch (r.kind()) {
    case MSPTI_ACTIVITY_KIND_API:
    case MSPTI_ACTIVITY_KIND_ACL_API:
    case MSPTI_ACTIVITY_KIND_NODE_API:
    case MSPTI_ACTIVITY_KIND_RUNTIME_API: {
        const auto &a = r.u.api;
        int64_t name = string_id(a.name);
        step(bind(kApi,
                  {i64(a.start), i64(a.end), r.kind(), a.pt.processId, a.pt.threadId, i64(a.correlationId), name}));
        break;
    }
    case MSPTI_ACTIVITY_KIND_KERNEL: {
        const auto &k = r.u.kernel;
        int64_t name = string_id(k.name), type = string_id(k.type);
        step(bind(kKernel, {i64(k.start), i64(k.end), k.ds.deviceId, k.ds.streamId, i64(k.correlationId), name, type}));
        break;
    }
    case MSPTI_ACTIVITY_KIND_MEMCPY: {
        const auto &m = r.u.memcpy;
        step(bind(kMemcpy, {i64(m.start), i64(m.end), m.copyKind, i64(m.bytes), m.deviceId, m.streamId, m.isAsync,
                            i64(m.correlationId)}));
        break;
    }
    case MSPTI_ACTIVITY_KIND_MEMSET: {
        const auto &m = r.u.memset;
        step(bind(kMemset, {i64(m.start), i64(m.end), m.value, i64(m.bytes), m.deviceId, m.streamId, m.isAsync,
                            i64(m.correlationId)}));
        break;
    }
    case MSPTI_ACTIVITY_KIND_MEMORY: {
        const auto &m = r.u.memory;
        step(bind(kMemory, {i64(m.start), i64(m.end), m.memoryOperationType, m.memoryKind, i64(m.address), i64(m.bytes),
                            m.deviceId, i64(m.correlationId)}));
        break;
    }
    case MSPTI_ACTIVITY_KIND_HCCL: {
        const auto &h = r.u.hccl;
        int64_t name = string_id(h.name), comm = string_id(h.commName);
        double bytes = h.bandWidth * static_cast<double>(r.end - r.start);
        sqlite3_stmt *st = bind(kHccl, {i64(h.start), i64(h.end), h.ds.deviceId, h.ds.streamId, 0,
                                        bytes > 0 ? static_cast<int64_t>(bytes + 0.5) : 0, name, comm});
        sqlite3_bind_double(st, 5, h.bandWidth);
        step(st);
        break;
    }
    case MSPTI_ACTIVITY_KIND_COMMUNICATION: {
        const auto &c = r.u.comm;
        int64_t name = string_id(c.name), comm = string_id(c.commName), alg = string_id(c.algType);
        step(bind(kComm, {i64(c.start), i64(c.end), c.ds.deviceId, c.ds.streamId, i64(c.correlationId), i64(c.count),
                          c.dataType, i64(c.count * comm_type_size(c.dataType)), name, comm, alg}));
        break;
    }
    case MSPTI_ACTIVITY_KIND_MARKER: {
        const auto &m = r.u.marker;
        int64_t name = string_id(m.name), domain = string_id(m.domain);
        step(bind(kMarker, {i64(m.timestamp), m.flag, m.sourceKind, i64(m.id), m.objectId.pt.processId,
                            m.objectId.pt.threadId, name, domain}));
        break;
    }
    default: break;
    }
}

void SqliteSink::range(const Record &start, uint64_t end) {
    if (db_ == nullptr) return;
    const auto &m = start.u.marker;
    int64_t name = string_id(m.name), domain = string_id(m.domain);
    step(bind(kRange, {i64(m.id), i64(m.timestamp), i64(end), m.sourceKind, m.objectId.pt.processId,
                       m.objectId.pt.threadId, name, domain}));
}

void SqliteSink::stats(const Stats &s, uint64_t, bool) {
    if (db_ == nullptr) return;
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
        if (k == MSPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION) continue;
        row(kind_name(static_cast<msptiActivityKind>(k)), s.kinds[k].produced, s.kinds[k].delivered,
            s.kinds[k].dropped);
    }
    row("filtered", 0, 0, s.filtered);
    row("unmatched_ranges", 0, 0, s.unmatched_ranges);
}

void SqliteSink::flush() {
    if (db_ != nullptr && in_txn_) exec("COMMIT");
    in_txn_ = false;
}

void SqliteSink::close() {
    if (db_ == nullptr) return;
    flush();
    for (auto &st : stmts_) {
        sqlite3_finalize(st);
        st = nullptr;
    }
    sqlite3_close(db_);
    db_ = nullptr;
}

}  // namespace mspti_trace

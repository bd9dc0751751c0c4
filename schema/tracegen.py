"""The trace tool's per-kind code, generated from each Record's Trace in schema/records.py.

Called by generate.py (``outputs()``). Writes, under src/trace/ (build/generated/src/trace, on the
trace library's include path): record.h (the Record union, its sort times, the kind names and the
layout checks of the kinds the Monitor API does not deliver), kind_words.h (the ``--kinds`` words),
timeline_kinds.inc (each kind's track, slice name, flow and arguments) and sqlite_kinds.inc (the
record tables and their inserts); and python/mspti_trace/_trace_schema.py (the readers' columns).
Hand-written code keeps the tracks, the range pairing, the memory counter and the derived values
the table names (src/trace/derived.h).
"""

SLICE_ARGS = 10  # src/trace/sink.h Slice::kMaxArgs
RAW = 96  # bytes of Record::u.raw


class _Kind:
    """One traced Record with its Trace spec resolved against its fields."""

    def __init__(self, G, r):
        self.G, self.r, self.t = G, r, r.trace
        self.fields = {f.name: f for f in r.fields}
        self.kinds = self.t.kinds or [r.kind]

    def member(self, ref):
        """The C member path of a field, or of an object_id member ("object_id.process_id")."""
        name, _, sub = ref.partition(".")
        f = self.fields[name]
        if sub:
            return f"{f.c}." + next(m.c for m in self.G.object_id_members() if m.name == sub)
        return f.c

    def type_of(self, ref):
        name, _, sub = ref.partition(".")
        if sub:
            return self.G.TYPES[next(m.c_t for m in self.G.object_id_members() if m.name == sub)]
        return self.G.T(self.fields[name])

    def expr(self, text):
        """A Derived expression with {field} replaced by the record's C member (m.<c>)."""
        return text.format(**{n: f"m.{f.c}" for n, f in self.fields.items()})

    def track_fields(self):
        head, _, rest = self.t.track.partition(":")
        return head, [x for x in rest.split(",") if x]

    def _entries(self, listed, implicit, omitted):
        """(output name, field ref or None, Derived or None) in order: the listed ones, then every
        field not named, implicit or omitted."""
        out, named = [], set()
        for e in listed:
            if isinstance(e, self.G.S.Derived):
                out.append((e.name, None, e))
            else:
                name, ref = (e, e) if isinstance(e, str) else e
                out.append((name, ref, None))
                named.add(ref.partition(".")[0])
        for f in self.r.fields:
            if f.name in named or f.name in implicit or f.name in omitted:
                continue
            if self.G.T(f).sql is None:  # object_id: named by member only
                continue
            out.append((f.name, f.name, None))
        return out

    def args(self):
        if self.t.name is None:
            return []  # no slice (memory: a counter)
        implicit = {"kind", self.t.start, self.t.end}
        implicit |= set(self.track_fields()[1])
        if isinstance(self.t.name, str):
            implicit.add(self.t.name)
        elif self.t.name is not None:
            implicit |= {n for n in self.fields if "{" + n + "}" in self.t.name.expr}
        out = self._entries(self.t.args, implicit, set(self.t.no_args))
        assert len(out) <= SLICE_ARGS, f"{self.r.name}: more than {SLICE_ARGS} slice arguments (sink.h kMaxArgs)"
        return out

    def columns(self):
        """(column name, SQL type, field ref or None, Derived or None)."""
        out = []
        for name, ref, d in self._entries(self.t.columns, {"kind"}, set(self.t.no_columns)):
            if d is not None:
                out.append((name, "REAL" if d.real else "INTEGER", None, d))
                continue
            t = self.type_of(ref)
            if t.arg == "string" and isinstance(self._listed(ref), str):
                name = name + "_id"  # a string column holds an id into the strings table
            out.append((name, t.sql, ref, None))
        return out

    def _listed(self, ref):
        for e in self.t.columns:
            if e == ref or (isinstance(e, tuple) and e[1] == ref):
                return e
        return ref  # appended: a plain field


def _kinds(G):
    return [_Kind(G, r) for r in G.S.RECORDS if r.trace]


def _cases(G, k):
    return "\n".join(f"    case {G.kind_const(x)}:" for x in k.kinds)


def gen_record_h(G):
    kinds = _kinds(G)
    members = "\n".join(f"        {k.r.c_struct} {k.t.member};" for k in kinds)
    assign = []
    for k in kinds:
        assign.append(_cases(G, k).replace("    case", "        case"))
        assign.append(f"            start = u.{k.t.member}.{k.member(k.t.start)}, "
                      f"end = u.{k.t.member}.{k.member(k.t.end)};\n            break;")
    checks = []
    for r in G.S.RECORDS:
        if not r.c_struct:
            continue
        checks.append(f"static_assert(sizeof({r.c_struct}) == {r.size}, \"{r.c_struct}: size\");")
        if r.values:
            continue  # the Monitor's schema checks the rest (monitor_schema.h)
        for name, path, _, off, size, _ in G.c_columns(r):
            checks.append(f"static_assert(offsetof({r.c_struct}, {path}) == {off}, \"{r.c_struct}.{path}: offset\");")
            checks.append(f"static_assert(sizeof((({r.c_struct} *)nullptr)->{path}) == {size}, "
                          f"\"{r.c_struct}.{path}: size\");")
    for k in kinds:
        checks.append(f"static_assert(sizeof({k.r.c_struct}) <= {RAW}, \"{k.r.c_struct}: fits Record::u\");")
    host = [x.lower() for k in kinds if k.track_fields()[0] == "thread" for x in k.kinds]
    host_test = "\n           || ".join(f'std::strcmp(category, "{c}") == 0' for c in host) or "false"
    traced = [_cases(G, k) for k in kinds]
    # The correlation id of each kind that carries one (its Trace's flow field), and the side of a
    # launch it is on: host (API calls, memory operations) or device (work on a stream or communicator).
    corr, sides = [], {"host": [], "device": []}
    for k in kinds:
        if not k.t.flow or k.t.flow not in k.fields:
            continue
        corr.append(_cases(G, k) + f"\n        return r.u.{k.t.member}.{k.member(k.t.flow)};")
        how = k.track_fields()[0]
        sides["host" if how in ("thread", "memory") else "device"].append(_cases(G, k))
    names = []
    for n, v, _ in G.ENUMS["MsptiActivityKind"].values:
        if n.endswith(("_COUNT", "_FORCE_INT", "_INVALID")):
            continue
        names.append(f"    case {n}: return \"{n[len('MSPTI_ACTIVITY_KIND_'):].lower()}\";")
    return f"""// {G.HEADER}
// One activity record copied out of an msPTI buffer, with the times every stage sorts by.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "mspti/mspti_activity.h"
#include "mspti/mspti_ext.h"

namespace mspti_trace {{

struct Record {{
    // Record r{{}} zeroes all; Record(kUnset) leaves it unwritten, for the copies assign() fills.
    enum Unset {{ kUnset }};
    Record() = default;
    explicit Record(Unset) {{}}

    union {{
        msptiActivity any;
{members}
        unsigned char raw[{RAW}];
    }} u;
    uint64_t start;  // start, or a marker's timestamp
    uint64_t end;  // end, or a marker's timestamp
    uint64_t seq;  // arrival order, to keep sorts stable

    msptiActivityKind kind() const {{ return u.any.kind; }}

    // Copies a record from a buffer; false for a kind this tool does not know.
    bool assign(const msptiActivity *rec, uint64_t sequence) {{
        size_t size = msptiExtRecordSize(rec->kind);
        if (size == 0 || size > sizeof(u.raw)) return false;
        std::memcpy(u.raw, rec, size);
        seq = sequence;
        switch (rec->kind) {{
{chr(10).join(assign)}
        default:
            return false;
        }}
        if (end < start) end = start;
        return true;
    }}
}};

// The number of record tables (one per traced record of the table).
constexpr int kRecordTableCount = {len(kinds)};

// The table's layouts are msPTI's (include/mspti/mspti_activity.h).
{chr(10).join(checks)}

// Lower-case kind names used in every output format ("kernel", "acl_api", ...); "" for others.
inline const char *kind_name(msptiActivityKind kind) {{
    switch (kind) {{
{chr(10).join(names)}
    default: return "";
    }}
}}

// Whether the tool traces records of `kind` (the kinds its stats list).
inline bool traced_kind(int kind) {{
    switch (kind) {{
{chr(10).join(traced)}
        return true;
    default:
        return false;
    }}
}}

// Whether a slice category is of a kind laid out on host threads: a flow starts there and ends
// on the device side (the JSON sink's flow events).
inline bool host_category(const char *category) {{
    return {host_test};
}}

// The correlation id a record carries (the id joining an API call to the device work it
// launched); MSPTI_INVALID_CORRELATION_ID for the kinds without one.
inline uint64_t correlation_id(const Record &r) {{
    switch (r.kind()) {{
{chr(10).join(corr)}
    default:
        return MSPTI_INVALID_CORRELATION_ID;
    }}
}}

// Which side of a launch a kind's records are on: the host (API calls, memory operations: they
// run on the calling thread) or the device (kernels, copies, collectives: queued, they may run
// long after their launch returned). kNone for the kinds without a correlation id.
enum class LaunchSide : uint8_t {{ kNone, kHost, kDevice }};
inline LaunchSide launch_side(msptiActivityKind kind) {{
    switch (kind) {{
{chr(10).join(sides["host"])}
        return LaunchSide::kHost;
{chr(10).join(sides["device"])}
        return LaunchSide::kDevice;
    default:
        return LaunchSide::kNone;
    }}
}}

// Bytes of one element of a COMMUNICATION data type; 0 when unknown.
uint64_t comm_type_size(uint32_t dataType);

}}  // namespace mspti_trace
"""


def gen_kind_words_h(G):
    kinds = _kinds(G)
    width = max(len(k.kinds) for k in kinds)
    rows = []
    for k in kinds:
        rows.append(f"    {{\"{k.t.word}\", {{{', '.join(G.kind_const(x) for x in k.kinds)}}}}},")
    words = [k.t.word for k in kinds]
    return f"""// {G.HEADER}
// The words of MSPTI_TRACE_KINDS (--kinds) and the msPTI kinds each enables; included by config.cpp.
#pragma once

#include "mspti/mspti_activity.h"

namespace mspti_trace {{

struct KindWord {{
    const char *name;
    msptiActivityKind kinds[{width}];  // unused slots are MSPTI_ACTIVITY_KIND_INVALID (0)
}};

inline constexpr KindWord kKindWords[] = {{
{chr(10).join(rows)}
}};

// Every word: the default list, and the list an unknown word's message names.
inline constexpr const char *kDefaultKinds = "{','.join(words)}";
inline constexpr const char *kKindList = "{', '.join(words)}";

}}  // namespace mspti_trace
"""


def _arg_line(k, name, ref, d):
    if d is not None:
        return f"        s.add_{'double' if d.real else 'uint'}(\"{name}\", {k.expr(d.expr)});"
    t = k.type_of(ref)
    value = f"m.{k.member(ref)}"
    if t.arg == "string":
        value = f"or_empty({value})"
    return f"        s.add_{t.arg}(\"{name}\", {value});"


def gen_timeline_inc(G):
    kinds = _kinds(G)
    args, slices, flows = [], [], []
    for k in kinds:
        a = k.args()
        if a:
            args.append(_cases(G, k) + " {")
            lines = [_arg_line(k, *e) for e in a]
            used = any("m." in x for x in lines)
            args.append(f"        const {k.r.c_struct} &m = r.u.{k.t.member};" + ("" if used else "\n        (void)m;"))
            args += lines
            args.append("        break;\n    }")
        how, fields = k.track_fields()
        if how not in ("thread", "stream", "comm"):
            continue  # memory, marker: laid out by hand (timeline.cpp)
        track = f"{how}_track({', '.join('m.' + k.member(x) for x in fields)})"
        if isinstance(k.t.name, str):
            name = f"or_empty(m.{k.member(k.t.name)})"
        else:
            name = k.expr(k.t.name.expr)
        slices.append(_cases(G, k) + " {")
        slices.append(f"        const {k.r.c_struct} &m = r.u.{k.t.member};")
        slices.append(f"        Slice &s = put({track}, r, {name}, kind_name(r.kind()));")
        if k.t.flow:
            flows.append(_cases(G, k))  # its flows are set by Timeline::put_slice
        slices.append("        add_args(s, r);\n        return true;\n    }")
    return f"""// {G.HEADER}
// Included by src/trace/timeline.cpp inside namespace mspti_trace, after its helpers.

// The slice arguments of a record (for a range, of its start record), in the table's order.
void Timeline::add_args(Slice &s, const Record &r) {{
    switch (r.kind()) {{
{chr(10).join(args)}
    default:
        break;
    }}
}}

// Whether a kind's slice carries a flow (a launch's, joined by correlation id).
bool Timeline::flow_slice(msptiActivityKind kind) {{
    switch (kind) {{
{chr(10).join(flows)}
        return true;
    default:
        return false;
    }}
}}

// The slice of a record the table lays out on a thread, stream or communicator track; false for
// the kinds laid out by hand (marker, memory) and unknown ones.
bool Timeline::add_slice(const Record &r) {{
    switch (r.kind()) {{
{chr(10).join(slices)}
    default:
        return false;
    }}
}}
"""


def _ddl(table, cols):
    head = f"CREATE TABLE {table} ("
    lines, line = [], head
    parts = [f"{n} {t}" for n, t, _, _ in cols]
    for i, p in enumerate(parts):
        piece = p + (", " if i + 1 < len(parts) else ");")
        if len(line) + len(piece.rstrip()) > 110 and line.strip() != head.strip():
            lines.append(line.rstrip())
            line = " " * len(head)
        line += piece
    lines.append(line)
    return "\n".join(lines)


def gen_sqlite_inc(G):
    kinds = _kinds(G)
    ddl, inserts, binds = [], [], []
    for i, k in enumerate(kinds):
        cols = k.columns()
        ddl.append(_ddl(k.t.word, cols))
        inserts.append(f"    \"INSERT INTO {k.t.word} VALUES ({','.join('?' * len(cols))})\",")
        binds.append(_cases(G, k) + " {")
        binds.append(f"        const {k.r.c_struct} &m = r.u.{k.t.member};")
        binds.append(f"        sqlite3_stmt *st = stmts_[kRecordTable + {i}];")
        for j, (name, sql, ref, d) in enumerate(cols, 1):
            if d is not None:
                value = k.expr(d.expr)
            else:
                value = f"m.{k.member(ref)}"
                if k.type_of(ref).arg == "string":
                    value = f"string_id({value})"
            if sql == "REAL":
                binds.append(f"        sqlite3_bind_double(st, {j}, {value});")
            else:
                binds.append(f"        sqlite3_bind_int64(st, {j}, static_cast<int64_t>({value}));")
        binds.append("        step(st);\n        break;\n    }")
    return f"""// {G.HEADER}
// Included by src/trace/sqlite_sink.cpp inside namespace mspti_trace, after its helpers.

namespace {{

// One table per traced record, columns in the table's order (docs/trace.md, "SQLite").
const char *const kRecordTables = R"SQL(
{chr(10).join(ddl)}
)SQL";

// Their inserts, by index from kRecordTable.
const char *const kRecordInserts[kRecordTableCount] = {{
{chr(10).join(inserts)}
}};

}}  // namespace

void SqliteSink::record(const Record &r) {{
    if (db_ == nullptr) return;
    switch (r.kind()) {{
{chr(10).join(binds)}
    default:
        break;
    }}
}}
"""


def gen_trace_schema_py(G):
    kinds = _kinds(G)
    rows = []
    for k in kinds:
        cols = ", ".join(f'"{n}"' for n, _, _, _ in k.columns())
        rows.append(f'    "{k.t.word}": ({cols},),')
    words = ", ".join(f'"{k.t.word}"' for k in kinds)
    return f'''"""What mspti-trace writes per kind: the ``--kinds`` words, and the record tables of its SQLite
files with their columns, in order.

{G.HEADER}
"""

KIND_WORDS = ({words},)
"""The words of ``--kinds`` (MSPTI_TRACE_KINDS), in the table's order."""

TABLES = {{
{chr(10).join(rows)}
}}
"""Each record table's columns (a ``str`` field's column holds an id into the strings table)."""


def select(table, *columns):
    """``SELECT columns FROM table``; a ValueError names a table or column the writer does not have."""
    have = TABLES.get(table)
    if have is None:
        raise ValueError(f"no record table {{table!r}} (tables: {{', '.join(TABLES)}})")
    missing = [c for c in columns if c not in have]
    if missing:
        raise ValueError(f"table {{table!r}} has no column {{', '.join(missing)}} (columns: {{', '.join(have)}})")
    return f"SELECT {{', '.join(columns)}} FROM {{table}}"
'''


def outputs(G):
    return {
        "src/trace/record.h": gen_record_h(G),
        "src/trace/kind_words.h": gen_kind_words_h(G),
        "src/trace/timeline_kinds.inc": gen_timeline_inc(G),
        "src/trace/sqlite_kinds.inc": gen_sqlite_inc(G),
        "python/mspti_trace/_trace_schema.py": gen_trace_schema_py(G),
    }

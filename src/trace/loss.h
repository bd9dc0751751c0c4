// What the trace library says when it loses records to write failures: one line on stderr per
// file, with its path, and datagrams to the launcher (MSPTI_TRACE_NOTIFY, an abstract Unix
// socket name), which exits non-zero for a run that lost records unless --allow-loss.
#pragma once

#include <cstdint>
#include <string>

namespace mspti_trace {

// The first failure to write `path` (later ones are silent); `why` is the error's text.
void report_write_failure(const std::string &path, const char *why);

// The file `path` could not be created (`error` names it and why): nothing is written for `pid`,
// and every record kept is lost. Said on stderr once; the launcher hears of it as a failure.
void report_not_created(const std::string &path, const std::string &error, unsigned pid);

// At exit, the writer of `path` made no progress for idle_ms and was given up on: the file may
// lack its last windows and their records are not counted. Said on stderr; the launcher counts
// an unknown number of records lost.
void report_writer_abandoned(const std::string &path, int idle_ms);

// At the end: `lost` records of `path` are missing; `counted` when the file's stats say so.
void report_loss_total(const std::string &path, uint64_t lost, bool counted);

}  // namespace mspti_trace

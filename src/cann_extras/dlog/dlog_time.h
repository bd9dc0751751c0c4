// Local time for dlog's line stamps and file names without localtime_r on each line: glibc's
// localtime_r (and gmtime_r) take a process-wide lock, and a child forked while another thread
// held it would wait for it forever on its first line. The one call left (once per quarter hour)
// is kept out of fork()'s way by lock_for_fork().
#pragma once

#include <sys/time.h>

namespace dlog {

/** A broken-down local time. */
struct LocalTime {
    int year, month, day, hour, minute, second;  // month and day from 1
};

/** `tv` in local time. localtime_r runs at most once per quarter hour of time (for the UTC offset). */
LocalTime local_time(const timeval &tv);

/**
 * Around fork(), after dlog's own lock: no thread of ours is then inside localtime_r, whose
 * glibc lock a child would otherwise inherit held.
 */
void lock_for_fork();
/** Undoes lock_for_fork(), in the parent and in the child. */
void unlock_after_fork();

}  // namespace dlog

// SIGTERM for the trace: our handler stays installed in front of whatever the program installs,
// and the program sees only its own handlers. sigaction() and signal() are defined here in front
// of libc's: a program's SIGTERM handler becomes the one ours chains to, and a query answers
// with it. So an interpreter that reads the handlers at start-up (Python reports a foreign C
// handler as None, and a program restoring that None fails) or installs its own (Python's
// signal.signal, the JVM) keeps working, and SIGTERM still gets the buffered records written.
#pragma once

namespace mspti_trace {

// What the handler does before it chains to the program's handler.
struct SigtermActions {
    // The program has no handler of its own (SIG_DFL): it is about to die. Writes everything and
    // closes the file; async-signal-safe, bounded.
    void (*finish)();
    // The program has a handler: it may go on, or exit from it. Writes what was delivered so far
    // and leaves the file open; async-signal-safe, bounded.
    void (*sync)();
};

// Installs the handler (once); the program's current SIGTERM disposition becomes the chained one.
void install_sigterm(const SigtermActions &actions);

}  // namespace mspti_trace

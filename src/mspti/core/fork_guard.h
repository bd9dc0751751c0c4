// fork() while collecting: pthread_atfork handlers that take every lock libmspti may hold
// before the fork, release them in the parent, and leave the child a consistent library
// (no lock held by a thread that does not exist there, no half-published state).
#pragma once

namespace mspti::fork_guard {

// Registers the handlers; done once when the library is loaded.
void install();

}  // namespace mspti::fork_guard

// SIGINT and SIGTERM ask canopy-collect to stop: the tool it is running is killed with its
// process group (the tools run in their own group, so a terminal's Ctrl-C would not reach
// them), the incoming dump is removed, and DIR/current stays as it was, in --once and --watch
// alike.
#pragma once
#include <atomic>

namespace canopy::collect {

/** Installs the handlers (without SA_RESTART, so a sleep or poll in progress ends at once) and
    returns the flag they raise: the cancel flag of the tools' runs. */
const std::atomic<bool> &stop_on_signals();

}  // namespace canopy::collect

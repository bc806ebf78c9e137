// canopy-collect --watch: re-collect the fabric whenever the subnet manager
// may have changed it, and publish a dump only when something did change.
//
// Triggers: a line of OpenSM's log that ends a heavy sweep (sweep_ended), and/or
// a fixed polling period. Triggers are debounced: a collection starts once
// none has arrived for `settle` seconds, so one sweep, which logs several lines
// in a burst, gives one collection. Every collection calls collect_once with
// skip_unchanged; a failed one is logged and the next trigger tries again.
// The watcher only stops on SIGINT or SIGTERM, killing any tool it is running,
// so no .incoming-* directory is left behind (stop.h; --once stops so too).
#pragma once
#include <string>
#include <string_view>

#include "collect.h"

namespace canopy::collect {

struct WatchOptions {
  std::string opensm_log;  // OpenSM's log file to follow ("" = none)
  double poll_s = 0;       // re-collect every poll_s seconds (0 = never)
  double settle_s = 2;     // quiet time after the last trigger before collecting
  bool json = false;       // per published dump, a line with its manifest and "dump" (its path) on stdout
};

/** True for the OpenSM log lines that end a heavy sweep with the subnet up:
    "SUBNET UP" (logged at INFO, 0x02, after every successful heavy sweep,
    including those that re-routed), as the plain line and as the VERBOSE
    message box. See docs/canopy-collect.md for why nothing else triggers. */
bool sweep_ended(std::string_view log_line);

/** Collects at start, then on every trigger, until SIGINT/SIGTERM. Returns 0. */
int watch(const CollectOptions &collect, const WatchOptions &options);

}  // namespace canopy::collect

// canopy-collect: dumps the live fabric (ibnetdiscover + ibroute per switch)
// into a directory of atomically published dumps, once (--once) or whenever
// OpenSM's log or a timer says it may have changed (--watch). See
// docs/canopy-collect.md.
#include <sys/stat.h>

#include <cstdio>

#include "cli.h"
#include "collect.h"
#include "common/error.h"
#include "stop.h"
#include "watch.h"

namespace {

constexpr const char *kDefaultOpenSmLog = "/var/log/opensm.log";

struct Modes {
  bool once = false, watch = false, json = false;
  CLI::Option *opensm_log = nullptr, *poll = nullptr;
};

void add_watch_options(CLI::App &app, Modes &modes, canopy::collect::WatchOptions &watch) {
  CLI::Option *once = app.add_flag("--once", modes.once, "Collect one dump and exit");
  CLI::Option *watching = app.add_flag(
      "--watch", modes.watch, "Collect now, then again after every OpenSM heavy sweep (--opensm-log) and/or every\n"
                              "--poll SEC; publish only dumps that differ from DIR/current. Stops on SIGINT/SIGTERM");
  once->excludes(watching);
  app.parse_complete_callback([&modes] {
    if (!modes.once && !modes.watch) throw CLI::RequiredError("one of --once and --watch");
  });
  modes.opensm_log = app.add_option("--opensm-log", watch.opensm_log,
                                    "With --watch: OpenSM log to follow (default /var/log/opensm.log,\n"
                                    "none when only --poll is given)")
                         ->type_name("PATH")
                         ->check(canopy::cli::file_path())
                         ->needs(watching);
  modes.poll = app.add_option("--poll", watch.poll_s, "With --watch: also re-collect every SEC seconds")
                   ->type_name("SEC")
                   ->check(canopy::cli::greater_than(0))
                   ->needs(watching);
  app.add_option("--settle", watch.settle_s, "With --watch: seconds without a new trigger before collecting (default 2)")
      ->type_name("SEC")
      ->check(canopy::cli::at_least(0))
      ->needs(watching);
}

void print_once(const canopy::collect::CollectResult &result, bool json) {
  if (json)
    canopy::cli::print_json(result.manifest);
  else
    std::printf("%s\n", canopy::collect::summary_line(result).c_str());
}

}  // namespace

int main(int argc, char **argv) {
  // Dumps are world-readable whatever the caller's umask (canopyd may run as another user).
  ::umask(022);
  CLI::App app{"Dump the InfiniBand fabric (ibnetdiscover, ibroute per switch) into DIR/dump-*/,\n"
               "validate the dump, and point DIR/current at it atomically."};
  canopy::cli::setup_app(app, "canopy-collect");
  canopy::collect::CollectOptions options;
  canopy::collect::WatchOptions watch;
  Modes modes;
  app.add_option("--out", options.out_dir, "Output directory (created if needed)")
      ->required()
      ->check(canopy::cli::output_path());
  add_watch_options(app, modes, watch);
  app.add_option("--keep", options.keep, "Published dumps to keep (default 5)")->check(CLI::Range(1, 100000));
  app.add_option("--ibnetdiscover", options.ibnetdiscover, "ibnetdiscover program (default: from PATH)");
  app.add_option("--ibroute", options.ibroute, "ibroute program (default: from PATH)");
  app.add_option("--ca", options.ca, "HCA to use, passed to the tools as -C NAME");
  app.add_option("--port", options.port, "HCA port to use, passed to the tools as -P N")->check(CLI::Range(1, 254));
  app.add_option("--timeout", options.timeout_s, "Seconds allowed to each tool run (default 120)")
      ->check(canopy::cli::greater_than(0));
  canopy::cli::add_json_flag(app, modes.json);

  return canopy::cli::run(app, argc, argv, [&] {
    if (modes.watch) {
      // Following a log nobody named only makes sense when no other trigger was asked for.
      if (modes.opensm_log->count() == 0 && modes.poll->count() == 0) watch.opensm_log = kDefaultOpenSmLog;
      watch.json = modes.json;
      return canopy::collect::watch(options, watch);
    }
    options.cancel = &canopy::collect::stop_on_signals();
    print_once(canopy::collect::collect_once(options), modes.json);
    return 0;
  });
}

// canopy-collect: dumps the live fabric (ibnetdiscover + ibroute per switch)
// into a directory of atomically published dumps. See docs/canopy-collect.md.
#include <cstdio>

#include "cli.h"
#include "collect.h"
#include "common/error.h"

int main(int argc, char **argv) {
  CLI::App app{"Dump the InfiniBand fabric (ibnetdiscover, ibroute per switch) into DIR/dump-*/,\n"
               "validate the dump, and point DIR/current at it atomically."};
  canopy::cli::setup_app(app, "canopy-collect");
  canopy::collect::CollectOptions options;
  bool once = false, json = false;
  app.add_option("--out", options.out_dir, "Output directory (created if needed)")->required();
  app.add_flag("--once", once, "Collect one dump and exit (the only mode for now)");
  app.add_option("--keep", options.keep, "Published dumps to keep (default 5)")->check(CLI::Range(1, 100000));
  app.add_option("--ibnetdiscover", options.ibnetdiscover, "ibnetdiscover program (default: from PATH)");
  app.add_option("--ibroute", options.ibroute, "ibroute program (default: from PATH)");
  app.add_option("--ca", options.ca, "HCA to use, passed to the tools as -C NAME");
  app.add_option("--port", options.port, "HCA port to use, passed to the tools as -P N")->check(CLI::Range(1, 254));
  app.add_option("--timeout", options.timeout_s, "Seconds allowed to each tool run (default 120)")
      ->check(CLI::PositiveNumber);
  canopy::cli::add_json_flag(app, json);

  return canopy::cli::run(app, argc, argv, [&] {
    if (!once) throw canopy::Error(CANOPY_ERR_INVALID_ARG, "nothing to do: give --once");
    canopy::collect::CollectResult result = canopy::collect::collect_once(options);
    if (json) {
      canopy::cli::print_json(result.manifest);
    } else {
      const nlohmann::json &m = result.manifest;
      std::printf("%s: %d hosts, %d switches, %d forwarding tables (%.3f s)\n", result.dump_dir.c_str(),
                  m["hosts"].get<int>(), m["switches"].get<int>(), m["forwarding_tables"].get<int>(),
                  m["duration_s"].get<double>());
    }
    return 0;
  });
}

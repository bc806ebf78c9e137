// One collection of the fabric: the real ibnetdiscover, then ibroute for every
// switch it found, validated and published as a dump directory. A future
// --watch mode (re-dump when OpenSM's log shows a change) calls collect_once
// in its loop; everything a run needs is in CollectOptions.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace canopy::collect {

struct CollectOptions {
  std::string out_dir;
  std::string ibnetdiscover = "ibnetdiscover";  // program names (PATH) or paths
  std::string ibroute = "ibroute";
  std::string ca;          // -C for the tools ("": their default)
  int port = 0;            // -P for the tools (0: their default)
  double timeout_s = 120;  // per tool run
  int keep = 5;            // published dumps to keep
};

struct CollectResult {
  std::string dump_dir;     // the published DIR/dump-...
  nlohmann::json manifest;  // as written to its manifest.json
};

/** Collects, validates (canopy::topo::load_dump_dir must accept the dump and find a
    forwarding table for every switch), publishes and prunes. Throws canopy::Error
    with the failing tool's exit status and stderr tail; on any failure the
    incoming directory is removed and DIR/current is left as it was. */
CollectResult collect_once(const CollectOptions &options);

}  // namespace canopy::collect

// One collection of the fabric: the real ibnetdiscover, then ibroute for every
// switch it found, validated and published as a dump directory. --once calls
// collect_once once; --watch (watch.h) calls it on every trigger, with
// skip_unchanged so that a sweep that changed nothing publishes nothing.
#pragma once
#include <atomic>
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
  // Compare with DIR/current first and publish nothing when the fabric, its
  // LIDs, rates and forwarding tables are all the same (topo::diff_fabrics).
  bool skip_unchanged = false;
  // When set and it becomes true, running tools are killed and the collection
  // throws: how --watch stops promptly on SIGINT/SIGTERM.
  const std::atomic<bool> *cancel = nullptr;
};

struct CollectResult {
  bool published = false;
  std::string dump_dir;     // published: the new DIR/dump-...; unchanged: the current dump it equals
  nlohmann::json manifest;  // as written to its manifest.json (published only)
  std::string changes;      // skip_unchanged and published: what differs from the previous dump
};

/** Collects, validates (canopy::topo::load_dump_dir must accept the dump and find a
    forwarding table for every switch), publishes and prunes. Throws canopy::Error
    with the failing tool's exit status and stderr tail; on any failure the
    incoming directory is removed and DIR/current is left as it was. */
CollectResult collect_once(const CollectOptions &options);

/** "DIR/dump-...: N hosts, N switches, N forwarding tables (S s)", the line the tool prints
    for a published dump. */
std::string summary_line(const CollectResult &result);

}  // namespace canopy::collect

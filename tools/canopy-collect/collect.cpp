#include "collect.h"

#include <sys/stat.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <vector>

#include "common/error.h"
#include "common/file_io.h"
#include "common/log.h"
#include "common/text.h"
#include "common/subprocess.h"
#include "dump_store.h"
#include "topo/fabric_diff.h"
#include "topo/loaders/loaders.h"
#include "topo/topology.h"

namespace canopy::collect {
namespace {

// The version a tool prints for --version ("ibnetdiscover BUILD VERSION: 44.0"
// gives "44.0"; infiniband-diags print it on stderr), or "unknown".
std::string tool_version(const std::string &program, const CollectOptions &options) {
  CommandResult run = run_command({program, "--version"}, "", "", 10, options.cancel);
  std::string text = run.exit_code == 0 ? run.out + run.err : "";
  std::string_view first = trim(std::string_view(text).substr(0, text.find('\n')));
  size_t at = first.rfind("VERSION:");
  if (at != std::string_view::npos) first = trim(first.substr(at + 8));
  return first.empty() ? "unknown" : std::string(first);
}

std::string utc_time(std::time_t t, const char *format) {
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  char text[64];
  std::strftime(text, sizeof text, format, &tm);
  return text;
}

std::vector<std::string> tool_argv(const std::string &program, const CollectOptions &options) {
  std::vector<std::string> argv{program};
  if (!options.ca.empty()) argv.insert(argv.end(), {"-C", options.ca});
  if (options.port > 0) argv.insert(argv.end(), {"-P", std::to_string(options.port)});
  return argv;
}

void run_or_throw(const std::vector<std::string> &argv, const std::string &stdout_path, const std::string &what,
                  const CollectOptions &options) {
  CANOPY_LOG(Debug, "running %s > %s", what.c_str(), stdout_path.c_str());
  CommandResult run = run_command(argv, "", stdout_path, options.timeout_s, options.cancel);
  if (run.timed_out || run.cancelled || run.exit_code != 0) throw Error(CANOPY_ERR_IO, describe_failure(what, run));
}

// ibroute <LID> of every switch, into DIR/ibroute/<node GUID>.txt. Switches are
// addressed by LID, so a subnet manager must have assigned LIDs and routes.
void dump_forwarding_tables(const topo::Topology &fabric, const std::string &dir, const CollectOptions &options) {
  std::string lft_dir = dir + "/ibroute";
  if (::mkdir(lft_dir.c_str(), 0755) != 0)
    throw Error(CANOPY_ERR_IO, "cannot create " + lft_dir + ": " + std::strerror(errno));
  for (int s : fabric.switches()) {
    const topo::Node &sw = fabric.node(s);
    std::string who = "switch '" + sw.name + "' (" + guid_string(sw.guid) + ")";
    if (sw.lid == 0)
      throw Error(CANOPY_ERR_NOT_FOUND, who + " has no LID: has a subnet manager configured the fabric?");
    std::vector<std::string> argv = tool_argv(options.ibroute, options);
    argv.push_back(std::to_string(sw.lid));
    run_or_throw(argv, lft_dir + "/" + guid_string(sw.guid) + ".txt",
                 "ibroute " + std::to_string(sw.lid) + " for " + who, options);
  }
}

// Loads the dump the way its readers will; a dump they cannot use is never published.
topo::Topology validate(const std::string &dir) {
  topo::Topology fabric = topo::load_dump_dir(dir);
  size_t switches = fabric.switches().size();
  if (static_cast<size_t>(fabric.num_forwarding_tables()) != switches)
    throw Error(CANOPY_ERR_PARSE, "only " + std::to_string(fabric.num_forwarding_tables()) + " of " +
                                      std::to_string(switches) + " switches have a forwarding table in " + dir);
  return fabric;
}

nlohmann::json make_manifest(const topo::Topology &fabric, const CollectOptions &options, std::time_t created,
                             double duration_s) {
  return {{"format", "canopy-dump/1"},
          {"created", utc_time(created, "%Y-%m-%dT%H:%M:%SZ")},
          {"tools", {{"ibnetdiscover", tool_version(options.ibnetdiscover, options)},
                     {"ibroute", tool_version(options.ibroute, options)}}},
          {"hosts", fabric.hosts().size()},
          {"switches", fabric.switches().size()},
          {"forwarding_tables", fabric.num_forwarding_tables()},
          {"duration_s", std::round(duration_s * 1000) / 1000}};
}

// The fabric as the tools describe it, written into @p dir and validated.
topo::Topology run_tools(const std::string &dir, const CollectOptions &options) {
  std::string discovery = dir + "/ibnetdiscover.txt";
  run_or_throw(tool_argv(options.ibnetdiscover, options), discovery, "ibnetdiscover", options);
  dump_forwarding_tables(topo::load_ibnetdiscover(read_file(discovery), discovery), dir, options);
  return validate(dir);
}

struct Comparison {
  bool same = false;
  std::string current;  // DIR/<the dump current points to>, "" if none
  std::string changes;  // what differs, for the log
};

// Compares @p fabric with the dump DIR/current points to. A missing current
// dump, or one that no longer loads, counts as different: publish the new one.
Comparison compare_with_current(const std::string &out_dir, const topo::Topology &fabric) {
  Comparison result;
  std::string name = current_dump(out_dir);
  if (name.empty()) {
    result.changes = "no current dump in " + out_dir;
    return result;
  }
  result.current = out_dir + "/" + name;
  try {
    topo::FabricDiff diff = topo::diff_fabrics(topo::load_dump_dir(result.current), fabric);
    result.same = diff.same();
    result.changes = diff.summary();
  } catch (const Error &e) {
    result.changes = "the current dump " + result.current + " does not load (" + e.what() + ")";
  }
  return result;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

CollectResult collect_once(const CollectOptions &options) {
  auto started = std::chrono::steady_clock::now();
  std::time_t created = std::time(nullptr);
  IncomingDump incoming(options.out_dir);
  topo::Topology fabric = [&] {
    try {
      return run_tools(incoming.path(), options);
    } catch (const Error &e) {
      // An error naming the dump's files (a parse or validation error) is kept with them.
      if (std::string(e.what()).find(incoming.path()) == std::string::npos) throw;
      throw Error(e.status(), incoming.keep_failed(e.what()));
    }
  }();

  StoreLock lock(options.out_dir, options.timeout_s);
  CollectResult result;
  if (options.skip_unchanged) {
    Comparison comparison = compare_with_current(options.out_dir, fabric);
    if (comparison.same) {
      result.dump_dir = comparison.current;
      return result;  // the incoming directory goes with `incoming`
    }
    result.changes = comparison.changes;
  }
  result.manifest = make_manifest(fabric, options, created, seconds_since(started));
  write_file_atomic(incoming.path() + "/manifest.json", result.manifest.dump(2) + "\n");
  result.dump_dir = incoming.publish(utc_time(created, "%Y%m%dT%H%M%SZ"));
  result.published = true;
  for (const std::string &name : prune_dumps(options.out_dir, options.keep))
    CANOPY_LOG(Info, "removed old dump %s", name.c_str());
  return result;
}

std::string summary_line(const CollectResult &result) {
  const nlohmann::json &m = result.manifest;
  char text[256];
  std::snprintf(text, sizeof text, ": %d hosts, %d switches, %d forwarding tables (%.3f s)", m["hosts"].get<int>(),
                m["switches"].get<int>(), m["forwarding_tables"].get<int>(), m["duration_s"].get<double>());
  return result.dump_dir + text;
}

}  // namespace canopy::collect

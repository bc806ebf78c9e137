#include "coll/plan/layout.h"

#include <algorithm>
#include <map>
#include <numeric>

#include "common/error.h"
#include "common/file_io.h"
#include "common/text.h"
#include "topo/node_topology.h"

namespace canopy::coll {
namespace {

void add_hostmap_line(const std::string &line, const std::string &where, std::vector<std::string> &hosts) {
  std::string name = line;
  long count = 1;
  if (size_t colon = line.rfind(':'); colon != std::string::npos) {
    uint64_t value = 0;
    if (!parse_uint(trim(std::string_view(line).substr(colon + 1)), value, 10) || value < 1 || value > 1000000)
      throw Error(CANOPY_ERR_PARSE, where + ": COUNT after ':' must be an integer from 1 to 1000000");
    count = static_cast<long>(value);
    name = std::string(trim(std::string_view(line).substr(0, colon)));
  }
  if (name.empty() || name.find_first_of(" \t") != std::string::npos)
    throw Error(CANOPY_ERR_PARSE, where + ": expected NAME or NAME:COUNT");
  hosts.insert(hosts.end(), static_cast<size_t>(count), name);
}

}  // namespace

std::vector<std::string> parse_hostmap(const std::string &text, const std::string &path) {
  std::vector<std::string> hosts;
  LineCursor cursor(text);
  for (std::string_view line; cursor.next_content(line);)
    add_hostmap_line(std::string(line), path + ":" + std::to_string(cursor.number()), hosts);
  if (hosts.empty()) throw Error(CANOPY_ERR_PARSE, path + ":1: the host map names no host");
  return hosts;
}

std::vector<std::string> load_hostmap(const std::string &path) { return parse_hostmap(read_file(path), path); }

std::vector<int> synthetic_domains(const std::string &spec, int local_ranks, LeaderDomain domain) {
  topo::NodeTopology node = topo::NodeTopology::load(spec);
  std::vector<int> of_core = domain == LeaderDomain::Numa ? node.core_numa_nodes() : node.core_packages();
  std::vector<int> domains(static_cast<size_t>(std::max(local_ranks, 0)), 0);
  if (of_core.empty()) return domains;
  for (size_t i = 0; i < domains.size(); ++i) domains[i] = std::max(of_core[i % of_core.size()], 0);
  return domains;
}

std::vector<int> leader_groups(const std::vector<int> &domains, int leaders_per_node) {
  size_t n = domains.size();
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return domains[a] < domains[b]; });
  std::vector<int> group(n, 0);
  if (leaders_per_node <= 0) {  // one group per distinct domain, numbered in domain order
    std::map<int, int> dense;
    for (size_t i : order) dense.emplace(domains[i], static_cast<int>(dense.size()));
    for (size_t i = 0; i < n; ++i) group[i] = dense[domains[i]];
    return group;
  }
  size_t groups = std::min(n, static_cast<size_t>(leaders_per_node));
  for (size_t pos = 0; pos < n; ++pos) group[order[pos]] = static_cast<int>(pos * groups / n);
  return group;
}

}  // namespace canopy::coll

#include "map/machine.h"

#include <limits>
#include <unordered_map>

#include "common/error.h"
#include "topo/loaders/loaders.h"
#include "topo/routes.h"

namespace canopy::map {
namespace {

// Hosts hanging from one switch (router) reach every other host along the same
// path after their first link: LFTs forward by destination, dimension order
// starts at the router, and shortest paths share the switch. So one row of
// routes per switch gives the rows of all its hosts; only the pairs under the
// same switch are asked separately.
std::vector<uint16_t> host_hop_matrix(const topo::Topology &topo, const std::vector<int> &hosts) {
  size_t n = hosts.size();
  std::vector<uint16_t> hops(n * n, 0);
  std::unordered_map<int, std::vector<size_t>> by_switch;  // leaf switch -> allocation indexes
  for (size_t i = 0; i < n; ++i) {
    int leaf = topo.leaf_switch(hosts[i]);
    by_switch[leaf >= 0 ? leaf : -1 - static_cast<int>(i)].push_back(i);
  }
  bool shortest = topo::route_method(topo) == topo::RouteMethod::ShortestPath;
  for (const auto &[leaf, members] : by_switch) {
    size_t first = members[0];
    topo::RouteFinder finder(topo, hosts[first]);
    for (size_t j = 0; j < n; ++j) {
      int links = finder.to(hosts[j]).links();
      if (links > std::numeric_limits<uint16_t>::max()) throw Error(CANOPY_ERR_ROUTE, "route longer than 65535 links");
      for (size_t i : members) hops[i * n + j] = static_cast<uint16_t>(links);
    }
    for (size_t a : members)
      for (size_t b : members) {
        if (a == b) hops[a * n + b] = 0;
        else if (shortest) hops[a * n + b] = 2;  // host, shared switch, host
        else hops[a * n + b] = static_cast<uint16_t>(topo::find_route(topo, hosts[a], hosts[b]).links());
      }
  }
  return hops;
}

}  // namespace

NodeLayout NodeLayout::from(const topo::NodeTopology &node, int slots_per_host) {
  NodeLayout layout;
  layout.spec = node.spec();
  layout.cores = node.num_cores();
  if (slots_per_host > layout.cores)
    throw Error(CANOPY_ERR_INVALID_ARG, std::to_string(slots_per_host) + " slots per host, but the node (" + node.spec() +
                                            ") has " + std::to_string(layout.cores) + " cores");
  for (int j = 0; j < slots_per_host; ++j) {
    int core = static_cast<int>(static_cast<int64_t>(j) * layout.cores / slots_per_host);
    layout.slot_core.push_back(core);
    layout.slot_package.push_back(node.core_package(core));
  }
  for (int a : layout.slot_core)
    for (int b : layout.slot_core) layout.distance.push_back(node.core_distance(a, b));
  return layout;
}

Machine::Machine(std::shared_ptr<const topo::Topology> topology, std::vector<int> hosts, int slots_per_host,
                 std::optional<NodeLayout> node)
    : topology_(std::move(topology)), hosts_(std::move(hosts)), slots_per_host_(slots_per_host), node_(std::move(node)) {
  if (hosts_.empty()) throw Error(CANOPY_ERR_INVALID_ARG, "the allocation has no hosts");
  if (slots_per_host_ < 1) throw Error(CANOPY_ERR_INVALID_ARG, "slots per host must be at least 1");
  if (node_ && static_cast<int>(node_->slot_core.size()) != slots_per_host_)
    throw Error(CANOPY_ERR_INVALID_ARG, "the node layout has a different number of slots than the hosts");
  if (static_cast<int64_t>(hosts_.size()) * slots_per_host_ > std::numeric_limits<int>::max() / 2)
    throw Error(CANOPY_ERR_INVALID_ARG, "too many slots");
  hops_ = host_hop_matrix(*topology_, hosts_);
  if (topology_->torus()) {
    for (int h : hosts_) coords_.push_back(topology_->node(h).coords);
  }
}

std::vector<int> allocation_hosts(const topo::Topology &topology, const std::string &text, const std::string &file) {
  std::vector<int> hosts;
  std::unordered_map<int, size_t> line_of;
  for (const topo::HostfileEntry &entry : topo::read_hostfile(text, file)) {
    int host = topology.find_host(entry.name);
    if (host < 0) throw parse_error(file, entry.line, "host '" + entry.name + "' is not in " + topology.source());
    auto [it, added] = line_of.emplace(host, entry.line);
    if (!added)
      throw parse_error(file, entry.line, "host '" + entry.name + "' is listed twice (first on line " +
                                              std::to_string(it->second) + "); give its slots with --ppn");
    hosts.push_back(host);
  }
  return hosts;
}

}  // namespace canopy::map

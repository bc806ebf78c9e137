#include "map/machine.h"

#include <algorithm>
#include <deque>
#include <limits>
#include <unordered_map>

#include "common/error.h"
#include "topo/loaders/loaders.h"
#include "topo/routes.h"
#include "topo/views.h"

namespace canopy::map {
namespace {

// Links from @p source to every node: breadth-first search in which hosts other
// than the source are never transit nodes, as shortest-path routes are found.
std::vector<int> shortest_links(const topo::Topology &topo, int source) {
  std::vector<int> dist(topo.nodes().size(), -1);
  std::deque<int> queue{source};
  dist[static_cast<size_t>(source)] = 0;
  while (!queue.empty()) {
    int node = queue.front();
    queue.pop_front();
    if (node != source && !topo.node(node).is_switch()) continue;
    for (const topo::Port &port : topo.node(node).ports)
      if (port.connected() && dist[static_cast<size_t>(port.peer_node)] < 0) {
        dist[static_cast<size_t>(port.peer_node)] = dist[static_cast<size_t>(node)] + 1;
        queue.push_back(port.peer_node);
      }
  }
  return dist;
}

uint16_t checked_links(int links, const topo::Topology &topo, int a, int b) {
  if (links < 0)
    throw Error(CANOPY_ERR_ROUTE, "no path from " + topo.node(a).name + " to " + topo.node(b).name);
  if (links > std::numeric_limits<uint16_t>::max()) throw Error(CANOPY_ERR_ROUTE, "route longer than 65535 links");
  return static_cast<uint16_t>(links);
}

// Links from the hosts of one switch to every host. Hosts hanging from one switch
// (router) reach every other host along the same path after their first link:
// LFTs forward by destination, dimension order starts at the router, shortest
// paths share the switch. So one row per switch gives the rows of all its hosts.
// Dimension order takes the shorter way round in every dimension: its length is
// the torus distance between the routers, plus the two host links.
std::vector<uint16_t> switch_row(const topo::Topology &topo, const std::vector<int> &hosts, int from) {
  std::vector<uint16_t> row(hosts.size());
  switch (topo::route_method(topo)) {
    case topo::RouteMethod::Lft: {
      topo::RouteFinder finder(topo, from);
      for (size_t j = 0; j < hosts.size(); ++j) row[j] = checked_links(finder.to(hosts[j]).links(), topo, from, hosts[j]);
      break;
    }
    case topo::RouteMethod::DimensionOrder: {
      int router = topo.leaf_switch(from);
      for (size_t j = 0; j < hosts.size(); ++j) {
        int other = topo.leaf_switch(hosts[j]);
        if (router < 0 || other < 0) throw Error(CANOPY_ERR_ROUTE, topo.node(from).name + " or " + topo.node(hosts[j]).name + " has no router");
        row[j] = checked_links(hosts[j] == from ? 0 : 2 + topo.torus()->distance(topo.node(router).coords, topo.node(other).coords), topo, from, hosts[j]);
      }
      break;
    }
    case topo::RouteMethod::ShortestPath: {
      std::vector<int> dist = shortest_links(topo, from);
      for (size_t j = 0; j < hosts.size(); ++j) row[j] = checked_links(dist[static_cast<size_t>(hosts[j])], topo, from, hosts[j]);
      break;
    }
  }
  return row;
}

std::vector<uint16_t> host_hop_matrix(const topo::Topology &topo, const std::vector<int> &hosts) {
  size_t n = hosts.size();
  std::vector<uint16_t> hops(n * n, 0);
  std::unordered_map<int, std::vector<size_t>> by_switch;  // leaf switch -> allocation indexes
  for (size_t i = 0; i < n; ++i) {
    int leaf = topo.leaf_switch(hosts[i]);
    by_switch[leaf >= 0 ? leaf : -1 - static_cast<int>(i)].push_back(i);
  }
  bool lft = topo::route_method(topo) == topo::RouteMethod::Lft;
  for (const auto &[leaf, members] : by_switch) {
    std::vector<uint16_t> row = switch_row(topo, hosts, hosts[members[0]]);
    for (size_t i : members) std::copy(row.begin(), row.end(), hops.begin() + static_cast<std::ptrdiff_t>(i * n));
    // Under one switch: host, switch, host (forwarding tables are asked, they could differ).
    for (size_t a : members)
      for (size_t b : members)
        hops[a * n + b] = a == b ? 0 : lft ? checked_links(topo::find_route(topo, hosts[a], hosts[b]).links(), topo, hosts[a], hosts[b]) : 2;
  }
  return hops;
}

}  // namespace

NodeLayout NodeLayout::from(const topo::NodeTopology &node, int slots_per_host) {
  int cores = node.num_cores();
  if (slots_per_host > cores)
    throw Error(CANOPY_ERR_INVALID_ARG, std::to_string(slots_per_host) + " slots per host, but the node (" + node.spec() +
                                            ") has " + std::to_string(cores) + " cores");
  std::vector<int> slot_core;
  for (int j = 0; j < slots_per_host; ++j) slot_core.push_back(static_cast<int>(static_cast<int64_t>(j) * cores / slots_per_host));
  return on_cores(node, std::move(slot_core));
}

NodeLayout NodeLayout::on_cores(const topo::NodeTopology &node, std::vector<int> slot_core) {
  NodeLayout layout;
  layout.spec = node.spec();
  layout.cores = node.num_cores();
  std::vector<bool> taken(static_cast<size_t>(layout.cores), false);
  for (int core : slot_core) {
    if (core < 0 || core >= layout.cores)
      throw Error(CANOPY_ERR_INVALID_ARG, "core " + std::to_string(core) + " is not in the node (" + node.spec() +
                                              ", " + std::to_string(layout.cores) + " cores)");
    if (taken[static_cast<size_t>(core)])
      throw Error(CANOPY_ERR_INVALID_ARG, "two slots on core " + std::to_string(core) + " of the node (" + node.spec() + ")");
    taken[static_cast<size_t>(core)] = true;
    layout.slot_package.push_back(node.core_package(core));
  }
  layout.slot_core = std::move(slot_core);
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

int allocation_slots(const std::string &text, const std::string &file, int ppn) {
  std::vector<topo::HostfileEntry> entries = topo::read_hostfile(text, file);
  const topo::HostfileEntry &first = entries.front();
  for (const topo::HostfileEntry &entry : entries) {
    auto slots = [](const topo::HostfileEntry &e) { return "host '" + e.name + "' has " + std::to_string(e.slots) + " slots"; };
    if (ppn > 0 && entry.slots > 0 && entry.slots < ppn)
      throw parse_error(file, entry.line, slots(entry) + ", fewer than the " + std::to_string(ppn) + " per host asked for");
    if (ppn > 0) continue;
    if (entry.slots == 0)
      throw parse_error(file, entry.line, "host '" + entry.name + "' gives no slot count ('" + entry.name + " slots=N' or '" +
                                              entry.name + ":N'): give one on every line, or the slots per host (--ppn)");
    if (entry.slots != first.slots)
      throw parse_error(file, entry.line, slots(entry) + ", but " + slots(first) + " (line " + std::to_string(first.line) +
                                              "): hosts must have equal slots; give the slots to use on each (--ppn)");
  }
  return ppn > 0 ? ppn : first.slots;
}

std::vector<std::vector<int>> hierarchy_paths(const Machine &m) {
  topo::Hierarchy h = topo::host_hierarchy(m.topology(), m.host_nodes());
  std::unordered_map<int, int> position;  // topology node -> allocation index
  for (int i = 0; i < m.num_hosts(); ++i) position.emplace(m.host_nodes()[static_cast<size_t>(i)], i);
  std::vector<std::vector<int>> paths(static_cast<size_t>(m.num_hosts()));
  std::vector<std::pair<int, std::vector<int>>> stack{{0, {}}};
  while (!stack.empty()) {
    auto [node, prefix] = std::move(stack.back());
    stack.pop_back();
    const topo::HierarchyNode &n = h.nodes[static_cast<size_t>(node)];
    if (n.children.empty()) {
      for (size_t j = 0; j < n.hosts.size(); ++j) {
        std::vector<int> &path = paths[static_cast<size_t>(position.at(n.hosts[j]))] = prefix;
        path.push_back(static_cast<int>(j));
      }
      continue;
    }
    for (size_t c = 0; c < n.children.size(); ++c) {
      stack.push_back({n.children[c], prefix});
      stack.back().second.push_back(static_cast<int>(c));
    }
  }
  return paths;
}

std::vector<int> hops_by_common_depth(const Machine &m, const std::vector<std::vector<int>> &paths) {
  size_t depth = paths[0].size();
  std::vector<int> hops(depth, -1);
  for (int a = 0; a < m.num_hosts(); ++a) {
    const std::vector<int> &pa = paths[static_cast<size_t>(a)];
    if (pa.size() != depth) return {};
    for (int b = a + 1; b < m.num_hosts(); ++b) {
      const std::vector<int> &pb = paths[static_cast<size_t>(b)];
      size_t d = static_cast<size_t>(std::mismatch(pa.begin(), pa.end(), pb.begin()).first - pa.begin());
      if (d == depth) return {};
      if (hops[d] < 0) hops[d] = m.hops(a, b);
      if (hops[d] != m.hops(a, b)) return {};
    }
  }
  return hops;
}

}  // namespace canopy::map

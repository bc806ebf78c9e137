#include "topo/views.h"

#include <algorithm>
#include <deque>
#include <numeric>

#include "common/params.h"
#include "common/text.h"
#include "topo/route_view.h"
#include "topo/routes.h"

namespace canopy::topo {
namespace {

struct DisjointSets {
  std::vector<int> parent;
  explicit DisjointSets(size_t n) : parent(n) { std::iota(parent.begin(), parent.end(), 0); }
  int find(int x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  }
  void join(int a, int b) { parent[find(a)] = find(b); }
};

// Group id per host at each level: level 1 groups hosts by leaf switch; level L
// groups them by the connected components of the switches of level <= L.
std::vector<std::vector<int>> group_ids_per_level(const Topology &topo, const std::vector<int> &hosts) {
  std::vector<int> leaf(hosts.size());
  int top_level = 1;
  for (size_t i = 0; i < hosts.size(); ++i) leaf[i] = topo.leaf_switch(hosts[i]);
  for (int s : topo.switches()) top_level = std::max(top_level, topo.node(s).level);

  // The switch-to-switch links in the level from which they join: the higher of their ends'
  // (level 1 joins none). One pass over the links, not one per level: a torus has hundreds.
  std::vector<std::vector<const Link *>> joins_at(static_cast<size_t>(std::max(top_level, 2)) + 1);
  for (const Link &link : topo.links()) {
    const Node &a = topo.node(link.node_a), &b = topo.node(link.node_b);
    if (a.is_switch() && b.is_switch() && a.level && b.level)
      joins_at[static_cast<size_t>(std::max({a.level, b.level, 2}))].push_back(&link);
  }
  std::vector<std::vector<int>> levels;
  DisjointSets sets(topo.nodes().size());
  for (int level = 1; level <= top_level; ++level) {
    for (const Link *link : joins_at[static_cast<size_t>(level)]) sets.join(link->node_a, link->node_b);
    std::vector<int> ids(hosts.size());
    for (size_t i = 0; i < hosts.size(); ++i) ids[i] = leaf[i] >= 0 ? sets.find(leaf[i]) : hosts[i];
    levels.push_back(std::move(ids));
  }
  return levels;
}

template <class T>
nlohmann::json rows_of(const std::vector<T> &values, int n) {
  nlohmann::json out = nlohmann::json::array();
  for (int i = 0; i < n; ++i) out.push_back(std::vector<T>(values.begin() + i * n, values.begin() + (i + 1) * n));
  return out;
}

int count_distinct(std::vector<int> ids) {
  std::sort(ids.begin(), ids.end());
  return static_cast<int>(std::unique(ids.begin(), ids.end()) - ids.begin());
}

// The diameter of a coordinate source: its routers form the whole grid, so the links
// between two routers are the sum over the dimensions of their distances along a
// ring (torus) or a line (mesh), and two hosts are those plus their own two links.
// The farthest router with hosts from every grid position comes from one max-plus
// pass per dimension (the distance is a sum over dimensions, so the maximum
// separates): positions x extent per dimension, where a search from every router
// took 58 s at 32,768 routers.
int torus_diameter(const Topology &topo, const TorusShape &shape) {
  constexpr int kNone = -1;  // no router with hosts along the way
  std::vector<size_t> stride(shape.dims.size(), 1);
  for (size_t d = 1; d < shape.dims.size(); ++d) stride[d] = stride[d - 1] * static_cast<size_t>(shape.dims[d - 1]);
  size_t positions = stride.back() * static_cast<size_t>(shape.dims.back());
  auto position = [&](const std::vector<int> &coords) {
    size_t at = 0;
    for (size_t d = 0; d < coords.size(); ++d) at += static_cast<size_t>(coords[d]) * stride[d];
    return at;
  };
  std::vector<int> farthest(positions, kNone);  // after dimension d: over the routers with hosts differing in dims <= d
  std::vector<size_t> with_hosts;
  for (int host : topo.hosts()) {
    const Node &h = topo.node(host);
    if (int port = h.first_connected_port(); port > 0) {
      with_hosts.push_back(position(topo.node(h.ports[static_cast<size_t>(port)].peer_node).coords));
      farthest[with_hosts.back()] = 0;
    }
  }
  if (with_hosts.empty()) return 0;
  std::vector<int> line, reach;
  for (size_t d = 0; d < shape.dims.size(); ++d) {
    int n = shape.dims[d];
    line.resize(static_cast<size_t>(n));
    reach.resize(static_cast<size_t>(n));
    for (size_t start = 0; start < positions; ++start) {
      if ((start / stride[d]) % static_cast<size_t>(n) != 0) continue;  // each line along d once, from its 0
      for (int x = 0; x < n; ++x) line[static_cast<size_t>(x)] = farthest[start + static_cast<size_t>(x) * stride[d]];
      for (int x = 0; x < n; ++x) {
        int best = kNone;
        for (int y = 0; y < n; ++y) {
          if (line[static_cast<size_t>(y)] == kNone) continue;
          int apart = std::abs(x - y);
          if (shape.wrap[d]) apart = std::min(apart, n - apart);
          best = std::max(best, line[static_cast<size_t>(y)] + apart);
        }
        reach[static_cast<size_t>(x)] = best;
      }
      for (int x = 0; x < n; ++x) farthest[start + static_cast<size_t>(x) * stride[d]] = reach[static_cast<size_t>(x)];
    }
  }
  int diameter = 0;
  for (size_t at : with_hosts) diameter = std::max(diameter, farthest[at] + 2);
  return diameter;
}

// The switch (or torus router) at the other end of a host's one cable; -1 for a host with
// several (multi-rail), none, or one to another host.
int only_switch(const Topology &topo, int host) {
  int peer = -1, cables = 0;
  for (const Port &port : topo.node(host).ports)
    if (port.connected()) peer = port.peer_node, ++cables;
  return cables == 1 && !topo.node(peer).is_host() ? peer : -1;
}

}  // namespace

RouteTails::RouteTails(const Topology &topo, size_t max_bytes)
    : nodes_(topo.nodes().size()), max_rows_(max_bytes / (sizeof(Tail) * std::max<size_t>(1, topo.nodes().size()))) {}

RouteTails::Row *RouteTails::row(int switch_node) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = rows_.find(switch_node);
  if (it != rows_.end()) return it->second.get();
  if (rows_.size() >= max_rows_) return nullptr;
  auto row = std::make_unique<Row>();
  row->found.assign(nodes_, false);
  row->to.reset(new Tail[nodes_]);
  return rows_.emplace(switch_node, std::move(row)).first->second.get();
}

HostMatrices host_matrices(const Topology &topo, const std::vector<int> &hosts, RouteTails *kept) {
  const double hop_us = param_double("topo_hop_latency_us");
  const double bits = 8.0 * static_cast<double>(param_int("topo_delay_bytes"));
  const double unknown_gbps = param_double("topo_default_gbps");
  HostMatrices m;
  size_t n = hosts.size();
  m.n = static_cast<int>(n);
  m.hops.assign(n * n, 0);
  m.gbps.assign(n * n, 0);
  m.delay_us.assign(n * n, 0);
  auto set = [&](size_t i, size_t j, int links, double gbps) {
    m.hops[i * n + j] = links;
    m.gbps[i * n + j] = gbps;
    // Gb/s is kilobits per microsecond; rates a source does not give use the default.
    if (links) m.delay_us[i * n + j] = links * hop_us + bits / ((gbps > 0 ? gbps : unknown_gbps) * 1e3);
  };
  // A route leaves its host by the host's cable and goes on as from any other host on that
  // switch: forwarding tables and dimension order route by destination, and the breadth-first
  // tree from a host is its switch's beyond it. So the rest of the routes is found once per
  // (switch, destination), from a host on the switch that is not the destination: a job's
  // hosts share leaf switches (4,096 scattered hosts of 8,192: 2.1 s instead of 6.5 s, most of
  // it now the n x n matrices' memory), and @p kept keeps them for later calls. Hosts with
  // several cables have routes of their own.
  std::map<int, std::vector<size_t>> on_switch;  // switch -> the rows whose host has one cable to it
  for (size_t i = 0; i < n; ++i) {
    if (int s = only_switch(topo, hosts[i]); s >= 0) {
      on_switch[s].push_back(i);
      continue;
    }
    RouteFinder finder(topo, hosts[i]);
    for (size_t j = 0; j < n; ++j) {
      Route route = finder.to(hosts[j]);
      set(i, j, route.links(), route_min_gbps(topo, route));
    }
  }
  std::vector<int> tail_links(n);
  std::vector<double> tail_gbps(n);
  for (const auto &[s, rows] : on_switch) {
    RouteTails::Row *row = kept ? kept->row(s) : nullptr;
    std::unique_lock<std::mutex> lock;
    if (row) lock = std::unique_lock<std::mutex>(row->mutex);
    std::map<int, RouteFinder> finders;  // at most two: a route from one host to itself is no route
    for (size_t j = 0; j < n; ++j) {
      if (row && row->found[static_cast<size_t>(hosts[j])]) {
        tail_links[j] = row->to[static_cast<size_t>(hosts[j])].links;
        tail_gbps[j] = row->to[static_cast<size_t>(hosts[j])].gbps;
        continue;
      }
      auto from = std::find_if(rows.begin(), rows.end(), [&](size_t i) { return hosts[i] != hosts[j]; });
      if (from == rows.end()) continue;  // every row here is j's own host
      Route route = finders.try_emplace(hosts[*from], topo, hosts[*from]).first->second.to(hosts[j]);
      tail_links[j] = route.links() - 1;
      tail_gbps[j] = route_min_gbps(topo, route, 1);
      if (row) {
        row->to[static_cast<size_t>(hosts[j])] = {tail_links[j], tail_gbps[j]};
        row->found[static_cast<size_t>(hosts[j])] = true;
      }
    }
    for (size_t i : rows) {
      double own_gbps = host_link_gbps(topo, hosts[i]);
      for (size_t j = 0; j < n; ++j)
        set(i, j, hosts[j] == hosts[i] ? 0 : 1 + tail_links[j],
            hosts[j] == hosts[i] ? own_gbps : std::min(own_gbps, tail_gbps[j]));
    }
  }
  return m;
}

Hierarchy host_hierarchy(const Topology &topo, const std::vector<int> &hosts) {
  std::vector<std::vector<int>> levels = group_ids_per_level(topo, hosts);
  // Keep a level only where it merges groups; the last one becomes the root.
  std::vector<std::vector<int>> kept;
  for (auto &ids : levels)
    if (kept.empty() || count_distinct(ids) < count_distinct(kept.back())) kept.push_back(std::move(ids));
  if (count_distinct(kept.back()) > 1 || kept.size() == 1) kept.push_back(std::vector<int>(hosts.size(), -1));

  Hierarchy tree;
  tree.levels = static_cast<int>(kept.size());
  tree.nodes.push_back({-1, tree.levels, -1, {}, {}});
  // Top-down: each level's groups become children of the group above that holds them.
  std::vector<int> above(hosts.size(), 0);  // hierarchy node of each host at the level above
  for (int level = tree.levels - 1; level >= 1; --level) {
    std::map<std::pair<int, int>, int> node_of_group;  // (node above, group id) -> node
    for (size_t i = 0; i < hosts.size(); ++i) {
      auto [it, added] = node_of_group.try_emplace({above[i], kept[level - 1][i]}, static_cast<int>(tree.nodes.size()));
      if (added) {
        tree.nodes.push_back({above[i], level, level == 1 ? topo.leaf_switch(hosts[i]) : -1, {}, {}});
        tree.nodes[above[i]].children.push_back(it->second);
      }
      above[i] = it->second;
    }
  }
  for (size_t i = 0; i < hosts.size(); ++i)
    for (int node = above[i]; node >= 0; node = tree.nodes[node].parent) tree.nodes[node].hosts.push_back(hosts[i]);
  return tree;
}

std::vector<std::vector<int>> leaf_groups(const Topology &topo, const std::vector<int> &hosts) {
  Hierarchy tree = host_hierarchy(topo, hosts);
  std::vector<std::vector<int>> groups;
  for (const HierarchyNode &node : tree.nodes)
    if (node.level == 1) groups.push_back(node.hosts);
  return groups;
}

// One JSON shape for a route, whoever prints it (the CLI, canopyd): the view's.
nlohmann::json route_json(const Topology &topo, const Route &route) {
  return route_view_json(describe_route(topo, route));
}

nlohmann::json matrix_rows(const std::vector<int> &values, int n) { return rows_of(values, n); }
nlohmann::json matrix_rows(const std::vector<double> &values, int n) { return rows_of(values, n); }

Summary summarize(const Topology &topo) {
  Summary s;
  s.hosts = static_cast<int>(topo.hosts().size());
  s.switches = static_cast<int>(topo.switches().size());
  s.links = static_cast<int>(topo.links().size());
  for (int sw : topo.switches()) s.levels = std::max(s.levels, topo.node(sw).level);
  for (const Link &link : topo.links()) ++s.rates[rate_string(link.rate)];
  s.forwarding_tables = topo.num_forwarding_tables();
  s.forwarding = check_forwarding_tables(topo, 10);
  // Connected parts holding hosts: more than one, and some host pairs have no route at all.
  DisjointSets parts(topo.nodes().size());
  for (const Link &link : topo.links()) parts.join(link.node_a, link.node_b);
  std::vector<int> part_of_host;
  for (int host : topo.hosts()) part_of_host.push_back(parts.find(host));
  s.parts = count_distinct(std::move(part_of_host));
  if (topo.torus()) {
    s.diameter = torus_diameter(topo, *topo.torus());
    return s;
  }
  // Diameter over shortest paths (within each part): breadth-first search from every switch with hosts.
  std::vector<int> distance(topo.nodes().size());
  for (int start : topo.switches()) {
    if (topo.node(start).level != 1) continue;
    std::fill(distance.begin(), distance.end(), -1);
    distance[start] = 0;
    std::deque<int> queue{start};
    while (!queue.empty()) {
      int node = queue.front();
      queue.pop_front();
      for (const Port &port : topo.node(node).ports) {
        if (!port.connected() || distance[port.peer_node] >= 0) continue;
        distance[port.peer_node] = distance[node] + 1;
        if (topo.node(port.peer_node).is_switch()) queue.push_back(port.peer_node);
        else s.diameter = std::max(s.diameter, distance[port.peer_node] + 1);
      }
    }
  }
  return s;
}

nlohmann::json summary_json(const Topology &topo, const Summary &s) {
  nlohmann::json rates = nlohmann::json::object();
  for (const auto &[rate, count] : s.rates) rates[rate] = count;
  return {{"source", topo.source()},
          {"hosts", s.hosts},
          {"switches", s.switches},
          {"links", s.links},
          {"levels", s.levels},
          {"diameter", s.diameter},
          {"connected_parts", s.parts},
          {"link_rates", rates},
          {"forwarding_tables", s.forwarding_tables},
          {"forwarding_problems", s.forwarding.problems},
          {"routes", route_method_name(route_method(topo))}};
}

}  // namespace canopy::topo

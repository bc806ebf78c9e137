#include "topo/routes.h"

#include <algorithm>
#include <deque>

#include "common/error.h"
#include "common/text.h"

namespace canopy::topo {
namespace {

std::string describe(const Topology &topo, int node) {
  const Node &n = topo.node(node);
  return n.name + " (" + guid_string(n.guid) + ")";
}

int require_port(const Topology &topo, int host) {
  int port = topo.node(host).first_connected_port();
  if (!port) throw Error(CANOPY_ERR_ROUTE, "host " + describe(topo, host) + " is not connected");
  return port;
}

// Follows the switches' forwarding tables from host a towards host b's LID, as
// the hardware does; reports the first hole or loop it meets.
Route lft_route(const Topology &topo, int a, int b) {
  uint32_t lid = topo.node(b).lid;
  if (!lid) throw Error(CANOPY_ERR_ROUTE, "host " + describe(topo, b) + " has no LID");
  Route route{RouteMethod::Lft, {}};
  route.hops.reserve(8);  // one allocation for the usual fat-tree route (canopyd answers many)
  int out = require_port(topo, a);
  route.hops.push_back({a, 0, out});
  const Port *link = &topo.node(a).ports[out];
  for (;;) {
    int node = link->peer_node, in = link->peer_port;
    if (node == b) {
      route.hops.push_back({b, in, 0});
      return route;
    }
    if (!topo.node(node).is_switch())
      throw Error(CANOPY_ERR_ROUTE, "route to LID " + std::to_string(lid) + " reaches " + describe(topo, node) +
                                        " instead of " + describe(topo, b));
    for (const RouteHop &hop : route.hops)
      if (hop.node == node)
        throw Error(CANOPY_ERR_ROUTE, "forwarding loop for LID " + std::to_string(lid) + " through switch " +
                                          describe(topo, node));
    uint8_t egress = topo.forwarding_port(node, lid);
    if (egress == Topology::kNoPort || egress == 0)
      throw Error(CANOPY_ERR_ROUTE, "forwarding hole: switch " + describe(topo, node) + " has no entry for LID " +
                                        std::to_string(lid));
    if (egress > topo.node(node).num_ports() || !topo.node(node).ports[egress].connected())
      throw Error(CANOPY_ERR_ROUTE, "switch " + describe(topo, node) + " forwards LID " + std::to_string(lid) +
                                        " to port " + std::to_string(egress) + ", which is down");
    route.hops.push_back({node, in, egress});
    link = &topo.node(node).ports[egress];
  }
}

// Dimension-order routing on a torus/mesh: correct dimension 0 fully, then 1, ...
// taking the shorter way round where the dimension wraps (ties go up).
Route dimension_order_route(const Topology &topo, int a, int b) {
  const TorusShape &shape = *topo.torus();
  Route route{RouteMethod::DimensionOrder, {}};
  int out = require_port(topo, a);
  route.hops.push_back({a, 0, out});
  int node = topo.node(a).ports[out].peer_node, in = topo.node(a).ports[out].peer_port;
  const std::vector<int> &target = topo.node(b).coords;
  for (size_t d = 0; d < shape.dims.size(); ++d) {
    while (topo.node(node).coords.at(d) != target.at(d)) {
      int here = topo.node(node).coords[d], extent = shape.dims[d];
      int up = ((target[d] - here) % extent + extent) % extent;
      int step = !shape.wrap[d] ? (target[d] > here ? 1 : -1) : (up <= extent - up ? 1 : -1);
      int next = (here + step + extent) % extent;
      int egress = 0;
      for (int p = 1; p <= topo.node(node).num_ports() && !egress; ++p) {
        const Port &port = topo.node(node).ports[p];
        if (!port.connected() || !topo.node(port.peer_node).is_switch()) continue;
        // The neighbour one step along d: its coordinates are this router's but for d, which is next.
        const std::vector<int> &c = topo.node(port.peer_node).coords, &own = topo.node(node).coords;
        if (c.size() != shape.dims.size() || c.size() != own.size() || c[d] != next) continue;
        bool along_d = true;
        for (size_t k = 0; k < c.size() && along_d; ++k) along_d = k == d || c[k] == own[k];
        if (along_d) egress = p;
      }
      if (!egress) throw Error(CANOPY_ERR_ROUTE, "no link from " + describe(topo, node) + " along dimension " +
                                                     std::to_string(d));
      route.hops.push_back({node, in, egress});
      in = topo.node(node).ports[egress].peer_port;
      node = topo.node(node).ports[egress].peer_node;
    }
  }
  for (int p = 1; p <= topo.node(node).num_ports(); ++p)
    if (topo.node(node).ports[p].peer_node == b) {
      route.hops.push_back({node, in, p});
      route.hops.push_back({b, topo.node(node).ports[p].peer_port, 0});
      return route;
    }
  throw Error(CANOPY_ERR_ROUTE, describe(topo, b) + " is not attached to router " + describe(topo, node));
}

}  // namespace

const char *route_method_name(RouteMethod method) {
  switch (method) {
    case RouteMethod::Lft: return "lft";
    case RouteMethod::ShortestPath: return "shortest-path";
    case RouteMethod::DimensionOrder: return "dimension-order";
  }
  return "?";
}

double hop_gbps(const Topology &topo, const RouteHop &hop) {
  return hop.out_port ? topo.node(hop.node).ports[hop.out_port].rate.gbps : 0;
}

double host_link_gbps(const Topology &topo, int host) {
  const Node &node = topo.node(host);
  int port = node.first_connected_port();
  return port ? node.ports[port].rate.gbps : 0;
}

double route_min_gbps(const Topology &topo, const Route &route, size_t first) {
  if (route.hops.size() == 1) return host_link_gbps(topo, route.hops[0].node);
  double slowest = 0;
  for (size_t i = first; i + 1 < route.hops.size(); ++i) {
    double gbps = hop_gbps(topo, route.hops[i]);
    slowest = i == first ? gbps : std::min(slowest, gbps);
  }
  return slowest;
}

RouteFinder::RouteFinder(const Topology &topo, int source) : topo_(topo), source_(source) {
  if (!topo.node(source).is_host()) throw Error(CANOPY_ERR_INVALID_ARG, describe(topo, source) + " is not a host");
  if (topo.has_forwarding_tables() || topo.torus()) return;
  // Breadth-first search in port order (deterministic); hosts other than the
  // source are never transit nodes.
  parent_.assign(topo.nodes().size(), {-1, 0});
  parent_[source] = {source, 0};
  std::deque<int> queue{source};
  while (!queue.empty()) {
    int node = queue.front();
    queue.pop_front();
    if (node != source && !topo.node(node).is_switch()) continue;
    const Node &n = topo.node(node);
    for (int p = 1; p <= n.num_ports(); ++p) {
      const Port &port = n.ports[p];
      if (port.connected() && parent_[port.peer_node].first < 0) {
        parent_[port.peer_node] = {node, p};
        queue.push_back(port.peer_node);
      }
    }
  }
}

Route RouteFinder::to(int target) const {
  if (!topo_.node(target).is_host()) throw Error(CANOPY_ERR_INVALID_ARG, describe(topo_, target) + " is not a host");
  if (target == source_) return Route{method(), {{source_, 0, 0}}};
  if (topo_.has_forwarding_tables()) return lft_route(topo_, source_, target);
  if (topo_.torus()) return dimension_order_route(topo_, source_, target);
  if (parent_[target].first < 0)
    throw Error(CANOPY_ERR_ROUTE, "no path from " + describe(topo_, source_) + " to " + describe(topo_, target));
  // Walk the BFS tree back from the target, then reverse.
  Route route{RouteMethod::ShortestPath, {}};
  int node = target, out = 0;
  while (node != source_) {
    auto [previous, previous_port] = parent_[node];
    route.hops.push_back({node, topo_.node(previous).ports[previous_port].peer_port, out});
    out = previous_port;
    node = previous;
  }
  route.hops.push_back({source_, 0, out});
  std::reverse(route.hops.begin(), route.hops.end());
  return route;
}

RouteMethod route_method(const Topology &topo) {
  return topo.has_forwarding_tables() ? RouteMethod::Lft
         : topo.torus()               ? RouteMethod::DimensionOrder
                                      : RouteMethod::ShortestPath;
}

RouteMethod RouteFinder::method() const { return route_method(topo_); }

Route find_route(const Topology &topo, int host_a, int host_b) { return RouteFinder(topo, host_a).to(host_b); }

ForwardingCheck check_forwarding_tables(const Topology &topo, size_t max_reports) {
  ForwardingCheck check;
  if (!topo.has_forwarding_tables()) return check;
  // Host LIDs are checked a block at a time, switch by switch: a switch's entries for the
  // block's LIDs (usually consecutive) share a cache line or two, read once per block instead
  // of one cache miss per host. state[node * kBlock + b]: the fate of the walk towards host b.
  constexpr size_t kBlock = 64;
  enum : uint8_t { Unknown, OnPath, Reaches, Fails };
  std::vector<int> hosts;
  for (int host : topo.hosts())
    if (topo.node(host).lid) hosts.push_back(host);
  std::vector<uint8_t> state(topo.nodes().size() * kBlock);
  std::vector<std::vector<ForwardingProblem>> found(kBlock);  // the block's first problems, host by host
  std::vector<int> path;
  for (size_t first = 0; first < hosts.size(); first += kBlock) {
    size_t block = std::min(kBlock, hosts.size() - first);
    std::fill(state.begin(), state.end(), Unknown);
    for (int start : topo.switches())
      for (size_t b = 0; b < block; ++b) {
        int host = hosts[first + b];
        uint32_t lid = topo.node(host).lid;
        // A walk ends at the host, at a switch whose fate is known, or at the first bad
        // entry, and all switches on it share that fate.
        auto at = [&](int node) -> uint8_t & { return state[static_cast<size_t>(node) * kBlock + b]; };
        path.clear();
        int node = start;
        uint8_t fate = Unknown;
        int previous = -1;
        auto report = [&](int where, std::string what) {
          if (check.first.size() + found[b].size() < max_reports) found[b].push_back({where, lid, std::move(what)});
          ++check.problems;
          fate = Fails;
        };
        while (fate == Unknown) {
          if (node == host || at(node) == Reaches) {
            fate = Reaches;
          } else if (at(node) == Fails) {
            fate = Fails;
          } else if (!topo.node(node).is_switch()) {
            report(previous, "forwards to " + describe(topo, node));
          } else if (at(node) == OnPath) {
            report(node, "forwarding loop");
          } else {
            at(node) = OnPath;
            path.push_back(node);
            uint8_t egress = topo.forwarding_port(node, lid);
            if (egress == Topology::kNoPort || egress == 0) {
              report(node, "hole: no entry");
            } else if (egress > topo.node(node).num_ports() || !topo.node(node).ports[egress].connected()) {
              report(node, "egress port " + std::to_string(egress) + " is down");
            } else {
              previous = node;
              node = topo.node(node).ports[egress].peer_node;
            }
          }
        }
        for (int n : path) at(n) = fate;
      }
    for (size_t b = 0; b < block; ++b) {
      for (ForwardingProblem &problem : found[b])
        if (check.first.size() < max_reports) check.first.push_back(std::move(problem));
      found[b].clear();
    }
  }
  return check;
}

}  // namespace canopy::topo

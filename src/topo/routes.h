// Routes between hosts: the one the fabric really uses when forwarding tables
// are loaded (followed hop by hop), dimension-order on tori, otherwise a
// shortest path. Also a whole-fabric check of the forwarding tables.
#pragma once
#include <string>
#include <vector>

#include "topo/topology.h"

namespace canopy::topo {

enum class RouteMethod { Lft, ShortestPath, DimensionOrder };
const char *route_method_name(RouteMethod method);  // "lft", "shortest-path", "dimension-order"
/** The rule routes of @p topo follow: its forwarding tables, dimension order on a torus, or shortest paths. */
RouteMethod route_method(const Topology &topo);

struct RouteHop {
  int node;
  int in_port;   // 0 at the source host
  int out_port;  // 0 at the destination host
};

struct Route {
  RouteMethod method = RouteMethod::ShortestPath;
  std::vector<RouteHop> hops;  // source host ... destination host

  int links() const { return hops.empty() ? 0 : static_cast<int>(hops.size()) - 1; }
};

/** Rate of the link leaving @p hop (0 at the destination). */
double hop_gbps(const Topology &topo, const RouteHop &hop);
/** Rate of a host's link to the fabric (its lowest-numbered cabled port); 0 without one. */
double host_link_gbps(const Topology &topo, int host);
/** Rate of the slowest link on the route from hop @p first on (the host's own link rate for a
    one-node route). */
double route_min_gbps(const Topology &topo, const Route &route, size_t first = 0);

/** Routes from one source host to any other; computes what is shared once
    (the breadth-first tree when routes are shortest paths). */
class RouteFinder {
 public:
  RouteFinder(const Topology &topo, int source_host);
  /** Throws Error(ROUTE) on an LFT hole or loop, or when no path exists. */
  Route to(int target_host) const;
  RouteMethod method() const;

 private:
  const Topology &topo_;
  int source_;
  std::vector<std::pair<int, int>> parent_;  // BFS tree: (previous node, its egress port)
};

/** The route between two hosts (node indexes). Throws Error(ROUTE) on an LFT hole or loop. */
Route find_route(const Topology &topo, int host_a, int host_b);

struct ForwardingProblem {
  int switch_node;
  uint32_t lid;      // destination LID
  std::string what;  // "hole: no entry", "loop through ...", "egress port 7 is down"
};

/** The (switch, destination host LID) pairs whose forwarding path does not reach the host. */
struct ForwardingCheck {
  size_t problems = 0;                  // all of them
  std::vector<ForwardingProblem> first;  // the first max_reports, host by host
};

/** Every (switch, host LID) pair checked; none when there are no forwarding tables. Only the
    first @p max_reports problems are kept: a fabric dumped before it was routed has one per
    pair (10 million at 8,192 hosts). */
ForwardingCheck check_forwarding_tables(const Topology &topo, size_t max_reports = 100);

}  // namespace canopy::topo

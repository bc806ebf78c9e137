// Derived views for a list of hosts, used by the service, mapping and the
// collectives: hop / slowest-link / delay matrices, leaf-switch grouping, and
// the hierarchy tree (leaf switch -> hosts, then upward); plus a fabric summary.
#pragma once
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "topo/routes.h"
#include "topo/topology.h"

namespace canopy::topo {

struct HostMatrices {
  int n = 0;
  std::vector<int> hops;         // n*n, links on the route
  std::vector<double> gbps;      // n*n, slowest link on the route
  std::vector<double> delay_us;  // n*n, hops*topo_hop_latency_us + topo_delay_bytes/slowest rate
};

/** The rest of the routes after a host's cable, from each switch to each host, as
    host_matrices finds them, kept for later calls on one topology: canopyd keeps one per
    snapshot, since a large matrix is asked in blocks that name each host many times. Safe to
    share between threads. Keeps at most @p max_bytes (16 bytes per node of the fabric for each
    switch it keeps; beyond that the routes from other switches are found for the call alone). */
class RouteTails {
 public:
  RouteTails(const Topology &topo, size_t max_bytes);

 private:
  friend HostMatrices host_matrices(const Topology &, const std::vector<int> &, RouteTails *);
  struct Tail {
    int64_t links;
    double gbps;
  };
  struct Row {
    std::mutex mutex;
    std::vector<bool> found;      // by destination node
    std::unique_ptr<Tail[]> to;  // left uninitialized: memory is touched only where found
  };
  /** The row of @p switch_node, made on first use; nullptr once the budget is spent. */
  Row *row(int switch_node);

  std::mutex mutex_;
  std::map<int, std::unique_ptr<Row>> rows_;
  size_t nodes_, max_rows_;
};

/** Matrices for @p hosts (node indexes), rows and columns in that order; with @p kept, the
    routes found are kept there and those kept are used (@p kept must be for @p topo). */
HostMatrices host_matrices(const Topology &topo, const std::vector<int> &hosts, RouteTails *kept = nullptr);

/** The hierarchy over a host list: nodes[0] is the root; leaves of the tree are
    groups of hosts sharing a leaf switch (a switch-less source: one group per host). */
struct HierarchyNode {
  int parent = -1;
  int level = 0;              // 1 = leaf-switch group, increasing upward
  int switch_node = -1;       // leaf groups: the leaf switch; -1 for upper groups
  std::vector<int> children;  // hierarchy node indexes
  std::vector<int> hosts;     // host node indexes in this subtree, in input order
};

struct Hierarchy {
  std::vector<HierarchyNode> nodes;
  int levels = 0;
};

Hierarchy host_hierarchy(const Topology &topo, const std::vector<int> &hosts);
/** The leaf-switch groups of @p hosts (the level-1 nodes of the hierarchy). */
std::vector<std::vector<int>> leaf_groups(const Topology &topo, const std::vector<int> &hosts);

struct Summary {
  int hosts = 0, switches = 0, links = 0, levels = 0;
  int diameter = 0;                  // links on the longest shortest host-to-host path
  int parts = 0;                     // connected parts holding hosts: 1 unless some hosts cannot reach others
  std::map<std::string, int> rates;  // "4xQDR" -> number of links
  int forwarding_tables = 0;
  ForwardingCheck forwarding;        // the problems' count and the first 10 (for a listing)
};

/** A route as `canopy route --json` prints it and canopyd answers it: source, method, from, to,
    links, min_gbps and the path (name, type, guid, in_port, out_port, out_gbps, out_rate per hop). */
nlohmann::json route_json(const Topology &topo, const Route &route);
/** A row-major n x n matrix as n JSON arrays. */
nlohmann::json matrix_rows(const std::vector<int> &values, int n);
nlohmann::json matrix_rows(const std::vector<double> &values, int n);

Summary summarize(const Topology &topo);
nlohmann::json summary_json(const Topology &topo, const Summary &summary);

}  // namespace canopy::topo

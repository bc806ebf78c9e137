// How good a placement is, measured on the routes the fabric really uses (its
// forwarding tables when loaded, dimension order on tori, shortest paths
// otherwise): hop-bytes, link loads, dilation, and bytes crossing sockets.
#pragma once
#include <algorithm>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "map/mapping.h"

namespace canopy::topo {
struct Route;
}

namespace canopy::map {

/** Bytes each directed link carries: the cable leaving a node through one of its ports. */
class LinkLoads {
 public:
  LinkLoads() = default;
  explicit LinkLoads(const topo::Topology &topo);
  /** Adds @p bytes to every link the route leaves a node by. */
  void add(const topo::Route &route, double bytes);
  /** Bytes leaving @p node through @p port (0 for a port without traffic). */
  double bytes(int node, int port) const { return bytes_[offset_[static_cast<size_t>(node)] + static_cast<size_t>(port)]; }
  /** The busier direction of @p link: what limits it. */
  double busier_direction(const topo::Link &link) const {
    return std::max(bytes(link.node_a, link.port_a), bytes(link.node_b, link.port_b));
  }
  /** Every directed link's bytes (links without traffic included). */
  const std::vector<double> &all() const { return bytes_; }

 private:
  std::vector<size_t> offset_;  // first entry of each node's ports
  std::vector<double> bytes_;
};

struct Metrics {
  std::string routes;             // "lft", "dimension-order", "shortest-path"
  double total_bytes = 0;         // all communication
  double inter_node_bytes = 0;    // between processes on different hosts
  double intra_node_bytes = 0;    // between processes on one host
  double hop_bytes = 0;           // sum of bytes x network links on the route
  int max_dilation = 0;           // links on the longest route any communicating pair uses
  double average_dilation = 0;    // links per byte: hop_bytes / total_bytes
  double max_link_bytes = 0;      // the most loaded directed link
  double average_link_bytes = 0;  // over the directed links that carry traffic
  int links_used = 0;             // directed links carrying traffic
  double cross_socket_bytes = -1; // inside nodes, between slots of different packages; -1 without a node topology or packages
  LinkLoads link_loads;           // per directed link, for drawings (not in metrics_json)
};

/** Metrics of @p slot_of_process (one slot per process). Each pair's volume
    is split evenly between its two directions for the link loads. */
Metrics evaluate(const Problem &problem, const std::vector<int> &slot_of_process);

/** The busiest directed link's bytes when vertex v of @p graph is on host
    @p host_of[v] (allocation index), each edge's bytes split evenly between its
    two directions as in evaluate. */
double busiest_link_bytes(const CommGraph &graph, const Machine &machine, const std::vector<int> &host_of);

nlohmann::json metrics_json(const Metrics &metrics);

/** Error(INVALID_ARG) unless @p slot_of_process gives every process a distinct existing slot. */
void check_placement(const Problem &problem, const std::vector<int> &slot_of_process);

}  // namespace canopy::map

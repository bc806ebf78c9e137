// How good a placement is, measured on the routes the fabric really uses (its
// forwarding tables when loaded, dimension order on tori, shortest paths
// otherwise): hop-bytes, link loads, dilation, and bytes crossing sockets.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "map/mapping.h"

namespace canopy::map {

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
  double cross_socket_bytes = -1; // inside nodes, between slots of different packages; -1 without a node topology
};

/** Metrics of @p slot_of_process (one slot per process). Each pair's volume
    is split evenly between its two directions for the link loads. */
Metrics evaluate(const Problem &problem, const std::vector<int> &slot_of_process);

nlohmann::json metrics_json(const Metrics &metrics);

/** Error(INVALID_ARG) unless @p slot_of_process gives every process a distinct existing slot. */
void check_placement(const Problem &problem, const std::vector<int> &slot_of_process);

}  // namespace canopy::map

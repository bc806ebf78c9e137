// The collectives' parameters, resolved once per communicator when its
// hierarchy is built (collective calls are hot: no environment lookups, string
// parsing or file reads on the call path). Pure data without MPI, unit-tested.
//
// A communicator keeps the configuration it was built with; a changed
// environment applies to communicators created afterwards.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "coll/plan/layout.h"
#include "coll/plan/leader_order.h"
#include "coll/plan/selection.h"

namespace canopy::coll {

enum class ShmBcastMode { OneStage, Pipelined };
/** How multi_leader_p2p gathers a leader group's blocks (coll_allgather_intra_algorithm). */
enum class GroupAggregation { RecursiveDoubling, Ring, Gather };

/** The tuning file @p path (coll_tuning_file) as JSON: Error(IO) when it cannot be read,
    Error(PARSE) naming the file and line. */
nlohmann::json read_tuning_file(const std::string &path);
/** Every collective's rules from the tuning file @p path, indexed by Collective, checked
    (parse_tuning_rules). */
std::vector<std::vector<Rule>> load_tuning_file(const std::string &path);

struct CollConfig {
  // Selection: forced algorithm per collective ("" = rules), then the tuning file's rules.
  std::vector<std::string> forced;            // indexed by Collective
  std::string tuning_file;
  std::vector<std::vector<Rule>> tuning_rules;  // indexed by Collective; empty without a file

  // Hierarchy.
  std::string hostmap, node_layout;
  int leaders_per_node = 0;
  LeaderDomain leader_domain = LeaderDomain::Package;

  // Shared-memory layer.
  ShmBcastMode shm_mode = ShmBcastMode::Pipelined;
  size_t shm_buffer_bytes = 16384;
  int shm_buffers = 16;
  int shm_spins = 64;
  size_t shm_cell_bytes = 1024;

  // Algorithm parameters.
  int bcast_knomial_radix = 4;
  size_t bcast_chain_segment_bytes = 65536;
  std::string bcast_inter_algorithm = "knomial", bcast_intra_algorithm = "shm";
  LeaderOrder bcast_leader_order = LeaderOrder::None;
  std::string topo_server;     // where the leader order's hops and rates come from
  std::string hca_port;        // coll_hca_port: without topo_server, the leader's HCA port
  double hop_latency_us = 0.1;  // topo_hop_latency_us: the leader order's delay per link
  std::string allgather_inter_algorithm = "recursive_doubling";
  std::string reduce_inter_algorithm = "binomial", allreduce_inter_algorithm = "recursive_doubling";
  size_t reduce_segment_bytes = 1048576;
  GroupAggregation allgather_intra = GroupAggregation::RecursiveDoubling;

  /** Every coll_* parameter and <coll>_algorithm from the registry, checked; the tuning file is
      parsed here. Throws Error(INVALID_ARG) naming the parameter, Error(PARSE) for the file. */
  static CollConfig from_params();

  /** The forced name, else the first matching tuning rule, else the built-in table. */
  Selection select(Collective coll, const SelectionInput &in) const;
};

}  // namespace canopy::coll

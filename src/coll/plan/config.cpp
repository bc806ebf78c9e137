#include "coll/plan/config.h"

#include "common/error.h"
#include "common/file_io.h"
#include "common/json_file.h"
#include "common/params.h"

namespace canopy::coll {
namespace {

ShmBcastMode parse_shm_mode(const std::string &mode) {
  if (mode == "one_stage") return ShmBcastMode::OneStage;
  if (mode == "pipelined") return ShmBcastMode::Pipelined;
  throw Error(CANOPY_ERR_INVALID_ARG,
              param_env_name("coll_shm_mode") + ": '" + mode + "' is not one_stage or pipelined");
}

LeaderDomain parse_leader_domain(const std::string &name) {
  if (name == "package") return LeaderDomain::Package;
  if (name == "numa") return LeaderDomain::Numa;
  throw Error(CANOPY_ERR_INVALID_ARG, param_env_name("coll_leader_domain") + ": '" + name + "' is not package or numa");
}

LeaderOrder parse_leader_order(const std::string &name) {
  for (LeaderOrder order : {LeaderOrder::None, LeaderOrder::DepthFirst, LeaderOrder::BreadthFirst})
    if (name == leader_order_name(order)) return order;
  throw Error(CANOPY_ERR_INVALID_ARG, param_env_name("coll_bcast_leader_order") + ": '" + name + "' is not none, dft or bft");
}

GroupAggregation parse_group_aggregation(const std::string &name) {
  if (name == "recursive_doubling") return GroupAggregation::RecursiveDoubling;
  if (name == "ring") return GroupAggregation::Ring;
  if (name == "gather") return GroupAggregation::Gather;
  throw Error(CANOPY_ERR_INVALID_ARG, param_env_name("coll_allgather_intra_algorithm") + ": '" + name +
                                          "' is not recursive_doubling, ring or gather");
}

}  // namespace

nlohmann::json read_tuning_file(const std::string &path) {
  return parse_json_object(read_file(path), path, "a JSON object of rules per collective");
}

std::vector<std::vector<Rule>> load_tuning_file(const std::string &path) {
  nlohmann::json doc = read_tuning_file(path);
  std::vector<std::vector<Rule>> rules;
  for (Collective c : all_collectives()) rules.push_back(parse_tuning_rules(doc, c, path));
  return rules;
}

CollConfig CollConfig::from_params() {
  CollConfig c;
  for (Collective coll : all_collectives()) {
    std::string param = std::string(collective_name(coll)) + "_algorithm";
    std::string forced = param_string(param);
    if (!forced.empty() && !find_algorithm(coll, forced))
      throw Error(CANOPY_ERR_INVALID_ARG, param_env_name(param) + ": '" + forced + "' is not a " +
                                              collective_name(coll) + " algorithm (" + algorithm_names(coll) + ")");
    c.forced.push_back(forced);
  }
  c.tuning_file = param_string("coll_tuning_file");
  if (!c.tuning_file.empty()) c.tuning_rules = load_tuning_file(c.tuning_file);

  c.hostmap = param_string("hostmap");
  c.node_layout = param_string("coll_node_layout");
  c.leaders_per_node = static_cast<int>(param_int("coll_leaders_per_node"));
  c.leader_domain = parse_leader_domain(param_string("coll_leader_domain"));

  c.shm_mode = parse_shm_mode(param_string("coll_shm_mode"));
  c.shm_buffer_bytes = static_cast<size_t>(param_int("coll_shm_buffer_bytes"));
  c.shm_buffers = static_cast<int>(param_int("coll_shm_buffers"));
  if (c.shm_buffer_bytes * static_cast<size_t>(c.shm_buffers) > (size_t{1} << 31))
    throw Error(CANOPY_ERR_INVALID_ARG, "coll_shm_buffer_bytes * coll_shm_buffers must be at most 2 GiB");
  c.shm_spins = static_cast<int>(param_int("coll_shm_spins"));
  c.shm_cell_bytes = static_cast<size_t>(param_int("coll_shm_cell_bytes"));

  c.bcast_knomial_radix = static_cast<int>(param_int("coll_bcast_knomial_radix"));
  c.bcast_chain_segment_bytes = static_cast<size_t>(param_int("coll_bcast_chain_segment_bytes"));
  c.bcast_inter_algorithm = param_string("coll_bcast_inter_algorithm");
  c.bcast_intra_algorithm = param_string("coll_bcast_intra_algorithm");
  c.bcast_leader_order = parse_leader_order(param_string("coll_bcast_leader_order"));
  c.topo_server = param_string("topo_server");
  c.hca_port = param_string("coll_hca_port");
  c.hop_latency_us = param_double("topo_hop_latency_us");
  c.allgather_inter_algorithm = param_string("coll_allgather_inter_algorithm");
  c.reduce_inter_algorithm = param_string("coll_reduce_inter_algorithm");
  c.allreduce_inter_algorithm = param_string("coll_allreduce_inter_algorithm");
  c.reduce_segment_bytes = static_cast<size_t>(param_int("coll_reduce_segment_bytes"));
  c.allgather_intra = parse_group_aggregation(param_string("coll_allgather_intra_algorithm"));
  return c;
}

Selection CollConfig::select(Collective coll, const SelectionInput &in) const {
  auto index = static_cast<size_t>(coll);
  if (index < forced.size() && !forced[index].empty())
    return {forced[index], "parameter " + std::string(collective_name(coll)) + "_algorithm"};
  if (index < tuning_rules.size()) {
    const std::vector<Rule> &rules = tuning_rules[index];
    for (size_t i = 0; i < rules.size(); ++i)
      if (rules[i].matches(in))
        return {rules[i].algorithm, "tuning file " + tuning_file + " rule " + std::to_string(i + 1)};
  }
  return select_builtin(coll, in);
}

}  // namespace canopy::coll

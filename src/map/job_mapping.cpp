#include "map/job_mapping.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <numeric>
#include <optional>
#include <utility>

#include "common/error.h"
#include "map/mapping.h"
#include "map/metrics.h"
#include "topo/loaders/loaders.h"
#include "topo/loaders/synthetic.h"
#include "topo/node_topology.h"
#include "topo/source.h"

namespace canopy::map {
namespace {

constexpr size_t kHostsPerSwitch = 254;  // the model's port limit
constexpr size_t kHostsPerLeaf = 253;    // and one uplink

// The job's slots: hosts in the order of their lowest rank, each with a slot per
// rank it holds, in rank order, so slot_of_rank is where every process sits now.
struct JobSlots {
  std::vector<std::string> hosts;
  std::vector<int> per_host;  // slots of each host
  std::vector<int> slot_of_rank, rank_of_slot;
};

JobSlots job_slots(const std::vector<std::string> &host_of_rank) {
  JobSlots s;
  std::map<std::string, int> index;
  std::vector<std::vector<int>> ranks_on;
  for (size_t r = 0; r < host_of_rank.size(); ++r) {
    auto [it, added] = index.emplace(host_of_rank[r], static_cast<int>(s.hosts.size()));
    if (added) {
      s.hosts.push_back(host_of_rank[r]);
      ranks_on.emplace_back();
    }
    ranks_on[static_cast<size_t>(it->second)].push_back(static_cast<int>(r));
  }
  s.slot_of_rank.resize(host_of_rank.size());
  for (const std::vector<int> &ranks : ranks_on) {
    s.per_host.push_back(static_cast<int>(ranks.size()));
    for (int rank : ranks) {
      s.slot_of_rank[static_cast<size_t>(rank)] = static_cast<int>(s.rank_of_slot.size());
      s.rank_of_slot.push_back(rank);
    }
  }
  return s;
}

std::shared_ptr<const topo::Topology> job_fabric(const JobMapRequest &request, const std::vector<std::string> &hosts) {
  if (request.fabric.empty()) return std::make_shared<const topo::Topology>(single_switch_model(hosts));
  return std::make_shared<const topo::Topology>(topo::load_topology(request.fabric));
}

std::vector<int> fabric_hosts(const topo::Topology &fabric, const JobSlots &slots, const std::string &source) {
  std::vector<int> nodes;
  for (const std::string &host : slots.hosts) {
    int node = fabric.find_host(host);
    if (node < 0) throw Error(CANOPY_ERR_NOT_FOUND, "host '" + host + "' of the job is not in the fabric " + source);
    nodes.push_back(node);
  }
  return nodes;
}

// The CPU (core or PU, @p level) of every local slot, the same on every host that
// has the slot, or nullopt (with @p why).
std::optional<std::vector<int>> slot_cpus(const JobSlots &s, const std::vector<int> &cpu_of_rank, topo::CpuLevel level,
                                          std::string &why) {
  std::vector<int> cpus(static_cast<size_t>(*std::max_element(s.per_host.begin(), s.per_host.end())), -1);
  std::vector<std::string> first_host(cpus.size());  // the host that set each CPU
  const std::string name = topo::cpu_level_name(level);
  for (size_t host = 0, slot = 0; host < s.per_host.size(); ++host)
    for (size_t local = 0; local < static_cast<size_t>(s.per_host[host]); ++local, ++slot) {
      int rank = s.rank_of_slot[slot];
      int cpu = static_cast<size_t>(rank) < cpu_of_rank.size() ? cpu_of_rank[static_cast<size_t>(rank)] : -1;
      if (cpu < 0) {
        why = "rank " + std::to_string(rank) + " is not bound to one " + name;
        return std::nullopt;
      }
      if (cpus[local] < 0) {
        cpus[local] = cpu, first_host[local] = s.hosts[host];
      } else if (cpus[local] != cpu) {
        why = "the hosts bind their ranks differently (local rank " + std::to_string(local) + ": " + name + " " +
              std::to_string(cpus[local]) + " on " + first_host[local] + ", " + std::to_string(cpu) + " on " + s.hosts[host] + ")";
        return std::nullopt;
      }
    }
  return cpus;
}

bool has_repeats(std::vector<int> values) {
  std::sort(values.begin(), values.end());
  return std::adjacent_find(values.begin(), values.end()) != values.end();
}

// The node layout for intra-node mapping, or none (with a note) when the node is
// not known or the ranks' CPUs cannot be told. Ranks sit on cores, or on PUs where two
// ranks of a host share a core, or, where neither can be told, on packages.
std::optional<NodeLayout> node_layout(const JobMapRequest &request, const JobSlots &s, std::string &note) {
  if (request.node_topology.empty()) return std::nullopt;
  std::string why;
  try {
    topo::NodeTopology node = topo::NodeTopology::load(request.node_topology);
    int most = *std::max_element(s.per_host.begin(), s.per_host.end());
    if (request.core_of_rank.empty()) {  // the collectives' convention for a synthetic node: local rank i on CPU i
      std::vector<int> cpus(static_cast<size_t>(most));
      std::iota(cpus.begin(), cpus.end(), 0);
      return NodeLayout::placed(node, most > node.num_cores() ? topo::CpuLevel::PU : topo::CpuLevel::Core, std::move(cpus));
    }
    std::optional<std::vector<int>> cores = slot_cpus(s, request.core_of_rank, topo::CpuLevel::Core, why);
    if (cores && !has_repeats(*cores)) return NodeLayout::placed(node, topo::CpuLevel::Core, std::move(*cores));
    if (cores) {  // two ranks of a host share a core
      std::optional<std::vector<int>> pus = slot_cpus(s, request.pu_of_rank, topo::CpuLevel::PU, why);
      if (pus && !has_repeats(*pus)) return NodeLayout::placed(node, topo::CpuLevel::PU, std::move(*pus));
      why = "ranks share a core, and " + (pus ? std::string("a PU") : why);
    }
    // Several ranks of a host on one package: only the packages tell them apart, on a node of several
    // (on a node of one, an unbound rank is within its package).
    std::string why_packages = "the node has one package";
    if (node.num_packages() > 1)
      if (auto packages = slot_cpus(s, request.package_of_rank, topo::CpuLevel::Package, why_packages))
        return NodeLayout::placed(node, topo::CpuLevel::Package, std::move(*packages));
    why += "; " + why_packages;
  } catch (const Error &e) {
    why = e.what();
  }
  note = "; no intra-node mapping (" + why + ")";
  return std::nullopt;
}

// Lower hop-bytes, or equal hop-bytes and fewer bytes across sockets.
bool better(const Metrics &a, const Metrics &b) {
  if (a.hop_bytes != b.hop_bytes) return a.hop_bytes < b.hop_bytes;
  return a.cross_socket_bytes < b.cross_socket_bytes;
}

std::string number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", value);
  return text;
}

JobMapping keep_order(size_t ranks, std::string summary) {
  JobMapping m;
  m.new_rank.resize(ranks);
  for (size_t r = 0; r < ranks; ++r) m.new_rank[r] = static_cast<int>(r);
  m.summary = std::move(summary);
  return m;
}

}  // namespace

topo::Topology single_switch_model(const std::vector<std::string> &hosts) {
  for (const std::string &host : hosts)
    if (std::string why = topo::synthetic::name_problem(host); !why.empty())
      throw Error(CANOPY_ERR_INVALID_ARG, "host '" + host + "' cannot join the single-switch model: " + why);
  std::string conf;
  auto join = [](const std::vector<std::string> &names, size_t begin, size_t end) {
    std::string list;
    for (size_t i = begin; i < end; ++i) list += (i > begin ? "," : "") + names[i];
    return list;
  };
  if (hosts.size() <= kHostsPerSwitch) {
    conf = "SwitchName=canopy-switch Nodes=" + join(hosts, 0, hosts.size()) + "\n";
  } else {
    std::vector<std::string> leaves;
    for (size_t begin = 0; begin < hosts.size(); begin += kHostsPerLeaf) {
      leaves.push_back("canopy-leaf" + std::to_string(leaves.size()));
      conf += "SwitchName=" + leaves.back() + " Nodes=" + join(hosts, begin, std::min(hosts.size(), begin + kHostsPerLeaf)) + "\n";
    }
    conf += "SwitchName=canopy-spine Switches=" + join(leaves, 0, leaves.size()) + "\n";
  }
  topo::Topology model = topo::load_slurm_topology(conf, "single-switch model");
  model.set_source("single-switch model");
  return model;
}

JobMapping map_job(const JobMapRequest &request) {
  const size_t ranks = request.host_of_rank.size();
  if (ranks == 0 || static_cast<size_t>(request.graph.num_vertices()) != ranks)
    throw Error(CANOPY_ERR_INVALID_ARG, "the graph has " + std::to_string(request.graph.num_vertices()) +
                                            " vertices for " + std::to_string(ranks) + " ranks");
  for (auto [param, moves] : {std::pair{"map_anneal_moves", request.anneal_moves},
                              std::pair{"map_anneal_process_moves", request.anneal_process_moves}})
    if (moves < 0) throw Error(CANOPY_ERR_INVALID_ARG, std::string(param) + " " + std::to_string(moves) + " must be 0 or more");
  if (request.analytic_iterations < 0 || request.analytic_iterations > kMostAnalyticIterations)
    throw Error(CANOPY_ERR_INVALID_ARG, "map_analytic_iterations " + std::to_string(request.analytic_iterations) +
                                            " must be 0 to " + std::to_string(kMostAnalyticIterations));
  for (auto [what, cpus] : {std::pair{"cores", &request.core_of_rank}, std::pair{"PUs", &request.pu_of_rank},
                            std::pair{"packages", &request.package_of_rank}})
    if (!cpus->empty() && cpus->size() != ranks)
      throw Error(CANOPY_ERR_INVALID_ARG, std::string(what) + " are given for " + std::to_string(cpus->size()) + " of " +
                                              std::to_string(ranks) + " ranks");
  JobSlots slots = job_slots(request.host_of_rank);
  auto fabric = job_fabric(request, slots.hosts);
  std::string source = request.fabric.empty() ? "single-switch model" : request.fabric;
  std::string note;
  std::optional<NodeLayout> node = node_layout(request, slots, note);
  Problem problem{request.graph, Machine(fabric, fabric_hosts(*fabric, slots, source), slots.per_host, std::move(node))};
  MapOptions options;
  options.algorithm = request.algorithm;
  options.anneal_moves = request.anneal_moves;
  options.anneal_process_moves = request.anneal_process_moves;
  options.analytic_iterations = static_cast<int>(request.analytic_iterations);
  MapResult result = map_processes(problem, options);
  Metrics now = evaluate(problem, slots.slot_of_rank), mapped = evaluate(problem, result.slot_of_process);

  std::string steps = group_steps_text(result);
  const NodeLayout *layout = problem.machine.node() ? &*problem.machine.node() : nullptr;
  std::string on = layout && layout->level != topo::CpuLevel::Core
                       ? std::string(" (on ") + topo::cpu_level_name(layout->level) + "s)" : "";
  std::string summary = std::to_string(ranks) + " ranks on " + problem.machine.slots_text() + on +
                        ", fabric " + source + note + ", algorithm " +
                        result.algorithm + (result.tree.empty() ? "" : " (tree " + result.tree + ")") +
                        (steps.empty() ? "" : ", " + steps) +
                        ": hop-bytes " + number(now.hop_bytes) + " -> " + number(mapped.hop_bytes);
  if (mapped.cross_socket_bytes >= 0)
    summary += ", cross-socket bytes " + number(now.cross_socket_bytes) + " -> " + number(mapped.cross_socket_bytes);
  if (!better(mapped, now)) return keep_order(ranks, summary + "; no better than the current placement: ranks keep their order");

  JobMapping m;
  m.new_rank.resize(ranks);
  size_t moved = 0;
  for (size_t v = 0; v < ranks; ++v) {
    int old_rank = slots.rank_of_slot[static_cast<size_t>(result.slot_of_process[v])];
    m.new_rank[static_cast<size_t>(old_rank)] = static_cast<int>(v);
    moved += static_cast<size_t>(old_rank) != v;
  }
  m.mapped = true;
  m.summary = summary + "; " + std::to_string(moved) + " ranks renumbered";
  return m;
}

}  // namespace canopy::map

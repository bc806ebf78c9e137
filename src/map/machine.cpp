#include "map/machine.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <unordered_map>

#include "common/error.h"
#include "common/file_io.h"
#include "topo/loaders/loaders.h"
#include "topo/views.h"

namespace canopy::map {
namespace {

// The allocation as Machine takes it: hosts, their slots and the node layout agree.
const std::vector<int> &checked_allocation(const std::vector<int> &hosts, const std::vector<int> &slots,
                                           const std::optional<NodeLayout> &node) {
  if (hosts.empty()) throw Error(CANOPY_ERR_INVALID_ARG, "the allocation has no hosts");
  if (slots.size() != hosts.size())
    throw Error(CANOPY_ERR_INVALID_ARG, std::to_string(slots.size()) + " slot counts for " + std::to_string(hosts.size()) + " hosts");
  int64_t total = 0;
  for (int s : slots) {
    if (s < 1) throw Error(CANOPY_ERR_INVALID_ARG, "slots per host must be at least 1");
    total += s;
  }
  if (total > std::numeric_limits<int>::max() / 2) throw Error(CANOPY_ERR_INVALID_ARG, "too many slots");
  if (node && static_cast<int>(node->slot_cpu.size()) != *std::max_element(slots.begin(), slots.end()))
    throw Error(CANOPY_ERR_INVALID_ARG, "the node layout has a different number of slots than the largest host");
  return hosts;
}

}  // namespace

NodeLayout NodeLayout::from(const topo::NodeTopology &node, int slots_per_host) {
  int cores = node.num_cores(), pus = node.num_pus();
  topo::CpuLevel level = slots_per_host > cores ? topo::CpuLevel::PU : topo::CpuLevel::Core;
  if (slots_per_host > pus)
    throw Error(CANOPY_ERR_INVALID_ARG, std::to_string(slots_per_host) + " slots per host, more than the " + std::to_string(pus) +
                                            " PUs (hardware threads) of the node (" + node.spec() + ")");
  std::vector<int> efficiency = node.core_efficiencies();
  std::vector<int> levels = efficiency;
  std::sort(levels.begin(), levels.end(), std::greater<>());
  levels.erase(std::unique(levels.begin(), levels.end()), levels.end());
  // The CPUs of each core: the core itself, or its PUs. Round r takes every core's r-th.
  std::vector<std::vector<int>> cpus_of_core;
  size_t rounds = 1;
  for (int c = 0; c < cores; ++c)
    rounds = std::max(rounds, cpus_of_core.emplace_back(level == topo::CpuLevel::PU ? node.core_pus(c) : std::vector<int>{c}).size());
  // Slots in the order taken, each round sorted: a host with fewer slots takes the first ones
  // (hosts of unequal size share the largest one's layout), one PU per core before any second.
  std::vector<int> slot_cpu;
  for (size_t round = 0; round < rounds && static_cast<int>(slot_cpu.size()) < slots_per_host; ++round) {
    size_t round_start = slot_cpu.size();
    for (int kind_efficiency : levels) {
      std::vector<int> kind;  // this round's CPUs of the cores at this efficiency, in core order
      for (int c = 0; c < cores; ++c) {
        const std::vector<int> &cpus = cpus_of_core[static_cast<size_t>(c)];
        if (efficiency[static_cast<size_t>(c)] == kind_efficiency && round < cpus.size()) kind.push_back(cpus[round]);
      }
      auto wanted = static_cast<int64_t>(slots_per_host - static_cast<int>(slot_cpu.size()));
      auto n = static_cast<int64_t>(kind.size());
      for (int64_t j = 0; j < std::min(wanted, n); ++j)
        slot_cpu.push_back(kind[static_cast<size_t>(wanted >= n ? j : j * n / wanted)]);
    }
    std::sort(slot_cpu.begin() + static_cast<std::ptrdiff_t>(round_start), slot_cpu.end());
  }
  if (static_cast<int>(slot_cpu.size()) < slots_per_host)  // PUs outside every core (an odd XML)
    throw Error(CANOPY_ERR_INVALID_ARG, std::to_string(slots_per_host) + " slots per host, but the cores of the node (" +
                                            node.spec() + ") have " + std::to_string(slot_cpu.size()) + " PUs");
  return placed(node, level, std::move(slot_cpu));
}

NodeLayout NodeLayout::placed(const topo::NodeTopology &node, topo::CpuLevel level, std::vector<int> slot_cpu) {
  NodeLayout layout;
  layout.spec = node.spec();
  layout.level = level;
  int cpus = node.num_cpus(level);
  const char *name = topo::cpu_level_name(level);
  std::vector<bool> taken(static_cast<size_t>(cpus), false);
  for (int cpu : slot_cpu) {
    if (cpu < 0 || cpu >= cpus)
      throw Error(CANOPY_ERR_INVALID_ARG, std::string(name) + " " + std::to_string(cpu) + " is not in the node (" +
                                              node.spec() + ", " + std::to_string(cpus) + " " + name + "s)");
    if (taken[static_cast<size_t>(cpu)] && level != topo::CpuLevel::Package)
      throw Error(CANOPY_ERR_INVALID_ARG, std::string("two slots on ") + name + " " + std::to_string(cpu) + " of the node (" +
                                              node.spec() + ")");
    taken[static_cast<size_t>(cpu)] = true;
    layout.slot_package.push_back(node.cpu_package(level, cpu));
  }
  layout.slot_cpu = std::move(slot_cpu);
  for (int a : layout.slot_cpu)
    for (int b : layout.slot_cpu) layout.distance.push_back(node.cpu_distance(level, a, b));
  return layout;
}

Machine::Machine(std::shared_ptr<const topo::Topology> topology, std::vector<int> hosts, std::vector<int> slots,
                 std::optional<NodeLayout> node)
    : topology_(std::move(topology)),
      hosts_(std::move(hosts)),
      hops_(*topology_, checked_allocation(hosts_, slots, node)),
      node_(std::move(node)) {
  first_slot_.push_back(0);
  for (size_t h = 0; h < slots.size(); ++h) {
    first_slot_.push_back(first_slot_.back() + slots[h]);
    host_of_slot_.insert(host_of_slot_.end(), static_cast<size_t>(slots[h]), static_cast<int>(h));
  }
  fewest_slots_ = *std::min_element(slots.begin(), slots.end());
  most_slots_ = *std::max_element(slots.begin(), slots.end());
  if (topology_->torus()) {
    for (int h : hosts_) coords_.push_back(topology_->node(h).coords);
  }
}

Machine::Machine(std::shared_ptr<const topo::Topology> topology, std::vector<int> hosts, int slots_per_host,
                 std::optional<NodeLayout> node)
    : Machine(std::move(topology), hosts, std::vector<int>(hosts.size(), slots_per_host), std::move(node)) {}

std::string Machine::slots_text() const {
  std::string hosts = std::to_string(num_hosts()) + " hosts ";
  if (uniform_slots()) return hosts + "x " + std::to_string(uniform_slots()) + " slots";
  return hosts + "with " + std::to_string(fewest_slots_) + "-" + std::to_string(most_slots_) + " slots";
}

std::vector<float> dense_hops(const Machine &m) {
  std::vector<float> hops;
  hops.reserve(static_cast<size_t>(m.num_hosts()) * static_cast<size_t>(m.num_hosts()));
  for (int a = 0; a < m.num_hosts(); ++a)
    for (int b = 0; b < m.num_hosts(); ++b) hops.push_back(static_cast<float>(m.hops(a, b)));
  return hops;
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
                                              std::to_string(it->second) + "): list each host once, with its "
                                              "slots (HOST slots=N, HOST:N or --ppn)");
    hosts.push_back(host);
  }
  return hosts;
}

std::vector<int> allocation_slots(const std::string &text, const std::string &file, int ppn) {
  std::vector<int> slots;
  for (const topo::HostfileEntry &entry : topo::read_hostfile(text, file)) {
    if (ppn > 0 && entry.slots > 0 && entry.slots < ppn)
      throw parse_error(file, entry.line, "host '" + entry.name + "' has " + std::to_string(entry.slots) +
                                              " slots, fewer than the " + std::to_string(ppn) + " per host asked for");
    if (ppn <= 0 && entry.slots == 0)
      throw parse_error(file, entry.line, "host '" + entry.name + "' gives no slot count ('" + entry.name + " slots=N' or '" +
                                              entry.name + ":N'): give one on every line, or the slots per host (--ppn)");
    slots.push_back(ppn > 0 ? ppn : entry.slots);
  }
  return slots;
}

Machine allocation_machine(std::shared_ptr<const topo::Topology> topology, const std::string &hostfile, int ppn,
                           const std::string &node_spec) {
  std::string text = read_file(hostfile);
  std::vector<int> hosts = allocation_hosts(*topology, text, hostfile);
  std::vector<int> slots = allocation_slots(text, hostfile, ppn);
  std::optional<NodeLayout> node;
  if (!node_spec.empty()) node = NodeLayout::from(topo::NodeTopology::load(node_spec), *std::max_element(slots.begin(), slots.end()));
  return Machine(std::move(topology), std::move(hosts), std::move(slots), std::move(node));
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

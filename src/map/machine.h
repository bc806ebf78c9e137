// The machine a job is mapped onto: its allocation (hosts in allocation order,
// each with its number of slots), the network distance between those hosts
// along the routes the fabric really uses, and optionally the inside of a node
// (which core or PU each slot is, and how far apart they are in the hwloc tree).
// Slots are numbered host after host: host h has slots first_slot(h) to
// first_slot(h) + slots(h) - 1, its local slots 0 to slots(h) - 1.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "map/hop_table.h"
#include "topo/node_topology.h"
#include "topo/topology.h"

namespace canopy::map {

/** The slots of one node as placed on its CPUs: slot j runs on core slot_cpu[j], or,
    where the node runs more slots than it has cores, on PU (hardware thread) slot_cpu[j],
    or, where ranks are bound to whole packages, anywhere in package slot_cpu[j]. */
struct NodeLayout {
  std::string spec;                       // the node topology's spec ("live", a path, a synthetic string)
  topo::CpuLevel level = topo::CpuLevel::Core;  // what slot_cpu counts: cores, PUs or packages
  std::vector<int> slot_cpu;              // logical core (or PU, or package) index of each local slot
  std::vector<int> slot_package;          // package of each local slot (-1: no packages)
  std::vector<int> distance;              // slots x slots: levels up to the CPUs' common ancestor

  /** Slots on the node's most efficient cores first (hwloc's CPU kinds: the performance
      cores of a hybrid processor before its efficiency cores), spread evenly over the cores
      of the last kind they need (slot j on the kind's core j x cores / slots); on a node of
      one kind, slot j on core j x cores / slots. More slots than cores go on PUs: each
      core's first PU as above, then the second PUs spread the same way, and so on (so two
      slots share a core only where they must). Local slots in that order, each round's
      sorted, so that a host with fewer slots, which takes the first ones, has one PU per
      core before any second. Where Canopy chooses the binding, as in the rankfile
      `canopy map` writes. Error(INVALID_ARG) for more slots than PUs. */
  static NodeLayout from(const topo::NodeTopology &node, int slots_per_host);
  /** Slot j on CPU @p slot_cpu[j] (logical indexes at @p level): where the ranks already
      sit. Error(INVALID_ARG) for a CPU that does not exist or two slots on one core or PU
      (a package takes several). */
  static NodeLayout placed(const topo::NodeTopology &node, topo::CpuLevel level, std::vector<int> slot_cpu);
  int slot_distance(int a, int b) const { return distance[static_cast<size_t>(a) * slot_cpu.size() + b]; }
};

class Machine {
 public:
  /** @p hosts: node indexes of hosts of @p topology, in allocation order, each at
      most once, host i with slots[i] slots. Finds the hops between the hosts on
      the real routes (HopTable; throws Error(ROUTE) where a route is broken). A
      @p node layout has as many slots as the largest host; a host with fewer
      uses its first ones. */
  Machine(std::shared_ptr<const topo::Topology> topology, std::vector<int> hosts, std::vector<int> slots,
          std::optional<NodeLayout> node = std::nullopt);
  /** Every host with @p slots_per_host slots. */
  Machine(std::shared_ptr<const topo::Topology> topology, std::vector<int> hosts, int slots_per_host,
          std::optional<NodeLayout> node = std::nullopt);

  const topo::Topology &topology() const { return *topology_; }
  const std::vector<int> &host_nodes() const { return hosts_; }
  const std::string &host_name(int host) const { return topology_->node(hosts_[static_cast<size_t>(host)]).name; }
  int num_hosts() const { return static_cast<int>(hosts_.size()); }
  int slots(int host) const { return first_slot_[static_cast<size_t>(host) + 1] - first_slot_[static_cast<size_t>(host)]; }
  /** The first slot of @p host; first_slot(num_hosts()) is num_slots(). */
  int first_slot(int host) const { return first_slot_[static_cast<size_t>(host)]; }
  int num_slots() const { return first_slot_.back(); }
  int host_of_slot(int slot) const { return host_of_slot_[static_cast<size_t>(slot)]; }
  int local_slot(int slot) const { return slot - first_slot(host_of_slot(slot)); }
  /** The host of every process of a placement (slot per process). */
  std::vector<int> hosts_of(const std::vector<int> &slot_of_process) const {
    std::vector<int> host_of;
    host_of.reserve(slot_of_process.size());
    for (int slot : slot_of_process) host_of.push_back(host_of_slot(slot));
    return host_of;
  }
  /** The slots of every host when all have as many; 0 when they differ. */
  int uniform_slots() const { return fewest_slots_ == most_slots_ ? most_slots_ : 0; }
  /** "8 hosts x 16 slots", or "3 hosts with 8-16 slots". */
  std::string slots_text() const;

  /** Network links on the route from host @p a to host @p b (allocation indexes). */
  int hops(int a, int b) const { return hops_(a, b); }
  const HopTable &hop_table() const { return hops_; }
  /** Torus/mesh coordinates of every host (empty when the source has none). */
  const std::vector<std::vector<int>> &coordinates() const { return coords_; }
  const std::optional<NodeLayout> &node() const { return node_; }

 private:
  std::shared_ptr<const topo::Topology> topology_;
  std::vector<int> hosts_;
  std::vector<int> first_slot_;    // per host, and the number of slots at the end
  std::vector<int> host_of_slot_;  // per slot
  int fewest_slots_ = 0, most_slots_ = 0;
  HopTable hops_;
  std::vector<std::vector<int>> coords_;
  std::optional<NodeLayout> node_;
};

/** The hops between every two hosts, hosts x hosts, row-major: for what needs them
    all at once (neighbor joining), O(hosts^2) where the machine keeps far less. */
std::vector<float> dense_hops(const Machine &machine);

/** Resolves host names (a host file's entries) against @p topology: unknown or
    repeated hosts are parse errors naming @p file and the line. */
std::vector<int> allocation_hosts(const topo::Topology &topology, const std::string &hostfile_text,
                                  const std::string &file);

/** The slots of every host of a host file, in file order. @p ppn when positive:
    no host may give fewer (slots=N or host:N), which would oversubscribe it.
    Otherwise each host's own count, which every line must give. Parse errors
    name @p file and the line. */
std::vector<int> allocation_slots(const std::string &hostfile_text, const std::string &file, int ppn);

/** The machine of a job: the hosts of the host file @p hostfile (a path) in
    @p topology, with their slots (allocation_slots with @p ppn) and, when
    @p node_spec is not empty, the node layout (NodeTopology::load) of the host
    with the most slots. What canopy map and the benchmark load. */
Machine allocation_machine(std::shared_ptr<const topo::Topology> topology, const std::string &hostfile, int ppn,
                           const std::string &node_spec);

/** Each host's ancestors in the fabric's switch hierarchy (topo::host_hierarchy),
    as child indexes from the root down, ending with the host's index under its
    leaf switch; one path per allocated host, in allocation order. */
std::vector<std::vector<int>> hierarchy_paths(const Machine &machine);

/** hops[d]: the hop count between two hosts whose @p paths first differ at depth
    d (-1 where no pair does); empty unless every pair agrees (the routes follow
    the hierarchy) and all paths are equally long. */
std::vector<int> hops_by_common_depth(const Machine &machine, const std::vector<std::vector<int>> &paths);

}  // namespace canopy::map

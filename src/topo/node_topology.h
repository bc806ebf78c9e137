// The topology inside one node (packages, NUMA nodes, caches, cores, PUs) from
// hwloc 2: this machine, an hwloc XML file (lstopo --of xml) or an hwloc
// synthetic description ("pack:2 core:4 pu:2"), so that node-level placement
// can be planned and tested for machines other than the one running.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

struct hwloc_topology;  // hwloc.h's hwloc_topology_t is a pointer to it
struct hwloc_obj;       // and hwloc_obj_t a pointer to this

namespace canopy::topo {

/** One of hwloc's CPU kinds: the performance or the efficiency cores of a hybrid processor. */
struct CoreKind {
  /** hwloc's ranking: higher is more performant; 0 for every kind when hwloc cannot rank them. */
  int efficiency = 0;
  /** hwloc's CoreType info ("IntelCore", "IntelAtom"), "" when it has none. */
  std::string core_type;
  /** The cores of this kind (logical indexes; a core counts where its first PU does). */
  std::vector<int> cores;
};

/** What a rank's slot runs on: a core (or the PU standing for it where hwloc found no
    cores), one PU, a hardware thread of a core, when a node runs more ranks than it
    has cores, or a whole package, where ranks are bound to packages (as Open MPI binds
    more than two ranks by default), several to one. Indexes at each level are hwloc's
    logical ones, as in Open MPI's rankfiles (PUs with mpirun --use-hwthread-cpus). */
enum class CpuLevel { Core, PU, Package };
/** "core", "PU" or "package". */
inline const char *cpu_level_name(CpuLevel level) {
  return level == CpuLevel::PU ? "PU" : level == CpuLevel::Package ? "package" : "core";
}

class NodeTopology {
 public:
  /** "" or "live": this machine; a path ending in ".xml": an hwloc XML export;
      anything else: an hwloc synthetic description. Throws Error: PARSE for an
      invalid description or XML (with a hint), IO for an unreadable file. */
  static NodeTopology load(const std::string &spec);

  NodeTopology(NodeTopology &&other) noexcept;
  NodeTopology &operator=(NodeTopology &&other) noexcept;
  NodeTopology(const NodeTopology &) = delete;
  NodeTopology &operator=(const NodeTopology &) = delete;
  ~NodeTopology();

  const std::string &spec() const { return spec_; }
  /** "live", "xml" or "synthetic". */
  const char *kind() const;

  int num_packages() const;
  int num_numa_nodes() const;
  /** Core objects; where hwloc found none (some platforms and VMs report only
      PUs), the PUs, which then stand for the cores everywhere below (core
      indexes, distances, bound_cpu), as in Open MPI's rankfiles. */
  int num_cores() const;
  /** True when the node has no Core objects and its PUs stand for them. */
  bool pus_as_cores() const;
  int num_pus() const;

  /** hwloc type names of the levels from the machine down to the PUs that
      exist here ("Machine", "Package", "L3Cache", "Core", "PU"). NUMA nodes are
      not a level in hwloc 2 (they hang beside the tree); see num_numa_nodes(). */
  std::vector<std::string> level_names() const;

  /** num_cores(), num_pus() or num_packages(). */
  int num_cpus(CpuLevel level) const;
  /** The PUs of @p core (logical indexes, in order); {core} where the PUs stand for cores. */
  std::vector<int> core_pus(int core) const;

  /** Levels from a CPU (a core, a PU or a package) up to the lowest common ancestor
      of two of them: 0 for the same CPU, 1 for CPUs sharing their parent (two PUs of
      one core, or cores under one package or cache), and so on. Throws
      Error(INVALID_ARG) for a CPU that does not exist. */
  int cpu_distance(CpuLevel level, int a, int b) const;
  /** Logical index of the package holding a CPU (a package: itself), -1 if there are no packages. */
  int cpu_package(CpuLevel level, int cpu) const;
  /** Logical index of the first NUMA node local to @p core, -1 if none. */
  int core_numa(int core) const;
  /** Logical index of the core (or PU, or package) holding every PU this process is
      bound to (only meaningful for the "live" topology); -1 when unbound, bound to more
      than one, or the binding cannot be read. */
  int bound_cpu(CpuLevel level) const;
  /** core_numa for the PUs this process is bound to (only meaningful for the "live"
      topology); -1 when unbound on a machine of several NUMA nodes, bound across them,
      or the binding cannot be read. */
  int bound_numa() const;
  /** Binds this process to a CPU of the live node (its core's PUs, or the one PU).
      Error(INVALID_ARG) for a CPU that does not exist or a topology not of this
      machine, Error(IO) when the system refuses the binding. */
  void bind_process(CpuLevel level, int cpu) const;
  /** hwloc's CPU kinds, the least efficient first; empty when hwloc reports none (synthetic
      descriptions; XML exports without cpukind elements). */
  std::vector<CoreKind> core_kinds() const;
  /** Each core's CoreKind::efficiency, in core order (0 for a core of no kind). */
  std::vector<int> core_efficiencies() const;
  /** cpu_package(CpuLevel::Core) / core_numa for every core, in core order. */
  std::vector<int> core_packages() const;
  std::vector<int> core_numa_nodes() const;

  /** {"spec", "kind", "packages", "numa_nodes", "cores", "pus", "core_type" ("Core" or "PU"),
      "levels": [{"type", "depth", "count", "arity_min", "arity_max"}],
      "core_package": [...], "core_numa": [...],
      "core_kinds": [{"efficiency", "core_type", "cores"}]} */
  nlohmann::json to_json() const;

 private:
  NodeTopology(hwloc_topology *topology, std::string spec) : topology_(topology), spec_(std::move(spec)) {}
  hwloc_obj *bound_cover() const;
  hwloc_obj *bound_object(int type) const;
  hwloc_topology *topology_ = nullptr;
  std::string spec_;
};

}  // namespace canopy::topo

#include "topo/node_topology.h"

#include <hwloc.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>

#include "common/error.h"
#include "common/file_io.h"
#include "common/text.h"

namespace canopy::topo {
namespace {

// A synthetic description makes hwloc build every object it names; refuse
// machines beyond any real one before hwloc tries (the count is a product).
// Linux runs on at most 8192 CPUs (x86 MAXSMP); hwloc's cost grows faster than
// linearly (every object carries cpusets as wide as the machine, and a level
// is inserted object by object): 65536 PUs take it 10-40 s and 1-2 GB,
// 'core:16384 pu:1' over 100 s, 1048576 PUs do not finish.
constexpr unsigned long long kMaxSyntheticObjects = 8192;

bool ends_with_xml(const std::string &spec) {
  if (spec.size() < 4) return false;
  std::string tail = spec.substr(spec.size() - 4);
  for (char &c : tail) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return tail == ".xml";
}

// The objects at the last level a synthetic description names (the product of
// its counts); tokens it cannot read are left for hwloc to judge.
unsigned long long synthetic_size(const std::string &spec) {
  unsigned long long total = 1;
  for (std::string_view token : split_fields(spec)) {
    if (token[0] == '[' || token[0] == '(' || token[0] == '{') continue;
    size_t colon = token.find(':');
    // hwloc reads counts with strtoul(base 0), so "0x10" is 16: read them the same way.
    std::string count(colon == std::string_view::npos ? token : token.substr(colon + 1));
    if (count.empty() || count[0] < '0' || count[0] > '9') continue;  // strtoull would take "-1" as 2^64 - 1
    char *end = nullptr;
    errno = 0;
    unsigned long long n = std::strtoull(count.c_str(), &end, 0);
    if (end == count.c_str() || n == 0) continue;
    if (errno == ERANGE || n > kMaxSyntheticObjects || total * n > kMaxSyntheticObjects)
      return kMaxSyntheticObjects + 1;
    total *= n;
  }
  return total;
}

// hwloc explains a rejected description only on stderr (HWLOC_SYNTHETIC_VERBOSE);
// find the first token it would object to, with hwloc's own type parser.
std::string synthetic_hint(const std::string &spec) {
  for (std::string_view token : split_fields(spec)) {
    if (token[0] == '[' || token[0] == '(' || token[0] == '{' || (token[0] >= '0' && token[0] <= '9')) continue;
    size_t colon = token.find(':');
    std::string at = " at '" + printable(token) + "'";
    if (colon == std::string_view::npos) return "no ':' after the object type" + at;
    std::string type(token.substr(0, colon));
    hwloc_obj_type_t parsed;
    if (hwloc_type_sscanf(type.c_str(), &parsed, nullptr, 0) < 0) return "unknown object type" + at;
    std::string_view count = token.substr(colon + 1);
    if (count.empty() || count[0] < '0' || count[0] > '9') return "no number of objects" + at;
    if (count[0] == '0' && (count.size() == 1 || count[1] < '0' || count[1] > '9')) return "0 objects" + at;
    // hwloc reads the count with strtoul (base 0); only attributes in parentheses may follow it.
    std::string digits(count);
    char *end = nullptr;
    (void)std::strtoull(digits.c_str(), &end, 0);
    if (*end != '\0' && *end != '(') return "the number of objects is not a number" + at;
  }
  return "the levels do not form a valid machine (the last level must be PU, types must nest)";
}

[[noreturn]] void fail_synthetic(const std::string &spec, const std::string &why) {
  throw Error(CANOPY_ERR_PARSE, "invalid hwloc synthetic description '" + printable(spec, 200) + "': " + why +
                                    " (expected TYPE:COUNT levels such as \"pack:2 core:4 pu:2\"; "
                                    "HWLOC_SYNTHETIC_VERBOSE=1 makes hwloc print its own diagnosis)");
}

void configure_synthetic(hwloc_topology_t topology, const std::string &spec) {
  if (synthetic_size(spec) > kMaxSyntheticObjects)
    fail_synthetic(spec, "it describes more than " + std::to_string(kMaxSyntheticObjects) + " objects at one level");
  if (hwloc_topology_set_synthetic(topology, spec.c_str()) < 0) fail_synthetic(spec, synthetic_hint(spec));
}

// The XML is read here so that a missing file is an IO error naming the path.
void configure_xml(hwloc_topology_t topology, const std::string &path) {
  std::string xml = read_file(path);
  if (xml.size() >= static_cast<size_t>(std::numeric_limits<int>::max()))
    throw Error(CANOPY_ERR_IO, path + ": XML file too large");
  // hwloc counts the terminating NUL in the size, as its own exports do.
  if (hwloc_topology_set_xmlbuffer(topology, xml.c_str(), static_cast<int>(xml.size() + 1)) < 0 ||
      hwloc_topology_load(topology) < 0)
    throw Error(CANOPY_ERR_PARSE, path + ": not a valid hwloc XML topology (export one with lstopo --of xml)");
}

int count_of(hwloc_topology_t topology, hwloc_obj_type_t type) {
  int n = hwloc_get_nbobjs_by_type(topology, type);
  return n < 0 ? 0 : n;
}

// What stands for a core: Core objects, or the PUs where hwloc found no cores
// (some platforms and VMs report only PUs), as Open MPI's rankfile and binding do.
hwloc_obj_type_t core_type(hwloc_topology_t topology) {
  return count_of(topology, HWLOC_OBJ_CORE) > 0 ? HWLOC_OBJ_CORE : HWLOC_OBJ_PU;
}

hwloc_obj_type_t cpu_type(hwloc_topology_t topology, CpuLevel level) {
  if (level == CpuLevel::Package) return HWLOC_OBJ_PACKAGE;
  return level == CpuLevel::PU ? HWLOC_OBJ_PU : core_type(topology);
}

hwloc_obj_t cpu_object(hwloc_topology_t topology, CpuLevel level, int index) {
  hwloc_obj_type_t type = cpu_type(topology, level);
  hwloc_obj_t cpu = index < 0 ? nullptr : hwloc_get_obj_by_type(topology, type, static_cast<unsigned>(index));
  const char *name = cpu_level_name(level);
  if (!cpu)
    throw Error(CANOPY_ERR_INVALID_ARG, std::string(name) + " " + std::to_string(index) + " does not exist (the node has " +
                                            std::to_string(count_of(topology, type)) + " " + name + "s)");
  return cpu;
}

hwloc_obj_t core_object(hwloc_topology_t topology, int index) { return cpu_object(topology, CpuLevel::Core, index); }

// The first NUMA node local to @p obj, if its locality holds all of obj's PUs (a core
// with HBM or CXL memory has several local NUMA nodes: the first is its DRAM; a set of
// PUs across two NUMA nodes has none); logical index, -1 if none.
int local_numa(hwloc_topology_t topology, hwloc_obj_t obj) {
  int first = obj && obj->nodeset ? hwloc_bitmap_first(obj->nodeset) : -1;
  hwloc_obj_t numa = first < 0 ? nullptr : hwloc_get_numanode_obj_by_os_index(topology, static_cast<unsigned>(first));
  return numa && hwloc_bitmap_isincluded(obj->cpuset, numa->cpuset) ? static_cast<int>(numa->logical_index) : -1;
}

}  // namespace

NodeTopology NodeTopology::load(const std::string &spec) {
  hwloc_topology_t raw = nullptr;
  if (hwloc_topology_init(&raw) < 0) throw Error(CANOPY_ERR_NO_MEMORY, "hwloc_topology_init failed");
  NodeTopology node(raw, spec.empty() ? "live" : spec);  // owns raw from here on
  try {
    if (node.spec_ == "live") {
      if (hwloc_topology_load(raw) < 0)
        throw Error(CANOPY_ERR_IO, std::string("hwloc could not discover this machine: ") + std::strerror(errno));
    } else if (ends_with_xml(spec)) {
      configure_xml(raw, spec);
    } else {
      configure_synthetic(raw, spec);
      if (hwloc_topology_load(raw) < 0) fail_synthetic(spec, "hwloc could not build it");
    }
  } catch (const std::bad_alloc &) {
    throw Error(CANOPY_ERR_NO_MEMORY, "out of memory loading node topology '" + spec + "'");
  }
  return node;
}

NodeTopology::NodeTopology(NodeTopology &&other) noexcept
    : topology_(other.topology_), spec_(std::move(other.spec_)) {
  other.topology_ = nullptr;
}

NodeTopology &NodeTopology::operator=(NodeTopology &&other) noexcept {
  if (this != &other) {
    if (topology_) hwloc_topology_destroy(topology_);
    topology_ = other.topology_;
    spec_ = std::move(other.spec_);
    other.topology_ = nullptr;
  }
  return *this;
}

NodeTopology::~NodeTopology() {
  if (topology_) hwloc_topology_destroy(topology_);
}

const char *NodeTopology::kind() const {
  if (spec_ == "live") return "live";
  return ends_with_xml(spec_) ? "xml" : "synthetic";
}

int NodeTopology::num_packages() const { return count_of(topology_, HWLOC_OBJ_PACKAGE); }
int NodeTopology::num_numa_nodes() const { return count_of(topology_, HWLOC_OBJ_NUMANODE); }
int NodeTopology::num_cores() const { return count_of(topology_, core_type(topology_)); }
bool NodeTopology::pus_as_cores() const { return core_type(topology_) == HWLOC_OBJ_PU; }
int NodeTopology::num_pus() const { return count_of(topology_, HWLOC_OBJ_PU); }

std::vector<std::string> NodeTopology::level_names() const {
  std::vector<std::string> names;
  int depth = hwloc_topology_get_depth(topology_);
  for (int d = 0; d < depth; ++d) names.emplace_back(hwloc_obj_type_string(hwloc_get_depth_type(topology_, d)));
  return names;
}

int NodeTopology::num_cpus(CpuLevel level) const { return count_of(topology_, cpu_type(topology_, level)); }

std::vector<int> NodeTopology::core_pus(int core) const {
  hwloc_obj_t c = core_object(topology_, core);
  if (c->type == HWLOC_OBJ_PU) return {core};
  std::vector<int> pus;
  for (hwloc_obj_t pu = nullptr; (pu = hwloc_get_next_obj_inside_cpuset_by_type(topology_, c->cpuset, HWLOC_OBJ_PU, pu));)
    pus.push_back(static_cast<int>(pu->logical_index));
  return pus;
}

int NodeTopology::cpu_distance(CpuLevel level, int cpu_a, int cpu_b) const {
  hwloc_obj_t a = cpu_object(topology_, level, cpu_a);
  hwloc_obj_t b = cpu_object(topology_, level, cpu_b);
  hwloc_obj_t common = hwloc_get_common_ancestor_obj(topology_, a, b);
  return a->depth - common->depth;
}

int NodeTopology::cpu_package(CpuLevel level, int cpu) const {
  hwloc_obj_t obj = cpu_object(topology_, level, cpu);
  hwloc_obj_t package = obj->type == HWLOC_OBJ_PACKAGE ? obj : hwloc_get_ancestor_obj_by_type(topology_, HWLOC_OBJ_PACKAGE, obj);
  return package ? static_cast<int>(package->logical_index) : -1;
}

int NodeTopology::core_numa(int core) const { return local_numa(topology_, core_object(topology_, core)); }

// The smallest object holding every PU this process is bound to; nullptr when the
// binding cannot be read.
hwloc_obj_t NodeTopology::bound_cover() const {
  hwloc_bitmap_t set = hwloc_bitmap_alloc();
  hwloc_obj_t obj = nullptr;
  if (set && hwloc_get_cpubind(topology_, set, HWLOC_CPUBIND_PROCESS) == 0 && !hwloc_bitmap_iszero(set))
    obj = hwloc_get_obj_covering_cpuset(topology_, set);
  hwloc_bitmap_free(set);
  return obj;
}

// bound_cover() or its ancestor of @p type; nullptr when unbound (bound to the whole
// machine, which has no such ancestor), bound wider than one such object, or unreadable.
hwloc_obj_t NodeTopology::bound_object(int type) const {
  hwloc_obj_t obj = bound_cover();
  auto wanted = static_cast<hwloc_obj_type_t>(type);
  while (obj && obj->type != wanted) obj = obj->parent;
  return obj;
}

int NodeTopology::bound_cpu(CpuLevel level) const {
  hwloc_obj_t cpu = bound_object(cpu_type(topology_, level));
  return cpu ? static_cast<int>(cpu->logical_index) : -1;
}

void NodeTopology::bind_process(CpuLevel level, int cpu) const {
  if (!hwloc_topology_is_thissystem(topology_))
    throw Error(CANOPY_ERR_INVALID_ARG, "cannot bind to a CPU of " + spec_ + ": not this machine's topology");
  hwloc_obj_t obj = cpu_object(topology_, level, cpu);
  if (hwloc_set_cpubind(topology_, obj->cpuset, HWLOC_CPUBIND_PROCESS) < 0)
    throw Error(CANOPY_ERR_IO, std::string("cannot bind to ") + cpu_level_name(level) + " " + std::to_string(cpu) + ": " +
                                   std::strerror(errno));
}

int NodeTopology::bound_numa() const { return local_numa(topology_, bound_cover()); }

std::vector<CoreKind> NodeTopology::core_kinds() const {
  int count = hwloc_cpukinds_get_nr(topology_, 0);
  std::vector<CoreKind> kinds(static_cast<size_t>(std::max(count, 0)));
  std::vector<int> kind_of_pu;  // PU os index -> kind
  bool ranked = true;
  hwloc_bitmap_t set = hwloc_bitmap_alloc();
  if (!set) throw Error(CANOPY_ERR_NO_MEMORY, "hwloc_bitmap_alloc failed");
  for (int k = 0; k < count; ++k) {
    unsigned nr_infos = 0;
    hwloc_info_s *infos = nullptr;
    CoreKind &kind = kinds[static_cast<size_t>(k)];
    if (hwloc_cpukinds_get_info(topology_, static_cast<unsigned>(k), set, &kind.efficiency, &nr_infos, &infos, 0) < 0) continue;
    ranked = ranked && kind.efficiency >= 0;
    for (unsigned i = 0; i < nr_infos; ++i)
      if (std::strcmp(infos[i].name, "CoreType") == 0) kind.core_type = infos[i].value;
    for (int pu = hwloc_bitmap_first(set); pu >= 0; pu = hwloc_bitmap_next(set, pu)) {
      if (static_cast<size_t>(pu) >= kind_of_pu.size()) kind_of_pu.resize(static_cast<size_t>(pu) + 1, -1);
      kind_of_pu[static_cast<size_t>(pu)] = k;
    }
  }
  hwloc_bitmap_free(set);
  for (int c = 0; c < num_cores(); ++c) {
    int pu = hwloc_bitmap_first(core_object(topology_, c)->cpuset);
    if (pu >= 0 && static_cast<size_t>(pu) < kind_of_pu.size() && kind_of_pu[static_cast<size_t>(pu)] >= 0)
      kinds[static_cast<size_t>(kind_of_pu[static_cast<size_t>(pu)])].cores.push_back(c);
  }
  if (!ranked)
    for (CoreKind &kind : kinds) kind.efficiency = 0;
  return kinds;
}

std::vector<int> NodeTopology::core_efficiencies() const {
  std::vector<int> out(static_cast<size_t>(num_cores()), 0);
  for (const CoreKind &kind : core_kinds())
    for (int c : kind.cores) out[static_cast<size_t>(c)] = kind.efficiency;
  return out;
}

std::vector<int> NodeTopology::core_packages() const {
  std::vector<int> out;
  for (int c = 0; c < num_cores(); ++c) out.push_back(cpu_package(CpuLevel::Core, c));
  return out;
}

std::vector<int> NodeTopology::core_numa_nodes() const {
  std::vector<int> out;
  for (int c = 0; c < num_cores(); ++c) out.push_back(core_numa(c));
  return out;
}

nlohmann::json NodeTopology::to_json() const {
  nlohmann::json levels = nlohmann::json::array();
  int depth = hwloc_topology_get_depth(topology_);
  for (int d = 0; d < depth; ++d) {
    unsigned count = hwloc_get_nbobjs_by_depth(topology_, d);
    unsigned lo = std::numeric_limits<unsigned>::max(), hi = 0;
    for (unsigned i = 0; i < count; ++i) {
      unsigned arity = hwloc_get_obj_by_depth(topology_, d, i)->arity;
      lo = std::min(lo, arity);
      hi = std::max(hi, arity);
    }
    levels.push_back({{"type", hwloc_obj_type_string(hwloc_get_depth_type(topology_, d))},
                      {"depth", d},
                      {"count", count},
                      {"arity_min", count ? lo : 0},
                      {"arity_max", hi}});
  }
  nlohmann::json kinds = nlohmann::json::array();
  for (const CoreKind &kind : core_kinds())
    kinds.push_back({{"efficiency", kind.efficiency}, {"core_type", kind.core_type}, {"cores", kind.cores}});
  return {{"spec", spec_},           {"kind", kind()},          {"packages", num_packages()},
          {"numa_nodes", num_numa_nodes()}, {"cores", num_cores()}, {"pus", num_pus()},
          {"core_type", pus_as_cores() ? "PU" : "Core"},
          {"levels", levels},        {"core_package", core_packages()}, {"core_numa", core_numa_nodes()},
          {"core_kinds", kinds}};
}

}  // namespace canopy::topo

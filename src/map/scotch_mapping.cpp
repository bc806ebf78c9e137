#include "map/scotch_mapping.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <optional>

#include <scotch.h>

#include "common/error.h"
#include "map/partition.h"

namespace canopy::map {
namespace {

// tleaf link costs: a network link costs kLinkCost, two cores of one node are 1
// apart (the lowest cost Scotch accepts), so sharing a node always beats any link.
constexpr SCOTCH_Num kLinkCost = 16;
// Scotch counts in 32 bits (Debian's build): a target with more terminals than this,
// or weighted costs above it, would overflow.
constexpr double kScotchLimit = 1e9;
// Scotch's torus and mesh targets have at most 5 dimensions (ARCHMESHDIMNMAX).
constexpr size_t kScotchMaxDimensions = 5;

void check(int status, const char *call) {
  if (status != 0)
    throw Error(CANOPY_ERR_INTERNAL, std::string("Scotch: ") + call + " failed (status " + std::to_string(status) +
                                         "; Scotch printed the reason on stderr)");
}

// Scotch objects live between an init and an exit call.
template <class T, int (*Init)(T *), void (*Exit)(T *)>
class Scoped {
 public:
  Scoped() { check(Init(&value), "initialisation"); }
  ~Scoped() { Exit(&value); }
  Scoped(const Scoped &) = delete;
  Scoped &operator=(const Scoped &) = delete;
  T value;
};
using Arch = Scoped<SCOTCH_Arch, SCOTCH_archInit, SCOTCH_archExit>;
using Graph = Scoped<SCOTCH_Graph, SCOTCH_graphInit, SCOTCH_graphExit>;
using Strat = Scoped<SCOTCH_Strat, SCOTCH_stratInit, SCOTCH_stratExit>;
using Context = Scoped<SCOTCH_Context, SCOTCH_contextInit, SCOTCH_contextExit>;

// A target architecture, described before Scotch builds it. Its places are the
// allocation's slots (Machine's slot numbers) or its hosts; each has a terminal.
struct TargetSpec {
  std::string kind;                            // "tleaf", "torus", "mesh", "graph"
  std::vector<SCOTCH_Num> sizes, links;        // tleaf: fan-out and link cost per level; torus/mesh: dimensions
  std::vector<SCOTCH_Num> graph_offsets, graph_neighbors, graph_weights;  // graph: the hosts' complete graph
  std::vector<SCOTCH_Num> terminal_of_place;
  bool places_are_slots = false;
  double terminals = 0;     // of the whole target
  double max_distance = 1;  // the largest distance between two terminals
};

std::string join(const std::vector<SCOTCH_Num> &values) {
  std::string out;
  for (SCOTCH_Num v : values) out += (out.empty() ? "" : "x") + std::to_string(v);
  return out;
}

// A tree-leaf target from the switch hierarchy, when the hop counts follow it: a
// level per depth where some switch group has several children (fan-out: the
// largest; a smaller group leaves terminals unused), then the node's cores (as
// many as the largest host has slots; a smaller host leaves some unused).
std::optional<TargetSpec> tleaf_target(const Machine &m) {
  const topo::Topology &topo = m.topology();
  if (topo.torus() || topo.switches().empty()) return std::nullopt;
  std::vector<std::vector<int>> paths = hierarchy_paths(m);
  std::vector<int> hops = hops_by_common_depth(m, paths);
  if (hops.empty()) return std::nullopt;
  TargetSpec t;
  t.kind = "tleaf";
  std::vector<size_t> kept;  // depths that become levels
  std::vector<SCOTCH_Num> distance;  // between two terminals whose paths part at each level
  for (size_t d = 0; d < hops.size(); ++d) {
    int fanout = 0;
    for (const auto &path : paths) fanout = std::max(fanout, path[d] + 1);
    if (fanout < 2) continue;
    kept.push_back(d);
    t.sizes.push_back(fanout);
    distance.push_back(kLinkCost * hops[d]);
  }
  int cores = 0;
  for (int h = 0; h < m.num_hosts(); ++h) cores = std::max(cores, m.slots(h));
  t.places_are_slots = cores > 1;
  if (t.places_are_slots) t.sizes.push_back(cores), distance.push_back(1);
  for (size_t i = 0; i < distance.size(); ++i) {
    SCOTCH_Num below = i + 1 < distance.size() ? distance[i + 1] : 0;
    if (distance[i] <= below) return std::nullopt;  // a deeper split must cost less
    t.links.push_back(distance[i] - below);
  }
  t.terminals = 1;
  for (SCOTCH_Num s : t.sizes) t.terminals *= s;
  t.max_distance = static_cast<double>(distance[0]);
  if (t.terminals > kScotchLimit) return std::nullopt;
  for (int h = 0; h < m.num_hosts(); ++h) {
    SCOTCH_Num terminal = 0;
    for (size_t i = 0; i < kept.size(); ++i) terminal = terminal * t.sizes[i] + paths[static_cast<size_t>(h)][kept[i]];
    for (int local = 0; local < (t.places_are_slots ? m.slots(h) : 1); ++local)
      t.terminal_of_place.push_back(t.places_are_slots ? terminal * cores + local : terminal);
  }
  return t;
}

// A torus (every dimension wraps) or mesh (none does) of routers, one allocated
// host per router; Scotch numbers terminals with the first dimension fastest.
std::optional<TargetSpec> torus_target(const Machine &m) {
  const topo::Topology &topo = m.topology();
  if (!topo.torus()) return std::nullopt;
  const topo::TorusShape &shape = *topo.torus();
  bool all_wrap = std::all_of(shape.wrap.begin(), shape.wrap.end(), [](bool w) { return w; });
  bool none_wrap = std::none_of(shape.wrap.begin(), shape.wrap.end(), [](bool w) { return w; });
  if (!all_wrap && !none_wrap) return std::nullopt;  // Scotch has no mixed torus/mesh
  TargetSpec t;
  t.kind = all_wrap ? "torus" : "mesh";
  std::vector<size_t> used;  // dimensions longer than 1
  for (size_t d = 0; d < shape.dims.size(); ++d)
    if (shape.dims[d] > 1) used.push_back(d), t.sizes.push_back(shape.dims[d]);
  t.terminals = 1;
  t.max_distance = 0;
  for (SCOTCH_Num s : t.sizes) t.terminals *= s, t.max_distance += all_wrap ? s / 2 : s - 1;
  if (t.sizes.empty() || t.sizes.size() > kScotchMaxDimensions || t.terminals > kScotchLimit) return std::nullopt;
  std::vector<char> taken(static_cast<size_t>(t.terminals), 0);
  for (int host : m.host_nodes()) {
    int router = topo.leaf_switch(host);
    if (router < 0) return std::nullopt;
    const std::vector<int> &c = topo.node(router).coords;
    SCOTCH_Num terminal = 0;
    for (size_t i = used.size(); i-- > 0;) terminal = terminal * t.sizes[i] + c.at(used[i]);
    if (taken[static_cast<size_t>(terminal)]++) return std::nullopt;  // several hosts on one router
    t.terminal_of_place.push_back(terminal);
  }
  return t;
}

// A decomposition-defined target on the complete graph of the hosts, each edge
// weighted by the hops between its ends: exact for any routing, O(hosts²) memory.
TargetSpec graph_target(const Machine &m) {
  TargetSpec t;
  t.kind = "graph";
  int n = m.num_hosts();
  t.terminals = n;
  t.max_distance = 1;
  for (int a = 0; a < n; ++a) {
    t.graph_offsets.push_back(static_cast<SCOTCH_Num>(t.graph_neighbors.size()));
    for (int b = 0; b < n; ++b) {
      if (a == b) continue;
      t.graph_neighbors.push_back(b);
      t.graph_weights.push_back(std::max(1, m.hops(a, b)));
      t.max_distance = std::max(t.max_distance, static_cast<double>(t.graph_weights.back()));
    }
    t.terminal_of_place.push_back(a);
  }
  t.graph_offsets.push_back(static_cast<SCOTCH_Num>(t.graph_neighbors.size()));
  return t;
}

// Hosts with unequal slots need a target whose places are slots: Scotch gives
// every terminal the same load.
TargetSpec machine_target(const Machine &m) {
  if (auto t = tleaf_target(m)) return *t;
  if (!m.uniform_slots())
    throw Error(CANOPY_ERR_INVALID_ARG, "scotch maps hosts with unequal slots only onto a fat tree whose hop counts "
                                        "follow its switch hierarchy (a tleaf target, a terminal per slot); these are " +
                                            m.slots_text() + " on " + m.topology().source() + ": use rt or greedy");
  if (auto t = torus_target(m)) return *t;
  if (static_cast<double>(m.num_hosts()) * m.num_hosts() > kScotchLimit)
    throw Error(CANOPY_ERR_UNSUPPORTED, "scotch: " + std::to_string(m.num_hosts()) + " hosts on " +
                                            m.topology().source() + " (neither a tree nor a torus) need a target graph too large for Scotch");
  return graph_target(m);
}

// Scotch's architecture for a spec, and the sub-architecture of its places when
// they are not all of its terminals.
class ScotchTarget {
 public:
  explicit ScotchTarget(const TargetSpec &spec) : spec_(spec) {
    auto count = static_cast<SCOTCH_Num>(spec.sizes.size());
    if (spec.kind == "tleaf") check(SCOTCH_archTleaf(&arch_.value, count, spec.sizes.data(), spec.links.data()), "SCOTCH_archTleaf");
    if (spec.kind == "torus") check(SCOTCH_archTorusX(&arch_.value, count, spec.sizes.data()), "SCOTCH_archTorusX");
    if (spec.kind == "mesh") check(SCOTCH_archMeshX(&arch_.value, count, spec.sizes.data()), "SCOTCH_archMeshX");
    if (spec.kind == "graph") build_graph_arch();
    sub_ = static_cast<double>(spec.terminal_of_place.size()) != spec.terminals;
    if (sub_)
      check(SCOTCH_archSub(&sub_arch_.value, &arch_.value, static_cast<SCOTCH_Num>(spec.terminal_of_place.size()),
                           spec.terminal_of_place.data()),
            "SCOTCH_archSub");
  }

  const SCOTCH_Arch *arch() const { return sub_ ? &sub_arch_.value : &arch_.value; }

  /** The place of a terminal Scotch mapped to. */
  int place(SCOTCH_Num terminal) {
    if (sub_) return static_cast<int>(terminal);  // sub-architecture terminal i is place i
    if (place_of_terminal_.empty()) {
      place_of_terminal_.resize(spec_.terminal_of_place.size());
      for (size_t p = 0; p < place_of_terminal_.size(); ++p)
        place_of_terminal_[static_cast<size_t>(spec_.terminal_of_place[p])] = static_cast<int>(p);
    }
    return place_of_terminal_.at(static_cast<size_t>(terminal));
  }

  std::string describe() const {
    std::string out = spec_.kind + (spec_.sizes.empty() ? "" : " " + join(spec_.sizes));
    if (spec_.kind == "graph") out += " of " + std::to_string(spec_.terminal_of_place.size()) + " hosts";
    if (sub_) out += " (sub " + std::to_string(spec_.terminal_of_place.size()) + " of " +
                     std::to_string(static_cast<long long>(spec_.terminals)) + ")";
    return out;
  }

 private:
  void build_graph_arch() {
    auto n = static_cast<SCOTCH_Num>(spec_.graph_offsets.size() - 1);
    check(SCOTCH_graphBuild(&graph_.value, 0, n, spec_.graph_offsets.data(), spec_.graph_offsets.data() + 1, nullptr,
                            nullptr, static_cast<SCOTCH_Num>(spec_.graph_neighbors.size()), spec_.graph_neighbors.data(),
                            spec_.graph_weights.data()),
          "SCOTCH_graphBuild (target)");
    // By recursive bipartitioning (deco 1) from Scotch's reset random state: the
    // same mapping every run. SCOTCH_archBuild2's (deco 2) target differed from
    // run to run with the memory layout (in 4 of 100 runs on a 16-host graph).
    Strat strategy;
    SCOTCH_randomReset();
    check(SCOTCH_archBuild0(&arch_.value, &graph_.value, 0, nullptr, &strategy.value), "SCOTCH_archBuild0");
  }

  const TargetSpec &spec_;
  Graph graph_;     // the target graph (graph targets)
  Arch arch_;       // destroyed after the sub-architecture that refers to it
  Arch sub_arch_;
  bool sub_ = false;
  std::vector<int> place_of_terminal_;
};

// SCOTCH_graphMap on one thread with a fixed seed: the terminal of every vertex.
std::vector<SCOTCH_Num> graph_map(const CommGraph &g, ScotchTarget &target, double max_distance, int seed) {
  if (g.offsets().back() > SCOTCH_NUMMAX)
    throw Error(CANOPY_ERR_UNSUPPORTED, "scotch: the graph has too many edges for Scotch's 32-bit numbers");
  std::vector<SCOTCH_Num> offsets(g.offsets().begin(), g.offsets().end());
  std::vector<SCOTCH_Num> neighbors(g.neighbors().begin(), g.neighbors().end());
  // Scotch adds bytes x distance in 32 bits.
  std::vector<int> weights_int = integer_edge_weights(g, kScotchLimit / max_distance);
  std::vector<SCOTCH_Num> weights(weights_int.begin(), weights_int.end());
  Graph graph;
  check(SCOTCH_graphBuild(&graph.value, 0, g.num_vertices(), offsets.data(), offsets.data() + 1, nullptr, nullptr,
                          static_cast<SCOTCH_Num>(neighbors.size()), neighbors.data(), weights.data()),
        "SCOTCH_graphBuild");
  Context context;
  // Scotch sets its generator's state to the seed with the lowest bit set (never zero), so
  // seeds 2k and 2k + 1 would give one mapping: each seed gets its own state as 2 x seed.
  SCOTCH_contextRandomSeed(&context.value, static_cast<SCOTCH_Num>(2 * static_cast<unsigned>(seed)));
  check(SCOTCH_contextOptionSetNum(&context.value, SCOTCH_OPTIONNUMDETERMINISTIC, 1), "SCOTCH_contextOptionSetNum");
  check(SCOTCH_contextOptionSetNum(&context.value, SCOTCH_OPTIONNUMRANDOMFIXEDSEED, 1), "SCOTCH_contextOptionSetNum");
  check(SCOTCH_contextThreadSpawn(&context.value, 1, nullptr), "SCOTCH_contextThreadSpawn");
  Graph bound;  // the graph seen through the context
  check(SCOTCH_contextBindGraph(&context.value, &graph.value, &bound.value), "SCOTCH_contextBindGraph");
  Strat strategy;
  check(SCOTCH_stratGraphMapBuild(&strategy.value, SCOTCH_STRATQUALITY, SCOTCH_archSize(target.arch()), 0.01),
        "SCOTCH_stratGraphMapBuild");
  std::vector<SCOTCH_Num> terminal(static_cast<size_t>(g.num_vertices()));
  check(SCOTCH_graphMap(&bound.value, target.arch(), &strategy.value, terminal.data()), "SCOTCH_graphMap");
  return terminal;
}

// Slots from hosts: a vertex keeps the slot Scotch chose when that slot is on its
// host and still free; the others take their host's free slots in order.
std::vector<int> slots_on_hosts(const Machine &m, const std::vector<int> &host_of, const std::vector<int> &preferred) {
  std::vector<int> slot_of(host_of.size(), -1);
  std::vector<char> taken(static_cast<size_t>(m.num_slots()), 0);
  for (size_t v = 0; v < host_of.size(); ++v) {
    int s = preferred[v];
    if (s >= 0 && m.host_of_slot(s) == host_of[v] && !taken[static_cast<size_t>(s)]) slot_of[v] = s, taken[static_cast<size_t>(s)] = 1;
  }
  std::vector<int> next(static_cast<size_t>(m.num_hosts()), 0);  // next local slot to try on each host
  for (size_t v = 0; v < host_of.size(); ++v) {
    if (slot_of[v] >= 0) continue;
    int h = host_of[v];
    int &local = next[static_cast<size_t>(h)];
    while (taken[static_cast<size_t>(m.first_slot(h) + local)]) ++local;
    slot_of[v] = m.first_slot(h) + local;
    taken[static_cast<size_t>(slot_of[v])] = 1;
  }
  return slot_of;
}

}  // namespace

ScotchMapping scotch_map(const CommGraph &padded, const Machine &m, int seed) {
  size_t n = static_cast<size_t>(padded.num_vertices());
  std::vector<int> host_of(n, 0), preferred(n, -1);
  // One host: nothing for Scotch to decide (and it cannot take a one-terminal sub-target).
  if (m.num_hosts() == 1) return {slots_on_hosts(m, host_of, preferred), "none (one host)"};
  TargetSpec spec = machine_target(m);
  ScotchTarget target(spec);
  std::vector<SCOTCH_Num> terminal = graph_map(padded, target, spec.max_distance, seed);
  for (size_t v = 0; v < n; ++v) {
    int place = target.place(terminal[v]);
    host_of[v] = spec.places_are_slots ? m.host_of_slot(place) : place;
    if (spec.places_are_slots) preferred[v] = place;
  }
  std::vector<int> capacity;
  for (int h = 0; h < m.num_hosts(); ++h) capacity.push_back(m.slots(h));
  repair_balance(padded, host_of, capacity, &m.hop_table());
  return {slots_on_hosts(m, host_of, preferred), target.describe()};
}

}  // namespace canopy::map

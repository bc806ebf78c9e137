#include "map/mapping.h"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <numeric>

#include "common/error.h"
#include "map/coarsening.h"
#include "map/metrics.h"
#include "map/partition.h"
#include "map/placement_steps.h"
#include "map/scotch_mapping.h"
#include "map/topology_tree.h"
#include "map/tree_mapping.h"

namespace canopy::map {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int kTreeMappingAttempts = 4;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// CPU time of this process: on a shared machine the wall clock also counts the others.
double cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

// Hosts in fabric order: by torus position (first dimension fastest), or as the
// switch hierarchy lists them (hosts of one leaf switch together, leaves of one
// pod together).
std::vector<int> fabric_order(const Machine &m) {
  std::vector<int> order(static_cast<size_t>(m.num_hosts()));
  std::iota(order.begin(), order.end(), 0);
  if (!m.coordinates().empty()) {
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
      const auto &ca = m.coordinates()[static_cast<size_t>(a)], &cb = m.coordinates()[static_cast<size_t>(b)];
      return std::lexicographical_compare(ca.rbegin(), ca.rend(), cb.rbegin(), cb.rend());
    });
    return order;
  }
  TopologyTree tree = fabric_hierarchy_tree(m.topology(), m.host_nodes());
  return tree.nodes[0].leaves;
}

// Every slot, the hosts taken in @p order, each host's slots in turn.
std::vector<int> slots_in_order(const Machine &m, const std::vector<int> &order) {
  std::vector<int> slots;
  for (int h : order)
    for (int s = 0; s < m.slots(h); ++s) slots.push_back(m.first_slot(h) + s);
  return slots;
}

// The host of every padded vertex when vertex v goes to the v-th slot of slots_in_order().
std::vector<int> hosts_in_order(const Machine &m, const std::vector<int> &order) {
  std::vector<int> host_of = slots_in_order(m, order);
  for (int &h : host_of) h = m.host_of_slot(h);
  return host_of;
}

// On a torus, auto takes coordinate bisection: neighbor joining's tree of a
// torus is lopsided (512 hosts split 328 + 184, ties broken arbitrarily) and
// its domains are irregular, which cost rt 25-50% more hop-bytes than the same
// dual walk on the coordinate tree (docs/benchmarks.md).
TopologyTree inter_node_tree(const Machine &m, TreeChoice choice, unsigned attempt) {
  const topo::Topology &topo = m.topology();
  bool hierarchy_known = !topo.torus() && !topo.switches().empty();
  if (choice == TreeChoice::Fabric && !hierarchy_known)
    throw Error(CANOPY_ERR_INVALID_ARG, "the fabric's switch hierarchy is not known for " + topo.source() +
                                            " (a torus or a switchless source): use --tree coordinates or neighbor-joining");
  if (choice == TreeChoice::Coordinates && m.coordinates().empty())
    throw Error(CANOPY_ERR_INVALID_ARG, topo.source() + " has no torus coordinates: use --tree fabric or neighbor-joining");
  if (choice == TreeChoice::Fabric || (choice == TreeChoice::Auto && hierarchy_known))
    return fabric_hierarchy_tree(topo, m.host_nodes());
  if (choice == TreeChoice::Coordinates || (choice == TreeChoice::Auto && !m.coordinates().empty()))
    return coordinate_bisection_tree(m.coordinates());
  return neighbor_joining_tree(dense_hops(m), m.num_hosts(), attempt);
}

TopologyTree build_tree(const Machine &m, const MapOptions &o, unsigned attempt, MapResult &result) {
  auto start = Clock::now();
  TopologyTree tree = o.algorithm == "rb" ? coordinate_bisection_tree(m.coordinates()) : inter_node_tree(m, o.tree, attempt);
  result.tree = tree.kind;
  result.seconds["tree"] += seconds_since(start);
  return tree;
}

// The host of every vertex from the host of its group (group_of[v]): groups
// and coarse vertices handed back to the vertices they were made of.
std::vector<int> hosts_of_members(const std::vector<int> &group_of, const std::vector<int> &host_of_group) {
  std::vector<int> host_of(group_of.size());
  for (size_t v = 0; v < group_of.size(); ++v) host_of[v] = host_of_group[static_cast<size_t>(group_of[v])];
  return host_of;
}

// Tree mapping cuts well but does not orient sibling subtrees towards each other
// (which half of one face of a torus sits across which half of the other):
// swapping subtrees (where each host holds one group) and then single groups
// between hosts fixes much of that.
void orient_groups(const CommGraph &groups, const TopologyTree &tree, const Machine &m, std::vector<int> &host_of_group) {
  if (groups.num_vertices() == m.num_hosts()) swap_subtrees(groups, tree, m.hop_table(), host_of_group);
  refine_hosts(groups, m, host_of_group);
}

// Equally large groups (group[v], numbered from 0; each host's slots a multiple
// of their size) placed as a graph of groups on the topology tree, each host
// taking as many as fill it. For small graphs, with refinement on, the walk is
// tried a few times (other METIS seeds, neighbor joining breaking its ties
// differently) and the best kept.
std::vector<int> place_groups(const CommGraph &padded, const std::vector<int> &group, const Machine &m,
                              const MapOptions &o, MapResult &result) {
  CommGraph groups = padded.quotient(group, *std::max_element(group.begin(), group.end()) + 1);
  int group_size = m.num_slots() / groups.num_vertices();
  std::vector<int> groups_per_host;
  for (int h = 0; h < m.num_hosts(); ++h) groups_per_host.push_back(m.slots(h) / group_size);
  std::vector<int> best;
  double best_cost = 0;
  int attempts = o.refine && padded.num_vertices() <= kBothGroupingsUpTo ? kTreeMappingAttempts : 1;
  for (int attempt = 0; attempt < attempts; ++attempt) {
    TopologyTree tree = build_tree(m, o, static_cast<unsigned>(attempt), result);
    auto start = Clock::now();
    std::vector<int> host_of_group = map_on_tree(groups, tree, o.seed + attempt, groups_per_host, &m.hop_table());
    if (o.refine) orient_groups(groups, tree, m, host_of_group);
    double cost = inter_node_hop_bytes(groups, m, host_of_group);
    if (best.empty() || cost < best_cost) best = std::move(host_of_group), best_cost = cost;
    result.seconds["map"] += seconds_since(start);
  }
  return hosts_of_members(group, best);
}

// The paper's preprocessing: node-sized METIS groups (k-way + repair), placed.
std::vector<int> flat_group_hosts(const CommGraph &padded, const Machine &m, const MapOptions &o, MapResult &result) {
  auto start = Clock::now();
  report(o.progress, "METIS k-way into " + std::to_string(m.num_hosts()) + " host groups");
  std::vector<int> sizes(static_cast<size_t>(m.num_hosts()), m.uniform_slots());
  std::vector<int> group = partition_exact(padded, sizes, o.seed);
  result.seconds["partition"] = seconds_since(start);
  return place_groups(padded, group, m, o, result);
}

// The length of a run of consecutive ranks: the most slots that divide every
// host's, so that runs fill hosts exactly. One run per host when all hosts have
// as many slots, otherwise a few per host (8 and 24 slots: runs of 8).
int run_length(const Machine &m) {
  int length = 0;
  for (int h = 0; h < m.num_hosts(); ++h) length = std::gcd(length, m.slots(h));
  return length;
}

// Runs of consecutive ranks, as the application numbered them.
std::vector<int> rank_runs(const Machine &m) {
  int length = run_length(m);
  std::vector<int> run(static_cast<size_t>(m.num_slots()));
  for (size_t v = 0; v < run.size(); ++v) run[v] = static_cast<int>(v) / length;
  return run;
}

// The host of every padded vertex under the identity placement (vertex v on slot v).
std::vector<int> identity_hosts(const Machine &m) {
  std::vector<int> order(static_cast<size_t>(m.num_hosts()));
  std::iota(order.begin(), order.end(), 0);
  return hosts_in_order(m, order);
}

// Whether the application's numbering already groups its processes about as
// well as a partitioner would, judged on samples: kRunsSampleWindows windows of
// kRunsSampleHosts hosts' worth of consecutive ranks, spread over the ranks. In
// every window most bytes must stay inside (else the window does not show who
// talks to whom: ranks that talk to distant ranks only), and runs must cut at
// most kRunsCutSlack times what METIS cuts splitting the window into parts as
// large (the hosts, when all have as many slots).
// 4-15 ms where all windows pass, at 8,192 or 65,536 processes, where the tree
// walk takes 0.2-3 s; the first window that fails ends the test.
bool numbering_is_local(const CommGraph &padded, const Machine &m, int seed) {
  int hosts = m.num_hosts(), length = run_length(m);
  int window_hosts = std::min(kRunsSampleHosts, hosts), windows = std::clamp(hosts / window_hosts, 1, kRunsSampleWindows);
  for (int w = 0; w < windows; ++w) {
    int first_host = static_cast<int>(int64_t{hosts - window_hosts} * w / std::max(1, windows - 1));
    int first = m.first_slot(first_host), end = m.first_slot(first_host + window_hosts);
    std::vector<int> vertices(static_cast<size_t>(end - first)), runs(vertices.size());
    std::iota(vertices.begin(), vertices.end(), first);
    for (size_t i = 0; i < runs.size(); ++i) runs[i] = static_cast<int>(i) / length;
    CommGraph window = padded.subgraph(vertices);
    double bytes = 0;
    for (int v : vertices) bytes += padded.vertex_bytes(v);
    if (2 * window.total_bytes() < 0.5 * bytes) return false;  // vertex_bytes counts an edge at both ends
    std::vector<int> sizes(vertices.size() / static_cast<size_t>(length), length);
    if (edge_cut(window, runs) > kRunsCutSlack * edge_cut(window, partition_exact(window, sizes, seed))) return false;
  }
  return true;
}

// Coarsening levels that keep at least two clusters on every host, each level
// halving the processes per cluster: 3 for 16 slots per host (clusters of 2, 4,
// 8). A walk that starts from whole-host clusters cost up to 7% hop-bytes on
// torus stencils (docs/benchmarks.md).
int max_coarsening_levels(const Machine &m) {
  int fewest = 30;
  for (int h = 0; h < m.num_hosts(); ++h) {
    int levels = 0;
    for (int per_host = m.slots(h); per_host % 2 == 0 && per_host >= 4; per_host /= 2) ++levels;
    fewest = std::min(fewest, levels);
  }
  return fewest;
}

// Groups formed along the tree: the process graph itself is split at every tree
// node into parts of as many processes as the hosts below a child have slots. Only few
// parts per split, so METIS stays fast at 65,536 processes, and every cut follows
// the hierarchy. Multilevel where the graph pairs up naturally (coarsening.h; at
// most @p max_levels): the walk runs on the coarsest graph, and each level on the
// way back refines its clusters' hosts.
std::vector<int> tree_group_hosts(const CommGraph &padded, const Machine &m, const MapOptions &o, int max_levels,
                                  MapResult &result) {
  TopologyTree tree = build_tree(m, o, 0, result);
  auto start = Clock::now();
  Coarsening levels = coarsen_natural_pairs(padded, max_levels);
  result.coarsening_levels = static_cast<int>(levels.graphs.size());
  const CommGraph &coarsest = levels.graphs.empty() ? padded : levels.graphs.back();
  std::vector<int> clusters_per_host;
  for (int h = 0; h < m.num_hosts(); ++h) clusters_per_host.push_back(m.slots(h) >> result.coarsening_levels);
  std::vector<int> host_of = map_on_tree(coarsest, tree, o.seed, clusters_per_host, &m.hop_table(), o.progress);
  for (size_t level = levels.graphs.size(); level-- > 0;) {
    if (o.refine) {
      report(o.progress, "refining the hosts of " + std::to_string(levels.graphs[level].num_vertices()) + " clusters");
      refine_hosts(levels.graphs[level], m, host_of);
    }
    host_of = hosts_of_members(levels.cluster[level], host_of);
  }
  result.seconds["map"] += seconds_since(start);
  // Orienting moves whole host groups between hosts: only where every host has as many slots.
  if (o.refine && m.uniform_slots()) {
    start = Clock::now();
    report(o.progress, "orienting the host groups");
    std::vector<int> host_of_group(static_cast<size_t>(m.num_hosts()));
    std::iota(host_of_group.begin(), host_of_group.end(), 0);
    orient_groups(padded.quotient(host_of, m.num_hosts()), tree, m, host_of_group);
    for (int &h : host_of) h = host_of_group[static_cast<size_t>(h)];
    result.seconds["refine"] += seconds_since(start);
  }
  return host_of;
}

// What a grouping's hosts carry: hop-bytes, and the busiest host's off-node bytes.
struct Load {
  double hop_bytes, busiest_host;
};

Load load_of(const CommGraph &g, const Machine &m, const std::vector<int> &host_of) {
  std::vector<double> off_node = off_node_bytes(g, m, host_of);
  return {inter_node_hop_bytes(g, m, host_of), *std::max_element(off_node.begin(), off_node.end())};
}

std::vector<int> tree_hosts(const CommGraph &padded, const Machine &m, const MapOptions &o, MapResult &result) {
  if (o.algorithm == "rb" && m.coordinates().empty())
    throw Error(CANOPY_ERR_INVALID_ARG, "rb needs torus coordinates (a torus: source); " + m.topology().source() +
                                            " has none: use rt");
  // Host-sized METIS groups placed as a graph of groups fit any host only when all hosts have as many slots.
  bool equal_hosts = m.uniform_slots() > 0;
  if (!equal_hosts && o.groups == GroupChoice::Flat)
    throw Error(CANOPY_ERR_INVALID_ARG, "flat groups (one METIS part per host) need the same number of slots on every "
                                        "host; these are " + m.slots_text() + ": use groups tree, runs or auto");
  if (o.groups == GroupChoice::Flat) {
    result.groups = "flat";
    return flat_group_hosts(padded, m, o, result);
  }
  // A run of one rank groups nothing (one slot per host, or hosts whose slots share no divisor): auto
  // leaves runs out there, which at 32,768 hosts of one slot halves the time for the same mapping.
  bool runs_group = run_length(m) > 1;
  if (o.groups == GroupChoice::Runs || (o.groups == GroupChoice::Auto && runs_group &&
                                        padded.num_vertices() > kBothGroupingsUpTo && numbering_is_local(padded, m, o.seed))) {
    result.groups = "runs";
    return place_groups(padded, rank_runs(m), m, o, result);
  }
  result.groups = "tree";
  int levels = max_coarsening_levels(m);
  std::vector<int> host_of = tree_group_hosts(padded, m, o, levels, result);
  if (o.groups != GroupChoice::Auto) return host_of;
  // Hop-bytes and the busiest host's off-node bytes, each relative to the tree's
  // groups, summed: a grouping that loads one host's link more must save more
  // hop-bytes than that (docs/mapping.md).
  const Load tree = load_of(padded, m, host_of);
  if (tree.hop_bytes == 0) return host_of;
  double cost = 2;
  struct {
    std::string groups, tree;
    int coarsening_levels;
  } chosen{result.groups, result.tree, result.coarsening_levels};  // the grouping kept
  const std::string first_tree = result.tree;
  auto consider = [&](const char *groups, std::vector<int> other) {
    Load load = load_of(padded, m, other);
    double other_cost = load.hop_bytes / tree.hop_bytes + load.busiest_host / tree.busiest_host;
    if (other_cost >= cost) return;
    host_of = std::move(other), cost = other_cost;
    chosen.groups = groups, chosen.tree = result.tree, chosen.coarsening_levels = result.coarsening_levels;
  };
  if (runs_group && edge_cut(padded, identity_hosts(m)) <= kRunsCutSlack * edge_cut(padded, host_of)) {
    report(o.progress, "placing runs of consecutive ranks");
    result.coarsening_levels = 0;
    consider("runs", place_groups(padded, rank_runs(m), m, o, result));
  }
  if (padded.num_vertices() <= kBothGroupingsUpTo) {
    result.coarsening_levels = 0;
    if (equal_hosts) consider("flat", flat_group_hosts(padded, m, o, result));
    // Other walks along a tree: without coarsening, and for rt on a tree of its own
    // choice, on the neighbor-joining tree too (with and without).
    MapOptions nj = o;
    nj.tree = TreeChoice::NeighborJoining;
    bool other_tree = o.algorithm == "rt" && o.tree == TreeChoice::Auto && first_tree != "neighbor-joining";
    std::vector<std::pair<const MapOptions *, int>> walks;  // options, most coarsening levels
    if (levels > 0) walks.push_back({&o, 0});
    if (other_tree) walks.push_back({&nj, levels});
    if (other_tree && levels > 0) walks.push_back({&nj, 0});
    for (auto [walk, max_levels] : walks) consider("tree", tree_group_hosts(padded, m, *walk, max_levels, result));
  }
  result.groups = chosen.groups, result.tree = chosen.tree, result.coarsening_levels = chosen.coarsening_levels;
  return host_of;
}

// Refines the algorithm's hosts; if identity or block (refined) does better, that wins.
std::vector<int> refine_with_guard(const CommGraph &padded, const Machine &m, std::vector<int> host_of, MapResult &result) {
  auto start = Clock::now();
  refine_hosts(padded, m, host_of);
  double best = inter_node_hop_bytes(padded, m, host_of);
  result.refined_from = result.algorithm;
  for (auto &[name, hosts] : {std::pair<const char *, std::vector<int>>{"identity", identity_hosts(m)},
                              {"block", hosts_in_order(m, fabric_order(m))}}) {
    std::vector<int> baseline = hosts;
    if (inter_node_hop_bytes(padded, m, baseline) >= best) continue;
    refine_hosts(padded, m, baseline);
    double cost = inter_node_hop_bytes(padded, m, baseline);
    if (cost < best) best = cost, host_of = std::move(baseline), result.refined_from = name;
  }
  result.seconds["refine"] += seconds_since(start);
  return host_of;
}

// greedy, rt, rb: hosts, refinement with the guard, then slots inside the hosts.
std::vector<int> canopy_placement(const Problem &p, const MapOptions &o, MapResult &result) {
  const Machine &m = p.machine;
  CommGraph padded = p.graph.padded(m.num_slots());
  std::vector<int> host_of;
  if (o.algorithm == "greedy") {
    auto greedy_start = Clock::now();
    report(o.progress, "greedy placement");
    host_of = greedy_hosts(padded, m);
    result.seconds["map"] = seconds_since(greedy_start);
  } else {
    host_of = tree_hosts(padded, m, o, result);
  }
  if (o.refine) {
    report(o.progress, "refinement: process swaps between hosts");
    host_of = refine_with_guard(padded, m, std::move(host_of), result);
  }
  // Steps that move whole host groups (and last, on request, single processes), each
  // refined after and kept only if lower on the one-way hop counts the metrics use (they
  // average both ways) by more than it loads the busiest link, each relative to before (as
  // auto weighs groupings): a group keeps its host's link, and the processes' annealing
  // keeps every host's under the busiest one, but the links above the hosts may get
  // busier. One that moved nothing costs no refinement.
  double hop_bytes = -1, busiest_link = -1;  // host_of's, computed when a step first needs them
  auto placement_step = [&](const char *phase, auto &&step) {
    auto start = Clock::now();
    std::vector<int> moved = host_of;
    step(moved);
    if (moved != host_of) {
      if (o.refine) refine_hosts(padded, m, moved);
      if (hop_bytes < 0) hop_bytes = inter_node_hop_bytes(padded, m, host_of);
      double after = inter_node_hop_bytes(padded, m, moved);
      if (after < hop_bytes) {  // then hosts exchange bytes, and the busiest link carries some
        if (busiest_link < 0) busiest_link = busiest_link_bytes(padded, m, host_of);
        double moved_link = busiest_link_bytes(padded, m, moved);
        if (after / hop_bytes + moved_link / busiest_link < 2) {
          host_of = std::move(moved), hop_bytes = after, busiest_link = moved_link;
          result.moved_groups.push_back(phase);
        }
      }
    }
    result.seconds[phase] = seconds_since(start);
  };
  if (o.analytic_iterations > 0 && analytic_placement_applies(m))
    placement_step("analytic", [&](std::vector<int> &h) {
      place_host_groups_analytically(padded, m, h, o.analytic_iterations, o.progress);
    });
  if (o.refine && tabu_search_applies(m))
    placement_step("tabu", [&](std::vector<int> &h) { tabu_search_host_groups(padded, m, h, static_cast<uint64_t>(o.seed)); });
  if (o.anneal_moves > 0)
    placement_step("anneal", [&](std::vector<int> &h) {
      anneal_host_groups(padded, m, h, o.anneal_moves, static_cast<uint64_t>(o.seed), o.progress);
    });
  if (o.anneal_process_moves > 0)
    placement_step("anneal-processes", [&](std::vector<int> &h) {
      anneal_processes(padded, m, h, o.anneal_process_moves, static_cast<uint64_t>(o.seed), o.progress);
    });
  auto intra_start = Clock::now();
  result.intra_node = o.intra_node && m.node().has_value();
  if (result.intra_node) report(o.progress, "intra-node mapping");
  std::vector<int> slots = place_in_nodes(padded, m, host_of, result.intra_node, o.seed);
  result.seconds["intra"] = seconds_since(intra_start);
  return slots;
}

}  // namespace

TreeChoice tree_choice(const std::string &name) {
  if (name == "auto") return TreeChoice::Auto;
  if (name == "fabric") return TreeChoice::Fabric;
  if (name == "coordinates") return TreeChoice::Coordinates;
  if (name == "neighbor-joining" || name == "nj") return TreeChoice::NeighborJoining;
  throw Error(CANOPY_ERR_INVALID_ARG, "unknown tree '" + name + "' (auto, fabric, coordinates or neighbor-joining)");
}

GroupChoice group_choice(const std::string &name) {
  if (name == "auto") return GroupChoice::Auto;
  if (name == "tree") return GroupChoice::Tree;
  if (name == "flat") return GroupChoice::Flat;
  if (name == "runs") return GroupChoice::Runs;
  throw Error(CANOPY_ERR_INVALID_ARG, "unknown grouping '" + name + "' (auto, tree, flat or runs)");
}

const std::vector<std::string> &algorithm_names() {
  static const std::vector<std::string> names = {"identity", "block", "greedy", "rt", "rb", "scotch"};
  return names;
}

bool seeded_algorithm(const std::string &algorithm) {
  return algorithm == "rt" || algorithm == "rb" || algorithm == "scotch";
}

std::string group_steps_text(const MapResult &r) {
  std::string text;
  auto step = [&](const std::string &phase, const char *kept, const std::string &name) {
    if (!r.seconds.count(phase)) return;
    bool moved = std::find(r.moved_groups.begin(), r.moved_groups.end(), phase) != r.moved_groups.end();
    text += (text.empty() ? "" : ", ") + (moved ? kept : name + " found nothing to keep");
  };
  step("analytic", "host groups placed analytically", "analytic placement of the host groups");
  step("tabu", "host groups placed by tabu search", "tabu search of the host groups");
  step("anneal", "host groups annealed", "annealing of the host groups");
  step("anneal-processes", "processes annealed", "annealing of the processes");
  return text;
}

std::vector<int> identity_placement(const Problem &p) {
  std::vector<int> slots(static_cast<size_t>(p.graph.num_vertices()));
  std::iota(slots.begin(), slots.end(), 0);
  return slots;
}

std::vector<int> block_placement(const Problem &p) {
  std::vector<int> slots = slots_in_order(p.machine, fabric_order(p.machine));
  slots.resize(static_cast<size_t>(p.graph.num_vertices()));
  return slots;
}

MapResult map_processes(const Problem &p, const MapOptions &o) {
  const Machine &m = p.machine;
  if (std::find(algorithm_names().begin(), algorithm_names().end(), o.algorithm) == algorithm_names().end())
    throw Error(CANOPY_ERR_INVALID_ARG, "unknown mapping algorithm '" + o.algorithm + "' (identity, block, greedy, rt, rb, scotch)");
  if (p.graph.num_vertices() > m.num_slots())
    throw Error(CANOPY_ERR_INVALID_ARG, std::to_string(p.graph.num_vertices()) + " processes but only " +
                                            std::to_string(m.num_slots()) + " slots (" + m.slots_text() + ")");
  auto start = Clock::now();
  double cpu_start = cpu_seconds();
  MapResult result;
  result.algorithm = o.algorithm;
  std::vector<int> slots;
  if (o.algorithm == "identity" || o.algorithm == "block") {
    slots = o.algorithm == "identity" ? identity_placement(p) : block_placement(p);
  } else if (o.algorithm == "scotch") {
    report(o.progress, "Scotch static mapping");
    ScotchMapping scotch = scotch_map(p.graph.padded(m.num_slots()), m, o.seed);
    result.target = scotch.target;
    result.seconds["map"] = seconds_since(start);
    slots = std::move(scotch.slot_of);
  } else {
    slots = canopy_placement(p, o, result);
  }
  slots.resize(static_cast<size_t>(p.graph.num_vertices()));
  result.slot_of_process = std::move(slots);
  result.seconds["total"] = seconds_since(start);
  result.seconds["total_cpu"] = cpu_seconds() - cpu_start;
  return result;
}

}  // namespace canopy::map

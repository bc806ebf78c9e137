// Task mapping: which slot of the allocation each process (MPI rank) gets.
//
//   map::Problem problem{graph, machine};
//   map::MapResult result = map::map_processes(problem, {"rt"});
//   map::Metrics m = map::evaluate(problem, result.slot_of_process);
//
// Algorithms (selectable by name, see algorithm_names()):
//   identity  rank i on slot i, hosts in allocation order (what launchers do)
//   block     ranks in blocks of slots_per_host, hosts in fabric order
//   greedy    heaviest unplaced process next to its placed partners, on the nearest free slot
//   rt        recursive tree mapping on a topology tree, dual recursive (each split
//             also weighs the bytes to processes placed in other subtrees)
//   rb        the same walk on the tree of torus coordinate bisection
//   scotch    Scotch's static mapping on an equivalent tleaf / torus / graph target
//             (scotch_mapping.h), overloads repaired; the peer, so never refined
// greedy, rt and rb are followed by a refinement pass (process swaps between
// hosts that lower hop-bytes, never worse than identity or block), on machines
// with coordinates analytic placement of the host groups (MapOptions::
// analytic_iterations), on request their annealing (anneal_moves), and, when
// the machine knows its nodes' inside, intra-node mapping on the hwloc tree.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/progress.h"
#include "map/comm_graph.h"
#include "map/machine.h"

namespace canopy::map {

struct Problem {
  CommGraph graph;  // one vertex per process
  Machine machine;
};

enum class TreeChoice { Auto, Fabric, Coordinates, NeighborJoining };
/** "auto", "fabric", "coordinates", "neighbor-joining"; Error(INVALID_ARG) for another name. */
TreeChoice tree_choice(const std::string &name);

/** How rt and rb form the node-sized groups of processes: the paper's flat
    preprocessing (METIS k-way into one group per host, repaired to exact sizes,
    then the groups' graph mapped on the tree), along the tree (the process
    graph split at every tree node; few parts per split, faster at scale), runs
    (ppn consecutive ranks per group: the application's own numbering, as the
    block placement keeps it, with the groups' graph mapped on the tree; where
    hosts have unequal slots, runs as long as the most slots that divide every
    host's, a few per host; flat needs equal hosts), or
    auto: on graphs above kBothGroupingsUpTo vertices (free slots included),
    runs alone when samples of the ranks show the numbering as local as METIS's
    parts (kRunsSampleWindows); otherwise along the tree; runs too when their
    cut is at most kRunsCutSlack times the tree's; for small graphs flat too,
    and more walks along a tree (without coarsening; for rt with tree auto,
    on the neighbor-joining tree too); kept: the lowest hop-bytes plus busiest
    host's off-node bytes, each relative to the tree's groups. */
enum class GroupChoice { Auto, Tree, Flat, Runs };
/** "auto", "tree", "flat", "runs"; Error(INVALID_ARG) for another name. */
GroupChoice group_choice(const std::string &name);

/** GroupChoice::Auto tries flat and the other walks along a tree on graphs up
    to this many vertices: there they are cheap (a few ms each) and win on some
    instances (node-sized groups from one k-way cut beat the hierarchy's uneven
    splits at 256 processes; docs/benchmarks.md). Up to this size the groups'
    graph is also placed several times, the best kept. */
constexpr int kBothGroupingsUpTo = 2048;

/** GroupChoice::Auto tries runs when the bytes between them are at most this
    many times the bytes between the tree's groups. Ranks numbered by a
    partitioner (METIS parts, space-filling curves) come within it, and then
    runs often win; lexicographic grids and random numberings cut 1.5-1.9 times
    more and never do (docs/benchmarks.md). */
constexpr double kRunsCutSlack = 1.05;

/** On graphs above kBothGroupingsUpTo vertices GroupChoice::Auto takes runs
    without the tree walk when in each of this many windows of kRunsSampleHosts
    hosts' worth of consecutive ranks most bytes stay inside the window and runs
    cut at most kRunsCutSlack times METIS's split of the window into hosts.
    Meshes numbered by a partitioner pass (0.88-0.98 of METIS's cut), and so do
    AMR patterns for most seeds (0.96-1.00; else a window at up to 1.15);
    lexicographic stencils (2.0-3.5) and random graphs (most bytes leave the
    windows) do not (docs/benchmarks.md). */
constexpr int kRunsSampleWindows = 8;
constexpr int kRunsSampleHosts = 16;

/** The most iterations of analytic placement MapOptions::analytic_iterations may ask for. */
constexpr int kMostAnalyticIterations = 1000;
/** MapOptions::analytic_iterations by default: on the torus meshes of the benchmark
    the tenth iteration still gains; where the step finds nothing it stops within
    its three bisections (docs/mapping-history.md). */
constexpr int kDefaultAnalyticIterations = 10;

struct MapOptions {
  std::string algorithm = "rt";
  /** rt: the fabric's switch hierarchy, coordinate bisection (tori), or neighbor
      joining; auto takes the hierarchy on switched fabrics, coordinate bisection
      where hosts have torus coordinates, neighbor joining elsewhere. */
  TreeChoice tree = TreeChoice::Auto;
  GroupChoice groups = GroupChoice::Auto;
  bool intra_node = true;  // intra-node mapping (needs Machine::node()); not for scotch
  bool refine = true;      // refinement pass, the never-worse-than-baselines guard, and on few hosts
                           // the tabu search of the host groups (placement_steps.h); not for scotch
  int seed = 1;            // METIS (and Scotch) seed: the same seed gives the same mapping
  /** greedy, rt, rb: after the refinement, anneal where the host groups go with this
      many moves per host (placement_steps.h: anneal_host_groups), then refine again.
      Never more hop-bytes than without; slow (seconds to minutes); 0: none. */
  int64_t anneal_moves = 0;
  /** greedy, rt, rb: last, anneal single processes between hosts with this many
      moves per process (placement_steps.h: anneal_processes), then refine again;
      kept as the steps that move host groups are. Never more hop-bytes than
      without; slow (about a second per 10 million moves, and on a degree-8 graph
      thousands of moves per process pay); 0: none. */
  int64_t anneal_process_moves = 0;
  /** greedy, rt, rb on machines with coordinates and equal slots: after the
      refinement, this many iterations of analytic placement of the host groups
      (placement_steps.h: place_host_groups_analytically), then refine again;
      before any annealing. Never more hop-bytes than without; 0: none; at most
      kMostAnalyticIterations. Elsewhere nothing, and no "analytic" phase. */
  int analytic_iterations = kDefaultAnalyticIterations;
  ProgressFn progress{};   // told each stage as it begins (the walk level by level); none: silent
};

struct MapResult {
  std::vector<int> slot_of_process;  // process -> slot, one-to-one
  std::string algorithm;
  std::string tree;           // topology tree used ("" when none)
  std::string groups;         // rt, rb: the grouping the result came from ("tree" or "flat"; "" otherwise)
  int coarsening_levels = 0;  // rt, rb with tree groups: natural pairings contracted before the walk (coarsening.h)
  std::string target;         // scotch: the Scotch target architecture used ("" otherwise)
  bool intra_node = false;    // intra-node mapping was applied
  std::string refined_from;   // "" without refinement; else the start the result came from ("rt", "identity", ...)
  /** The steps after the refinement that moved host groups (MapOptions::analytic_iterations;
      with MapOptions::refine on at most kTabuSearchMostHosts hosts of equal slots, tabu
      search; anneal_moves) or single processes (anneal_process_moves) and whose
      placement was kept, in order: "analytic", "tabu", "anneal", "anneal-processes". A step that ran (it has its phase in seconds) but is missing
      here found nothing to keep: no fewer hop-bytes, or fewer at the cost of a busiest
      link that rose more (each relative to before). */
  std::vector<std::string> moved_groups;
  /** Wall time per phase ("partition", "tree", "map", "refine", "analytic", "tabu", "anneal", "anneal-processes",
      "intra", "total"),
      and "total_cpu": the process's CPU time for the whole mapping. */
  std::map<std::string, double> seconds;
};

/** identity, block, greedy, rt, rb, scotch. */
const std::vector<std::string> &algorithm_names();

/** Whether the seed (MapOptions::seed) chooses @p algorithm's hosts: rt and rb
    (METIS), scotch. Greedy, identity and block place the same for any seed. */
bool seeded_algorithm(const std::string &algorithm);

/** What the steps after the refinement did, for logs: "host groups placed
    analytically", "annealing of the host groups found nothing to keep", "processes
    annealed", ... joined by ", "; "" when none ran. */
std::string group_steps_text(const MapResult &result);

/** Maps the processes of @p problem. Throws Error(INVALID_ARG) for an unknown
    algorithm, more processes than slots, or rb without coordinates. */
MapResult map_processes(const Problem &problem, const MapOptions &options);

/** The baseline placements (slot of each process). */
std::vector<int> identity_placement(const Problem &problem);
std::vector<int> block_placement(const Problem &problem);

}  // namespace canopy::map

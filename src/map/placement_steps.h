// The steps the mapping algorithms are made of, on the padded graph (the
// processes plus one isolated vertex per free slot, so that every host holds
// exactly slots_per_host vertices and moving a process to a free slot is a swap).
// host_of[v] is the allocation index of the host vertex v is on.
#pragma once
#include <cstdint>
#include <vector>

#include "common/progress.h"
#include "map/comm_graph.h"
#include "map/machine.h"
#include "map/topology_tree.h"

namespace canopy::map {

/** The links between hosts @p a and @p b averaged over both directions (routes
    may differ by direction): the distance the steps that move whole host groups
    cost a pair of groups by. */
inline double mean_hops(const Machine &machine, int a, int b) { return 0.5 * (machine.hops(a, b) + machine.hops(b, a)); }

/** Hubs are the vertices with at least as many partners as there are hosts (a
    master, a root gathering from all). This keeps each hub's bytes to each host
    current as vertices move, so that a step can cost a hub in time in the hosts
    instead of its degree: otherwise every look at a hub's partners reads all its
    edges, and a step over a star graph is quadratic. Memory: one entry per host
    per hub, at most the hubs' edges. The sums are exact for whole-number bytes. */
class HubBytes {
 public:
  HubBytes(const CommGraph &graph, int hosts, const std::vector<int> &host_of)
      : graph_(graph), hosts_(static_cast<size_t>(hosts)), hub_of_(static_cast<size_t>(graph.num_vertices()), -1) {
    int hubs = 0;
    for (int v = 0; v < graph.num_vertices(); ++v)
      if (graph.degree(v) >= hosts) hub_of_[static_cast<size_t>(v)] = hubs++;
    bytes_.assign(static_cast<size_t>(hubs) * hosts_, 0);
    for (int v = 0; v < graph.num_vertices(); ++v)
      if (int hub = hub_of_[static_cast<size_t>(v)]; hub >= 0)
        for (int64_t i = graph.row_begin(v); i < graph.row_end(v); ++i)
          bytes_[entry(hub, host_of[static_cast<size_t>(graph.neighbor(i))])] += graph.weight(i);
  }
  bool empty() const { return bytes_.empty(); }
  int count() const { return static_cast<int>(bytes_.size() / hosts_); }
  /** v's row in the tables (0..hubs-1), -1 if v is no hub. */
  int hub(int v) const { return hub_of_[static_cast<size_t>(v)]; }
  /** Bytes of @p hub's edges to the vertices on @p host. */
  double bytes(int hub, int host) const { return bytes_[entry(hub, host)]; }
  /** Where (@p hub, @p host) sits in a table of count() x hosts entries, as this one's. */
  size_t entry(int hub, int host) const { return static_cast<size_t>(hub) * hosts_ + static_cast<size_t>(host); }
  /** Vertex @p v went from host @p from to host @p to: its hubs' bytes follow;
      @p each(hub, bytes) is called for each hub partner with the edge's bytes. */
  template <class Each>
  void moved(int v, int from, int to, Each &&each) {
    for (int64_t i = graph_.row_begin(v); i < graph_.row_end(v); ++i)
      if (int hub = hub_of_[static_cast<size_t>(graph_.neighbor(i))]; hub >= 0) {
        bytes_[entry(hub, from)] -= graph_.weight(i);
        bytes_[entry(hub, to)] += graph_.weight(i);
        each(hub, graph_.weight(i));
      }
  }
  void moved(int v, int from, int to) {
    if (!empty()) moved(v, from, to, [](int, double) {});
  }

 private:
  const CommGraph &graph_;
  size_t hosts_;
  std::vector<int> hub_of_;
  std::vector<double> bytes_;
};

/** Bytes times network links between the hosts of every edge's ends. */
double inter_node_hop_bytes(const CommGraph &graph, const Machine &machine, const std::vector<int> &host_of);

/** Bytes of the edges between each host's vertices and the other hosts': what
    the host's network link carries, both directions together. */
std::vector<double> off_node_bytes(const CommGraph &graph, const Machine &machine, const std::vector<int> &host_of);

/** Greedy placement: the process with the most bytes to already placed processes
    goes next, on the host with room that costs it least (its partners' hosts, or
    the free host nearest to its heaviest partner). */
std::vector<int> greedy_hosts(const CommGraph &graph, const Machine &machine);

/** Swaps between hosts (with free slots too) that lower inter-node hop-bytes,
    heaviest processes first, until a pass gains under 0.1% or after
    @p max_passes passes: each process takes the best swap with a process on
    the host of one of its partners. No swap takes a host's off_node_bytes
    above the busiest host's at the start. Returns the hop-bytes removed.
    With @p prune (the default), lower bounds rule out most swaps without
    costing them, a process is looked at again only once a swap has changed
    its host or its partners' hosts, and hubs (processes with a partner per
    host or more) keep their costs per host in tables: the same swaps as
    without, faster. */
double refine_hosts(const CommGraph &graph, const Machine &machine, std::vector<int> &host_of, int max_passes = 4,
                    bool prune = true);

/** Simulated annealing of where whole host groups go: the vertices each host
    holds move together, so every host keeps its off_node_bytes and only the hops
    between the groups change. moves_per_host x hosts moves, each swapping a group
    with the group on, or among the 16 hosts of as many slots nearest to, the host
    of one of its partner groups; the cost is the groups' bytes x hops (a pair's
    hops averaged over its two directions). The temperature starts at ten times the
    mean bytes between two communicating groups and falls geometrically to a
    thousandth of that; the best placement seen is kept, so the cost never rises.
    Finding the near hosts takes hosts^2 hop lookups. Deterministic for a @p seed;
    @p progress is told each tenth of the moves. Returns the cost removed. Where a
    tree walk leaves its groups in a deep local optimum (unstructured meshes on
    tori: 7-15% of the hop-bytes, docs/mapping-history.md) this finds what
    swaps of single processes cannot. */
double anneal_host_groups(const CommGraph &graph, const Machine &machine, std::vector<int> &host_of,
                          int64_t moves_per_host, uint64_t seed, const ProgressFn &progress = {});

/** Simulated annealing of single processes between hosts, which changes which
    processes share a host as well as where they sit. moves_per_process x (the
    vertices with edges) moves, each swapping a vertex with any vertex (a free
    slot's too) on the host of one of its partners; the cost is bytes x hops (a
    pair's hops averaged over its two directions). As in refine_hosts, no swap takes
    a host's off_node_bytes above the busiest host's at the start (unconstrained, the
    annealing buys hop-bytes with a busier host link). The temperature starts at three
    times the mean bytes of an edge and falls linearly to 0, so the last moves only
    descend; @p host_of is left where the annealing ends, which may cost more than
    the start (the caller keeps whichever is lower). Deterministic for a @p seed;
    @p progress is told each tenth of the moves. Returns the cost removed (negative
    when it rose). Where every group talks to many others (random graphs), or on
    few hosts, it finds placements below the tree walk's and below the best cut of
    each level METIS finds (docs/mapping-history.md); it costs about 0.1 us a move
    on few hosts and a degree-8 graph needs thousands of moves per process. */
double anneal_processes(const CommGraph &graph, const Machine &machine, std::vector<int> &host_of,
                        int64_t moves_per_process, uint64_t seed, const ProgressFn &progress = {});

/** Whether place_host_groups_analytically can move anything on @p machine: at
    least two hosts, with coordinates (tori and meshes) and equal slots. */
bool analytic_placement_applies(const Machine &machine);

/** Analytic placement of where whole host groups go, where
    analytic_placement_applies; elsewhere nothing. Each of @p iterations places the
    groups' graph quadratically on the coordinates (edges weighted by bytes over
    their length along each axis, as the bound-to-bound model of VLSI placement
    does, so the squares stand for the hop counts) pulled towards anchors at the
    last legal placement with a pull that grows by 30% each time, then takes a
    legal placement near those positions (one group a host). The first three
    iterations take it by geometric bisection (the hosts halved across their widest
    extent, the groups by their position along it, recursively): next to nothing.
    Where a bisection gives back the placement the iteration started from, the
    groups sit at a fixed point of the pull and the iterations stop, so where the
    walk's placement is already good the step costs about a millisecond per 512
    hosts (docs/mapping-history.md). The later iterations
    take the nearest legal placement (least squared displacement: an auction; above
    512 hosts the groups bid for cells of routers first, then for their cell's
    hosts); until one beats the start, each must close a quarter of the gap its
    predecessor left to the start's cost, or the iterations stop. The legal
    placement with the lowest inter_node_hop_bytes is kept. Deterministic. Returns
    the cost removed. Where the tree walk keeps its groups inside its hierarchy
    and pays with long edges across it (unstructured meshes on tori), this finds
    the placements the annealing finds in a fraction of its moves
    (docs/mapping-history.md). */
double place_host_groups_analytically(const CommGraph &graph, const Machine &machine, std::vector<int> &host_of,
                                      int iterations, const ProgressFn &progress = {});

/** The most hosts tabu_search_host_groups takes on: its iterations cost hosts^2 each. */
constexpr int kTabuSearchMostHosts = 64;

/** Whether tabu_search_host_groups can move anything on @p machine: 3 to
    kTabuSearchMostHosts hosts of equal slots. */
bool tabu_search_applies(const Machine &machine);

/** Robust tabu search (Taillard's, for the quadratic assignment problem) of where
    whole host groups go, where tabu_search_applies; elsewhere nothing. The groups'
    bytes to each other and the hosts' hops (averaged over both directions) make a
    quadratic assignment problem; each of 50 x hosts iterations swaps the two groups
    whose swap lowers the cost most (or raises it least) among the swaps that are
    not tabu: a group may not go back to a host it left for about as many iterations
    as there are hosts (a random number between 0.9 and 1.1 times that), unless the
    swap beats the best placement seen. The best placement seen is kept, so the cost
    never rises. Deterministic for a @p seed. Returns the cost removed. On few hosts
    it finds placements the tree walk and the analytic placement miss (the AMR
    pattern and the mesh on a 64-host torus, docs/mapping-history.md). */
double tabu_search_host_groups(const CommGraph &graph, const Machine &machine, std::vector<int> &host_of, uint64_t seed);

/** Slot of every vertex given its host (which holds as many vertices as it has
    slots): with @p on_node_tree and a node layout, recursive tree mapping of each
    host's vertices on the hwloc tree of its slots; otherwise local slots in
    vertex order. */
std::vector<int> place_in_nodes(const CommGraph &graph, const Machine &machine, const std::vector<int> &host_of,
                                bool on_node_tree, int seed);

}  // namespace canopy::map

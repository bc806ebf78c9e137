// Hop-bytes as a sum of cuts, for judging how far below a mapping any mapping
// could go. On a fat tree whose routes climb to the lowest common switch level
// (hop count set by that level), and on a torus with dimension-order routes,
// the hop count between two hosts is a weighted count of the host cuts that
// separate them:
//   fat tree  hops(a, b) = sum over levels l of w_l [a and b under different level-l subtrees]
//   torus     hops(a, b) = w_host [a != b] + sum over dimensions d and diametral cuts c of d
//                          of [c separates a and b]   (a ring of even length L has L/2 diametral
//                          cuts, pairs of opposite links; the ring distance counts those between)
// so a mapping's hop-bytes is sum_c w_c x (bytes between processes on different sides of c). No
// mapping can go below sum_c w_c x mincut_c, where mincut_c is the fewest bytes any partition of
// the processes into c's part sizes cuts: each cut is relaxed on its own. The exact minimum is
// not known, so the best cut found stands in (METIS, and the cuts of mappings measured): the
// relaxation then says how much every cut would have to beat the best found for a mapping to
// reach a given hop-bytes. A benchmark tool (bench_map), not a bound that is proven.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "map/comm_graph.h"
#include "map/machine.h"

namespace canopy::bench {

/** One host cut: the parts (part_of_host[h]) it splits the hosts into, and its weight in the hop count. */
struct HostCut {
  std::string name;  // "level 2", "dim 0 at 3", "hosts"
  double weight = 0;
  std::vector<int> part_of_host;
  int parts = 0;
};

/** The cuts whose weighted count is the hop matrix of @p machine, checked pair by pair; nullopt
    (with the reason in @p why) when neither the switch hierarchy nor the torus coordinates
    explain every hop count exactly. */
std::optional<std::vector<HostCut>> hop_cuts(const map::Machine &machine, std::string &why);

/** Bytes of @p graph (padded to the machine's slots) across each cut when vertex v is on host
    host_of[v]. sum_c weight_c x result[c] is the mapping's inter-node hop-bytes. */
std::vector<double> bytes_across(const map::CommGraph &graph, const std::vector<HostCut> &cuts,
                                 const std::vector<int> &host_of);

/** The fewest bytes METIS (seeds 1..@p seeds, repaired to exact sizes) cuts partitioning
    @p graph into each cut's part sizes (slots_per_host x hosts per part). */
std::vector<double> partition_cuts(const map::CommGraph &graph, const map::Machine &machine,
                                   const std::vector<HostCut> &cuts, int seeds);

}  // namespace canopy::bench

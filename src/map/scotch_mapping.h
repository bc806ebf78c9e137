// Scotch's static mapping (SCOTCH_graphMap, Scotch 7) as the peer Canopy's own
// algorithms are compared with: the process graph, edge weights = bytes, mapped
// onto a Scotch target architecture equivalent to the machine —
//   tleaf   switched fabrics whose hop counts follow the switch hierarchy: one
//           level per hierarchy level (fan-out = the largest one), the cores of a
//           node as the last level with a low link cost;
//   torus / mesh  torus sources (one host per router, all dimensions wrapping or none);
//   graph   anything else: a decomposition-defined target (SCOTCH_archBuild2) on the
//           complete graph of the hosts weighted by their hop counts;
// restricted to the allocated hosts (or slots) with SCOTCH_archSub when the
// allocation is not the whole target. Scotch balances only approximately, so
// overfull hosts are repaired (the move that adds the fewest hop-bytes first).
// No Canopy refinement is applied: the result is Scotch's.
#pragma once
#include <string>
#include <vector>

#include "map/comm_graph.h"
#include "map/machine.h"

namespace canopy::map {

struct ScotchMapping {
  std::vector<int> slot_of;  // slot of every vertex, one-to-one
  std::string target;        // the target used, e.g. "tleaf 4x16x8 (sub 40 of 512)"
};

/** Maps every vertex of @p padded (one per slot of @p machine) with Scotch.
    Deterministic for a given @p seed (one thread, fixed random seed). Throws
    Error(INTERNAL) with Scotch's failing call when Scotch reports an error. */
ScotchMapping scotch_map(const CommGraph &padded, const Machine &machine, int seed);

}  // namespace canopy::map

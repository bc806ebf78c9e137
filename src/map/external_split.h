// One split of dual recursive mapping (Scotch's dual recursive bipartitioning,
// Pellegrini): the vertices of a tree node are divided among its children, and
// the cost of a vertex in child c counts not only the bytes cut inside the node
// but also its bytes to vertices already placed elsewhere, times the distance
// from child c to where those vertices are. The split starts from METIS's cut
// (partition.h); this file orients it and refines it with those costs, keeping
// every part's size.
#pragma once
#include <cmath>
#include <vector>

#include "map/comm_graph.h"

namespace canopy::map {

struct SplitCosts {
  int parts = 0;                  // k: the children
  std::vector<double> distance;   // k x k, between the children's domains (0 on the diagonal)
  std::vector<double> external;   // n x k: bytes x distance to the vertex's outside partners if it went to child c
};

/** sum over edges inside @p graph of bytes x distance between their ends' parts,
    plus every vertex's external cost in its part. */
double split_cost(const CommGraph &graph, const SplitCosts &costs, const std::vector<int> &part);

/** Lowers split_cost(part) keeping every part's size: first the parts are
    permuted among children of equal size (orientation: which half faces which
    already placed neighbour), then rounds of pairwise vertex swaps between two
    parts, each swap lowering the cost, until a round removes less than 0.1%
    of the cost or after @p max_rounds rounds. Returns the cost reached; a cut
    whose oriented cost is above @p give_up_above is not refined further
    (INFINITY is returned). Deterministic. */
double refine_split(const CommGraph &graph, const SplitCosts &costs, std::vector<int> &part,
                    double give_up_above = INFINITY, int max_rounds = 8);

/** A bisection into exactly sizes[0] + sizes[1] vertices (part i for child i)
    that weighs the external costs from the start, where refine_split can only
    move a boundary that is already there (not turn a cut plane): METIS cuts
    @p graph plus two anchor vertices, one per child; a vertex is tied to the
    anchor of the child it is cheaper in by the difference of its external
    costs, and internal edges weigh bytes x the children's distance, so METIS's
    cut is the split's cost. Empty when METIS puts both anchors on one side. */
std::vector<int> anchored_bisection(const CommGraph &graph, const SplitCosts &costs, const std::vector<int> &sizes,
                                    int seed);

/** A bisection into exactly sizes[0] + sizes[1] vertices for small graphs,
    where a METIS call costs more than the whole split: child 0's part grows
    from the vertex that prefers it most, each step taking the free vertex with
    the most bytes x distance to the part plus the largest preference for
    child 0 (difference of its external costs); dense, O(n^2). */
std::vector<int> grown_bisection(const CommGraph &graph, const SplitCosts &costs, const std::vector<int> &sizes);

}  // namespace canopy::map

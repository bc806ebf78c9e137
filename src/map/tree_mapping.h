// Recursive tree mapping (the paper's Algorithm 1): split the graph into as many
// parts as the tree's root has children, each part as large as its child's
// number of leaves, minimising the bytes cut; recurse into each child with its
// part. Recursive bipartitioning (Algorithm 2) is the same walk on the binary
// tree that coordinate bisection builds. Given the places' distances, the walk
// is dual recursive (as Scotch's mapping): breadth first, each split also
// weighing every vertex's bytes to partners already placed in other subtrees
// by their distance to each child (external_split.h).
#pragma once
#include <cstdint>
#include <vector>

#include "common/progress.h"
#include "map/comm_graph.h"
#include "map/hop_table.h"
#include "map/topology_tree.h"

namespace canopy::map {

/** The leaf (place) of every vertex: place p takes @p capacity[p] vertices (an
    empty @p capacity: one each), so the graph must have their sum. With
    @p hops (between the places, e.g. Machine::hop_table()) every split is oriented
    and refined towards the partners placed outside it; without, splits only
    minimise their own cut. Deterministic for a seed. @p progress is told each
    level of the tree as the walk reaches it. */
std::vector<int> map_on_tree(const CommGraph &graph, const TopologyTree &tree, int seed, const std::vector<int> &capacity = {},
                             const HopTable *hops = nullptr, const ProgressFn &progress = {});

/** Orients the subtrees of a tree mapping towards each other: for every inner
    node, swaps the contents of two equally large children (leaf i of one with
    leaf i of the other) when that lowers sum(bytes x distance) between the
    places. The dual walk orients each split
    only towards what was placed before it; this pass also looks the other way.
    Returns the cost removed. */
double swap_subtrees(const CommGraph &graph, const TopologyTree &tree, const HopTable &distance,
                     std::vector<int> &leaf_of, int max_passes = 4);

}  // namespace canopy::map

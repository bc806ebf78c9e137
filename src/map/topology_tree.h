// Topology trees for recursive tree mapping: every leaf is one place (a host of
// the allocation, or a slot inside a node), every inner node a group of places
// that are close together. Built by neighbor joining from distances (fat trees,
// tori, scattered allocations, the hwloc tree inside a node), taken from the
// fabric's switch hierarchy, or by bisecting torus coordinates.
#pragma once
#include <string>
#include <vector>

#include "topo/views.h"

namespace canopy::map {

struct TreeNode {
  std::vector<int> children;  // tree node indexes; empty for a leaf
  std::vector<int> leaves;    // the places in this subtree (a leaf: its own place)
};

struct TopologyTree {
  std::string kind;  // "neighbor-joining", "fabric-hierarchy", "coordinate-bisection"
  std::vector<TreeNode> nodes;  // nodes[0] is the root
  int depth() const;
};

/** Neighbor joining (agglomerative, average linkage, nearest-neighbour chain:
    O(n^2) time and memory) over @p distance (n x n, symmetric); groups joined at
    the same distance are collapsed into one multi-way node, so the hosts under
    one leaf switch become one node with a child per host, while a torus gives a
    mostly binary tree. Ties (many on a torus) are broken in an order shuffled
    by @p seed; seed 0 keeps the input order. */
TopologyTree neighbor_joining_tree(std::vector<float> distance, int n, unsigned seed = 0);

/** The fabric's own switch hierarchy over @p hosts (topo::host_hierarchy): leaf
    switches, then the levels above; leaves are positions in @p hosts. */
TopologyTree fabric_hierarchy_tree(const topo::Topology &topo, const std::vector<int> &hosts);

/** Recursive bisection of points by coordinates: split along the dimension of
    largest extent (max - min + 1) at the median, down to single points. */
TopologyTree coordinate_bisection_tree(const std::vector<std::vector<int>> &coords);

}  // namespace canopy::map

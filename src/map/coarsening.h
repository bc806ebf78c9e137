// Coarsening for the tree walk: where the communication graph pairs its
// processes up by itself (each with its heaviest partner, and that partner's
// heaviest is it), level after level, the walk can run on the graph of pairs of
// pairs of pairs and refine on the way back (multilevel mapping). Every cluster of
// a level holds the same number of processes, so the walk, its exact part sizes
// and the refinement's swaps work on a coarse level unchanged. Graphs without
// such pairs (meshes cut by METIS, random graphs) are left as they are: there a
// heaviest partner is often on another host in good mappings, and contracting
// it cost up to 9% hop-bytes (docs/benchmarks.md).
#pragma once
#include <vector>

#include "map/comm_graph.h"

namespace canopy::map {

/** A perfect pairing of an even number of vertices: cluster[v] in 0..n/2-1, two
    vertices each. Vertices are visited in rank order (applications number
    neighbours close: a lexicographic grid is paired along one axis, its pairs
    along the next), each taking its heaviest unpaired neighbour; the vertices
    left over pair up in rank order. natural_share: the share of the pairs
    joined by an edge that is a heaviest edge of both ends, or of two isolated
    vertices (free slots). */
struct Pairing {
  std::vector<int> cluster;
  double natural_share = 0;
};
Pairing heavy_edge_pairing(const CommGraph &graph);

/** A pairing counts as natural when at least this share of its pairs is. Measured
    on the benchmark: 1.0 on stencils, 0.92-1.0 on AMR, 0.29-0.44 on partitioned
    meshes and random graphs. */
constexpr double kNaturalShare = 0.9;

/** The levels of a multilevel walk: graphs[i] has half the vertices of the level
    below it (the input for i = 0), and cluster[i][v] is the vertex of graphs[i]
    that vertex v of the level below went into. */
struct Coarsening {
  std::vector<CommGraph> graphs;
  std::vector<std::vector<int>> cluster;
};

/** Contracts @p graph pairing by pairing @p max_levels times when every one of
    these pairings is natural; else nothing. */
Coarsening coarsen_natural_pairs(const CommGraph &graph, int max_levels);

}  // namespace canopy::map

// Graph partitioning with exact part sizes: METIS 5 (multilevel k-way, or
// recursive bisection for two parts), then the repair the paper applies to
// METIS's imbalance: move, from an overfull part to one with room, the vertex
// whose move increases the edge cut least, until every part has its size.
#pragma once
#include <vector>

#include "map/comm_graph.h"

namespace canopy::map {

/** Part (0..sizes.size()-1) of every vertex of @p graph, part i holding exactly
    sizes[i] vertices; the sizes must add up to the number of vertices. Minimises
    the bytes cut (heuristically). Deterministic for a given @p seed. */
std::vector<int> partition_exact(const CommGraph &graph, const std::vector<int> &sizes, int seed);

/** Moves vertices until part i holds sizes[i] vertices, each move the one that
    raises the cut least (or lowers it most). */
void repair_balance(const CommGraph &graph, std::vector<int> &part, const std::vector<int> &sizes);

/** Bytes on the edges whose ends are in different parts. */
double edge_cut(const CommGraph &graph, const std::vector<int> &part);

}  // namespace canopy::map

// Graph partitioning with exact part sizes: METIS 5 (multilevel k-way, or
// recursive bisection for two parts), then the repair the paper applies to
// METIS's imbalance: move, from an overfull part to one with room, the vertex
// whose move increases the edge cut least, until every part has its size.
#pragma once
#include <cstdint>
#include <vector>

#include "map/comm_graph.h"
#include "map/hop_table.h"

namespace canopy::map {

/** Part (0..sizes.size()-1) of every vertex of @p graph, part i holding exactly
    sizes[i] vertices; the sizes must add up to the number of vertices. Minimises
    the bytes cut (heuristically). Deterministic for a given @p seed. With @p side
    (0 or 1 for each part), first a bisection into the two sides, then each side
    into its parts; without (or when one side holds no part with vertices), METIS
    k-way for many vertices per part, else bisections of the part list in halves. */
std::vector<int> partition_exact(const CommGraph &graph, const std::vector<int> &sizes, int seed,
                                 const std::vector<int> &side = {});

/** Vertices in order, parts filled one after another (sizes[0] vertices in part 0, ...). */
std::vector<int> sequential_parts(const std::vector<int> &sizes);

/** For three or four parts, the sides (0 or 1 for each part, part 0 on side 1)
    for partition_exact that pair other sizes than the halves of the part list
    and than each other, each once. Parts of one size are interchangeable to a
    caller that orients the parts afterwards, so a grouping pairing the same
    sizes would only be another METIS draw: sizes 8, 24, 8, 24 give three
    groupings, four equal sizes one (a part against three), three equal none.
    Empty for other part counts. */
std::vector<std::vector<int>> other_side_groupings(const std::vector<int> &sizes);

/** Moves vertices until part i holds sizes[i] vertices, each move the one that
    raises the cut least (or lowers it most). With @p distance between the parts
    (the hosts' hops when parts are hosts) a
    move costs the change in bytes x distance instead of the cut, and a vertex
    may also go to the part with room nearest its own. */
void repair_balance(const CommGraph &graph, std::vector<int> &part, const std::vector<int> &sizes,
                    const HopTable *distance = nullptr);

/** METIS 5 (recursive bisection for two parts, else k-way) on a graph in CSR form
    (@p offsets, @p neighbors, @p bytes per stored edge, @p total_bytes their sum),
    part i aimed at sizes[i] vertices (METIS may miss by about 1%: no repair). The
    bytes go to METIS as integer_weights(bytes, total_bytes, 1e9). Deterministic
    for a given @p seed; Error when METIS fails. */
std::vector<int> metis_parts(const std::vector<int64_t> &offsets, const std::vector<int> &neighbors,
                             const std::vector<double> &bytes, double total_bytes, const std::vector<int> &sizes,
                             int seed);

/** @p bytes as positive integers for libraries that count in 32 bits (METIS,
    Scotch): scaled so that they add up (@p total_bytes before scaling) to at most
    @p total_limit, small volumes scaled up so that their ratios survive rounding;
    every communicating pair keeps a weight of at least 1. */
std::vector<int> integer_weights(const std::vector<double> &bytes, double total_bytes, double total_limit);
/** integer_weights of the graph's edge weights (in row order). */
std::vector<int> integer_edge_weights(const CommGraph &graph, double total_limit);

/** Bytes on the edges whose ends are in different parts. */
double edge_cut(const CommGraph &graph, const std::vector<int> &part);

}  // namespace canopy::map

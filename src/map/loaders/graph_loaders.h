// Loaders of communication graphs, one file per format. Each parses text already
// in memory (tests and fuzzers feed strings), names @p file in errors as
// "file:line: what is wrong" (Error(PARSE)), and never crashes on any input.
// Formats and examples: docs/mapping.md.
#pragma once
#include <string>
#include <string_view>

#include "common/progress.h"
#include "map/comm_graph.h"

namespace canopy::map {

/** METIS graph format ("n m [fmt [ncon]]" header, one line per vertex, 1-based
    neighbours); edge weights (fmt 1, 11, 101, 111, ...) are bytes, 1 without them. */
CommGraph load_metis_graph(std::string_view text, const std::string &file);

/** "SRC DST BYTES" lines, 0-based processes, '#' comments; volumes of both
    directions and repeated lines add up. An optional first statement
    "processes N" gives the number of processes (default: the largest id + 1). */
CommGraph load_edge_list(std::string_view text, const std::string &file);

/** @p graph as an edge list load_edge_list reads back into the same graph:
    "processes N", then every edge both ways with half its bytes each way (the
    directed volumes bench/patterns/spmv_pattern sends). */
std::string edge_list_text(const CommGraph &graph);

/** The structure of a square MatrixMarket coordinate matrix as a graph over its
    rows: rows i and j are joined when a(i,j) or a(j,i) is stored (values ignored,
    unit weights). */
CommGraph load_matrix_market(std::string_view text, const std::string &file);

/** The process graph of a sparse matrix-vector product after the rows are split
    into parts: part p sends 8 bytes (one double) to part q for every row of p
    that a row of q references. @p part gives each row's part. */
CommGraph halo_exchange_graph(const CommGraph &matrix, const std::vector<int> &part, int num_parts);

struct GraphLoadOptions {
  int parts = 0;  // MatrixMarket input: the number of processes (required there)
  int seed = 1;   // METIS seed for the row partition
  ProgressFn progress{};  // told when the rows are being split (that can take long)
};

/** Loads "FORMAT:PATH" (metis, edges, mtx) or PATH, whose format is taken from
    its extension (.graph/.metis, .edges/.el, .mtx) or a MatrixMarket banner.
    MatrixMarket input is partitioned into options.parts blocks with METIS;
    options.parts must be 0 for the other formats. */
CommGraph load_comm_graph(const std::string &spec, const GraphLoadOptions &options = {});

}  // namespace canopy::map

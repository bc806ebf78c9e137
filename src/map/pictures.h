// Pictures of a mapping: the communication matrix before and after it (a heat
// map drawn with gnuplot, two panels side by side), and the fabric drawing with
// each link coloured and sized by the bytes it carries under the mapping.
#pragma once
#include <string>
#include <vector>

#include "map/mapping.h"
#include "map/metrics.h"

namespace canopy::map {

/** The process x process communication matrix, processes ordered by their slots
    (so each host's processes are consecutive and its traffic inside the host
    falls in a diagonal block), summed into square cells of cell_size x cell_size
    processes. Cell (r, c) holds the bytes the processes of row r send to those of
    column c, each pair's volume split evenly between its two directions (as for
    link loads): the cells add up to the graph's total bytes. */
struct CommMatrix {
  int processes = 0;
  int cell_size = 1;             // processes per cell along each axis
  int cells = 0;                 // cells per axis: processes / cell_size rounded up
  std::vector<double> bytes;     // cells x cells, row-major
  std::vector<int> host_starts;  // position of each used host's first process, ascending (0 first)

  double at(int row, int column) const { return bytes[static_cast<size_t>(row) * static_cast<size_t>(cells) + static_cast<size_t>(column)]; }
  double total() const;
};

/** The matrix of @p problem's graph under @p slot_of_process, at most
    @p max_cells cells per axis (the cell size is the smallest that fits). */
CommMatrix comm_matrix(const Problem &problem, const std::vector<int> &slot_of_process, int max_cells = 512);

enum class PictureFormat { Svg, Png, Dot };
/** The format named by @p path's extension (.svg, .png, .dot, any case) if it is
    one of @p allowed; else Error(INVALID_ARG) naming @p option and the choices. */
PictureFormat picture_format(const std::string &path, const std::vector<PictureFormat> &allowed, const std::string &option);

/** The heat map (.svg or .png, with gnuplot, atomically): "before" is the matrix
    under the identity placement, "after" under @p result, both on one colour scale
    (logarithmic when the cells span more than two decades), host boundaries drawn
    where hosts are at least 3 cells wide, titles naming the algorithm and hop-bytes. */
void write_heatmap(const std::string &path, const Problem &problem, const MapResult &result, const Metrics &mapped,
                   const Metrics &identity, int max_cells = 512);

/** The fabric drawing (.dot, or .svg rendered with Graphviz, atomically) with each
    link coloured and sized by the bytes of its busier direction under @p result
    (Metrics::link_loads), the allocation's hosts highlighted, and a title with the
    busiest link's load next to the identity placement's. */
void write_load_drawing(const std::string &path, const Problem &problem, const MapResult &result, const Metrics &mapped,
                        const Metrics &identity);

}  // namespace canopy::map

// Naming a communication graph: "FORMAT:PATH" or a path whose format its
// extension (or a MatrixMarket banner) tells.
#include <string>

#include "common/error.h"
#include "common/file_io.h"
#include "common/text.h"
#include "map/loaders/graph_loaders.h"
#include "map/partition.h"

namespace canopy::map {
namespace {

bool ends_with(const std::string &s, const char *suffix) {
  std::string tail(suffix);
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

std::string detect_format(const std::string &path, std::string_view head) {
  if (starts_with(head, "%%MatrixMarket") || ends_with(path, ".mtx")) return "mtx";
  if (ends_with(path, ".graph") || ends_with(path, ".metis")) return "metis";
  if (ends_with(path, ".edges") || ends_with(path, ".el")) return "edges";
  throw Error(CANOPY_ERR_INVALID_ARG, "cannot tell the graph format of '" + path +
                                          "': name it metis:PATH, edges:PATH or mtx:PATH (or use the extension "
                                          ".graph, .edges or .mtx)");
}

CommGraph partitioned_matrix(const CommGraph &rows, const std::string &path, const GraphLoadOptions &options) {
  if (options.parts < 1)
    throw Error(CANOPY_ERR_INVALID_ARG, path + ": a MatrixMarket matrix needs --parts P (the number of processes)");
  if (options.parts > rows.num_vertices())
    throw Error(CANOPY_ERR_INVALID_ARG, path + ": --parts " + std::to_string(options.parts) + " is more than the " +
                                            std::to_string(rows.num_vertices()) + " rows");
  // Near-equal row blocks, as an application would split its matrix.
  std::vector<int> sizes(static_cast<size_t>(options.parts), rows.num_vertices() / options.parts);
  for (int p = 0; p < rows.num_vertices() % options.parts; ++p) ++sizes[static_cast<size_t>(p)];
  report(options.progress, "splitting the " + std::to_string(rows.num_vertices()) + " rows into " +
                               std::to_string(options.parts) + " processes (METIS)");
  return halo_exchange_graph(rows, partition_exact(rows, sizes, options.seed), options.parts);
}

}  // namespace

CommGraph load_comm_graph(const std::string &spec, const GraphLoadOptions &options) {
  std::string format, path = spec;
  for (const char *prefix : {"metis", "edges", "mtx"}) {
    std::string p = std::string(prefix) + ":";
    if (starts_with(spec, p)) format = prefix, path = spec.substr(p.size());
  }
  std::string text = read_file(path);
  if (format.empty()) format = detect_format(path, std::string_view(text).substr(0, 64));
  if (format != "mtx" && options.parts != 0)
    throw Error(CANOPY_ERR_INVALID_ARG, path + ": --parts splits a MatrixMarket matrix's rows; a " + format +
                                            " graph already has one vertex per process");
  if (format == "metis") return load_metis_graph(text, path);
  if (format == "edges") return load_edge_list(text, path);
  return partitioned_matrix(load_matrix_market(text, path), path, options);
}

}  // namespace canopy::map

// libFuzzer target: the communication-graph loaders (METIS graph, edge list,
// MatrixMarket; the first byte picks one) on arbitrary bytes, checking that a
// loaded graph is a valid symmetric CSR graph without self-loops or zero weights.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "loader_fuzz_checks.h"
#include "map/loaders/graph_loaders.h"

namespace {

double weight_of(const canopy::map::CommGraph &g, int u, int v) {
  for (int64_t i = g.row_begin(u); i < g.row_end(u); ++i)
    if (g.neighbor(i) == v) return g.weight(i);
  return -1;
}

void expect_valid_graph(const canopy::map::CommGraph &g) {
  if (g.num_edges() > 4096) return;  // the symmetric check below is quadratic in the degree
  for (int v = 0; v < g.num_vertices(); ++v)
    for (int64_t i = g.row_begin(v); i < g.row_end(v); ++i) {
      int u = g.neighbor(i);
      if (u < 0 || u >= g.num_vertices()) canopy::fuzz::finding("neighbour out of range");
      if (u == v) canopy::fuzz::finding("self-loop kept");
      if (!(g.weight(i) > 0)) canopy::fuzz::finding("edge without bytes kept");
      if (weight_of(g, u, v) != g.weight(i)) canopy::fuzz::finding("edge not symmetric");
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0) return 0;
  std::string_view text(reinterpret_cast<const char *>(data) + 1, size - 1);
  int format = data[0] % 3;
  canopy_status_t status = canopy::guard([&] {
    canopy::map::CommGraph g = format == 0   ? canopy::map::load_metis_graph(text, "fuzz.graph")
                               : format == 1 ? canopy::map::load_edge_list(text, "fuzz.graph")
                                             : canopy::map::load_matrix_market(text, "fuzz.graph");
    expect_valid_graph(g);
    if (format == 2 && g.num_vertices() <= 4096) {
      std::vector<int> halves(static_cast<size_t>(g.num_vertices()));
      for (size_t v = 0; v < halves.size(); ++v) halves[v] = v * 2 / halves.size() ? 1 : 0;
      expect_valid_graph(canopy::map::halo_exchange_graph(g, halves, 2));
    }
  });
  canopy::fuzz::expect_success_or_parse_error(status, "fuzz.graph:");
  return 0;
}

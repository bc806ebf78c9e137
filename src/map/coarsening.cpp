#include "map/coarsening.h"

#include <algorithm>

#include "common/error.h"

namespace canopy::map {

Pairing heavy_edge_pairing(const CommGraph &g) {
  size_t n = static_cast<size_t>(g.num_vertices());
  if (n % 2 != 0) throw Error(CANOPY_ERR_INVALID_ARG, "pairing: " + std::to_string(n) + " vertices (an odd number)");
  Pairing p;
  p.cluster.assign(n, -1);
  std::vector<double> heaviest(n, 0);
  for (size_t v = 0; v < n; ++v)
    for (int64_t i = g.row_begin(static_cast<int>(v)); i < g.row_end(static_cast<int>(v)); ++i) heaviest[v] = std::max(heaviest[v], g.weight(i));
  int clusters = 0, natural = 0;
  for (size_t v = 0; v < n; ++v) {
    if (p.cluster[v] >= 0) continue;
    int partner = -1;
    double bytes = 0;
    for (int64_t i = g.row_begin(static_cast<int>(v)); i < g.row_end(static_cast<int>(v)); ++i)
      if (p.cluster[static_cast<size_t>(g.neighbor(i))] < 0 && g.weight(i) > bytes) bytes = g.weight(i), partner = g.neighbor(i);
    if (partner < 0) continue;
    p.cluster[v] = p.cluster[static_cast<size_t>(partner)] = clusters++;
    natural += bytes >= heaviest[v] && bytes >= heaviest[static_cast<size_t>(partner)];
  }
  size_t waiting = n;  // a leftover vertex without its pair yet
  for (size_t v = 0; v < n; ++v) {
    if (p.cluster[v] >= 0) continue;
    if (waiting == n) {
      waiting = v;
      continue;
    }
    natural += heaviest[v] == 0 && heaviest[waiting] == 0;
    p.cluster[v] = p.cluster[waiting] = clusters++;
    waiting = n;
  }
  p.natural_share = clusters > 0 ? static_cast<double>(natural) / clusters : 1.0;
  return p;
}

Coarsening coarsen_natural_pairs(const CommGraph &graph, int max_levels) {
  Coarsening c;
  c.graphs.reserve(static_cast<size_t>(std::max(max_levels, 0)));
  for (int level = 0; level < max_levels; ++level) {
    const CommGraph &below = c.graphs.empty() ? graph : c.graphs.back();
    if (below.num_vertices() < 2 || below.num_vertices() % 2 != 0) break;
    Pairing p = heavy_edge_pairing(below);
    if (p.natural_share < kNaturalShare) break;
    c.graphs.push_back(below.quotient(p.cluster, below.num_vertices() / 2));
    c.cluster.push_back(std::move(p.cluster));
  }
  // Pairs that do not pair up again naturally were arbitrary: on a stencil
  // numbered at random every first-level pair is natural (all faces weigh the
  // same), but the pairs point along random axes, the next level is not
  // natural, and the walk on them lost 15-42%.
  if (static_cast<int>(c.graphs.size()) < max_levels) return {};
  return c;
}

}  // namespace canopy::map

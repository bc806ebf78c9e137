#include "map/partition.h"

#include <metis.h>

#include <algorithm>
#include <numeric>
#include <queue>
#include <string>

#include "common/error.h"

namespace canopy::map {
namespace {

// METIS works in 32-bit integers (idx_t, Debian's build) and sums edge weights
// into cuts, so bytes are scaled to keep the total well inside that range;
// every communicating pair keeps a weight of at least 1.
std::vector<idx_t> metis_weights(const CommGraph &g) {
  double total = std::max(1.0, g.total_bytes() * 2);
  double scale = std::min(1.0, 1e9 / total);
  double smallest = 0;
  for (double w : g.weights()) smallest = smallest == 0 ? w : std::min(smallest, w);
  // Small volumes (a few bytes) are scaled up so that their ratios survive rounding.
  if (scale == 1.0 && smallest > 0 && smallest < 100) scale = std::min(100 / smallest, 1e9 / total);
  std::vector<idx_t> out(g.weights().size());
  for (size_t i = 0; i < out.size(); ++i) out[i] = std::max<idx_t>(1, static_cast<idx_t>(g.weights()[i] * scale + 0.5));
  return out;
}

std::vector<int> metis_partition(const CommGraph &g, const std::vector<int> &sizes, int seed) {
  idx_t n = g.num_vertices(), ncon = 1, nparts = static_cast<idx_t>(sizes.size()), cut = 0;
  std::vector<idx_t> xadj(g.offsets().begin(), g.offsets().end());
  std::vector<idx_t> adjncy(g.neighbors().begin(), g.neighbors().end());
  std::vector<idx_t> adjwgt = metis_weights(g);
  std::vector<real_t> tpwgts(sizes.size());
  for (size_t i = 0; i < sizes.size(); ++i) tpwgts[i] = static_cast<real_t>(sizes[i]) / static_cast<real_t>(n);
  idx_t options[METIS_NOPTIONS];
  METIS_SetDefaultOptions(options);
  options[METIS_OPTION_SEED] = seed;
  options[METIS_OPTION_NUMBERING] = 0;
  options[METIS_OPTION_UFACTOR] = 10;  // 1% imbalance; the repair fixes the rest
  std::vector<idx_t> part(static_cast<size_t>(n));
  auto partition_fn = nparts == 2 ? METIS_PartGraphRecursive : METIS_PartGraphKway;
  int status = partition_fn(&n, &ncon, xadj.data(), adjncy.data(), nullptr, nullptr, adjwgt.data(), &nparts,
                            tpwgts.data(), nullptr, options, &cut, part.data());
  if (status != METIS_OK)
    throw Error(status == METIS_ERROR_MEMORY ? CANOPY_ERR_NO_MEMORY : CANOPY_ERR_INTERNAL,
                "METIS failed to partition " + std::to_string(n) + " vertices into " + std::to_string(nparts) +
                    " parts (status " + std::to_string(status) + ")");
  return std::vector<int>(part.begin(), part.end());
}

// Vertices in order, parts filled one after another: for graphs METIS has nothing to cut in.
std::vector<int> sequential_parts(const std::vector<int> &sizes) {
  std::vector<int> part;
  for (size_t p = 0; p < sizes.size(); ++p) part.insert(part.end(), static_cast<size_t>(sizes[p]), static_cast<int>(p));
  return part;
}

}  // namespace

double edge_cut(const CommGraph &g, const std::vector<int> &part) {
  double cut = 0;
  for (int v = 0; v < g.num_vertices(); ++v)
    for (int64_t i = g.row_begin(v); i < g.row_end(v); ++i)
      if (part[static_cast<size_t>(v)] != part[static_cast<size_t>(g.neighbor(i))]) cut += g.weight(i);
  return cut / 2;
}

void repair_balance(const CommGraph &g, std::vector<int> &part, const std::vector<int> &sizes) {
  size_t k = sizes.size();
  std::vector<int> count(k, 0);
  std::vector<std::vector<int>> members(k);  // moves only fill parts with room: these lists stay valid
  for (int v = 0; v < g.num_vertices(); ++v) {
    ++count[static_cast<size_t>(part[static_cast<size_t>(v)])];
    members[static_cast<size_t>(part[static_cast<size_t>(v)])].push_back(v);
  }
  std::vector<double> link(k, 0);  // bytes from the vertex examined to each part
  // The best move of v now: (cut decrease, target part); target -1 if no part has room.
  auto best_move = [&](int v, size_t any_room) {
    size_t from = static_cast<size_t>(part[static_cast<size_t>(v)]);
    for (int64_t i = g.row_begin(v); i < g.row_end(v); ++i) link[static_cast<size_t>(part[g.neighbor(i)])] += g.weight(i);
    std::pair<double, int> best{-1e300, -1};
    auto consider = [&](size_t to) {
      if (to != from && count[to] < sizes[to] && link[to] - link[from] > best.first)
        best = {link[to] - link[from], static_cast<int>(to)};
    };
    consider(any_room);
    for (int64_t i = g.row_begin(v); i < g.row_end(v); ++i) consider(static_cast<size_t>(part[g.neighbor(i)]));
    for (int64_t i = g.row_begin(v); i < g.row_end(v); ++i) link[static_cast<size_t>(part[g.neighbor(i)])] = 0;
    link[from] = 0;
    return best;
  };
  size_t any_room = 0;  // some part with room while any part is overfull (sizes add up)
  auto advance_room = [&] {
    while (any_room < k && count[any_room] >= sizes[any_room]) ++any_room;
  };
  for (size_t from = 0; from < k; ++from) {
    if (count[from] <= sizes[from]) continue;
    advance_room();
    // Lazy priority queue: an entry whose gain has dropped since it was queued goes back in.
    std::priority_queue<std::pair<double, int>> queue;
    for (int v : members[from]) queue.push({best_move(v, any_room).first, v});
    while (count[from] > sizes[from]) {
      auto [queued_gain, v] = queue.top();
      queue.pop();
      advance_room();
      auto [gain, to] = best_move(v, any_room);
      if (gain < queued_gain) {
        queue.push({gain, v});
        continue;
      }
      part[static_cast<size_t>(v)] = to;
      --count[from];
      ++count[static_cast<size_t>(to)];
    }
  }
}

std::vector<int> partition_exact(const CommGraph &g, const std::vector<int> &sizes, int seed) {
  int64_t total = std::accumulate(sizes.begin(), sizes.end(), int64_t{0});
  if (total != g.num_vertices() || std::any_of(sizes.begin(), sizes.end(), [](int s) { return s < 0; }))
    throw Error(CANOPY_ERR_INVALID_ARG, "part sizes add up to " + std::to_string(total) + ", the graph has " +
                                            std::to_string(g.num_vertices()) + " vertices");
  std::vector<int> nonempty;  // METIS wants positive target weights: partition among non-empty parts only
  for (size_t p = 0; p < sizes.size(); ++p)
    if (sizes[p] > 0) nonempty.push_back(static_cast<int>(p));
  if (nonempty.size() <= 1 || g.num_edges() == 0) return sequential_parts(sizes);
  std::vector<int> compact_sizes;
  for (int p : nonempty) compact_sizes.push_back(sizes[static_cast<size_t>(p)]);
  std::vector<int> part = metis_partition(g, compact_sizes, seed);
  repair_balance(g, part, compact_sizes);
  for (int &p : part) p = nonempty[static_cast<size_t>(p)];
  return part;
}

}  // namespace canopy::map

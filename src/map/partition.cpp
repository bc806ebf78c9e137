#include "map/partition.h"

#include <metis.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <queue>
#include <set>
#include <string>

#include "common/error.h"

namespace canopy::map {
std::vector<int> sequential_parts(const std::vector<int> &sizes) {
  std::vector<int> part;
  for (size_t p = 0; p < sizes.size(); ++p) part.insert(part.end(), static_cast<size_t>(sizes[p]), static_cast<int>(p));
  return part;
}

namespace {

// Graphs this small are split here: METIS's fixed cost per call (about 0.1 ms)
// would dominate the thousands of small splits of tree and intra-node mapping.
constexpr int kSmallGraph = 48;
// METIS k-way beats recursive bisection only with many vertices per part.
constexpr int kKwayVerticesPerPart = 1000;
constexpr int kSmallBisectionTries = 4;

// A bisection into exact sizes for a graph of at most kSmallGraph vertices, dense:
// part 0 grows from a seed vertex by taking the free vertex most attached to it,
// then Kernighan-Lin swaps while one lowers the cut. Several seeds; the best wins.
class SmallBisection {
 public:
  SmallBisection(const CommGraph &g, int size0) : n_(static_cast<size_t>(g.num_vertices())), size0_(size0), w_(n_ * n_, 0) {
    for (size_t v = 0; v < n_; ++v)
      for (int64_t i = g.row_begin(static_cast<int>(v)); i < g.row_end(static_cast<int>(v)); ++i)
        w_[v * n_ + static_cast<size_t>(g.neighbor(i))] = g.weight(i);
  }

  std::vector<int> best(int tries) {
    std::vector<int> best_part;
    double best_cut = 0;
    for (int t = 0; t < tries && static_cast<size_t>(t) < n_; ++t) {
      std::vector<int> part = grow(static_cast<size_t>(t) * n_ / static_cast<size_t>(tries));
      double cut = swap_down(part);
      if (best_part.empty() || cut < best_cut) best_part = std::move(part), best_cut = cut;
    }
    return best_part;
  }

 private:
  std::vector<int> grow(size_t seed) {
    std::vector<int> part(n_, 1);
    std::vector<double> attach(n_, 0);  // bytes to part 0
    for (int filled = 0; filled < size0_; ++filled) {
      size_t next = filled == 0 ? seed : n_;
      for (size_t v = 0; v < n_ && filled > 0; ++v)
        if (part[v] == 1 && (next == n_ || attach[v] > attach[next])) next = v;
      part[next] = 0;
      // w_ is symmetric (a CommGraph stores each edge at both ends): row `next` is column `next`, contiguous.
      const double *row = &w_[next * n_];
      for (size_t u = 0; u < n_; ++u) attach[u] += row[u];
    }
    return part;
  }

  // Kernighan-Lin with exact sizes: the best swap while it lowers the cut; returns the cut.
  double swap_down(std::vector<int> &part) {
    std::vector<double> gain_out(n_, 0);  // bytes to the other part minus bytes to its own
    double cut = 0;
    for (size_t v = 0; v < n_; ++v)
      for (size_t u = 0; u < n_; ++u) {
        gain_out[v] += part[u] != part[v] ? w_[v * n_ + u] : -w_[v * n_ + u];
        if (u > v && part[u] != part[v]) cut += w_[v * n_ + u];
      }
    for (size_t swaps = 0; swaps < 2 * n_; ++swaps) {
      // A swap's gain is at most gain_out[u] + the largest gain_out in part 1 (weights are >= 0, and
      // rounding is monotone): a u whose bound does not beat the best is skipped. Same swaps, same order.
      double best = 1e-9, top1 = -INFINITY;
      for (size_t v = 0; v < n_; ++v)
        if (part[v] == 1) top1 = std::max(top1, gain_out[v]);
      size_t bu = n_, bv = n_;
      for (size_t u = 0; u < n_; ++u) {
        if (part[u] != 0 || !(gain_out[u] + top1 > best)) continue;
        const double *row = &w_[u * n_];
        for (size_t v = u + 1; v < n_; ++v)
          if (part[v] == 1 && gain_out[u] + gain_out[v] - 2 * row[v] > best)
            best = gain_out[u] + gain_out[v] - 2 * row[v], bu = u, bv = v;
      }
      if (bu == n_) break;
      cut -= best;
      part[bu] = 1;
      part[bv] = 0;
      for (size_t x = 0; x < n_; ++x) {
        // Seen from any other x, bu and bv changed sides; the two movers are recomputed.
        double to_u = w_[x * n_ + bu], to_v = w_[x * n_ + bv];
        gain_out[x] += (part[x] == 1 ? -2 : 2) * to_u + (part[x] == 0 ? -2 : 2) * to_v;
      }
      for (size_t m : {bu, bv}) {
        gain_out[m] = 0;
        for (size_t u = 0; u < n_; ++u) gain_out[m] += part[u] != part[m] ? w_[m * n_ + u] : -w_[m * n_ + u];
      }
    }
    return cut;
  }

  size_t n_;
  int size0_;
  std::vector<double> w_;
};

}  // namespace

std::vector<int> integer_weights(const std::vector<double> &bytes, double total_bytes, double total_limit) {
  double total = std::max(1.0, total_bytes);
  double scale = std::min(1.0, total_limit / total);
  double smallest = 0;
  for (double w : bytes) smallest = smallest == 0 ? w : std::min(smallest, w);
  // Small volumes (a few bytes) are scaled up so that their ratios survive rounding.
  if (scale == 1.0 && smallest > 0 && smallest < 100) scale = std::min(100 / smallest, total_limit / total);
  std::vector<int> out(bytes.size());
  for (size_t i = 0; i < out.size(); ++i) out[i] = std::max(1, static_cast<int>(bytes[i] * scale + 0.5));
  return out;
}

std::vector<int> integer_edge_weights(const CommGraph &g, double total_limit) {
  return integer_weights(g.weights(), g.total_bytes() * 2, total_limit);  // each edge is stored at both ends
}

namespace {

std::vector<int> metis_call(const std::vector<int64_t> &offsets, const std::vector<int> &neighbors,
                            const std::vector<double> &bytes, double total_bytes, const std::vector<int> &sizes,
                            int seed) {
  std::vector<idx_t> xadj(offsets.begin(), offsets.end()), adjncy(neighbors.begin(), neighbors.end());
  idx_t n = static_cast<idx_t>(xadj.size()) - 1, ncon = 1, nparts = static_cast<idx_t>(sizes.size()), cut = 0;
  // METIS sums edge weights into cuts in 32 bits.
  std::vector<int> weights = integer_weights(bytes, total_bytes, 1e9);
  std::vector<idx_t> adjwgt(weights.begin(), weights.end());
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

}  // namespace

// METIS grows its first bisection breadth first, restarting in every component it
// has not reached: on a graph of mostly isolated vertices (the free slots of an
// allocation far larger than the job) that is quadratic, 600,000 vertices of which
// 4 communicate took minutes. Isolated vertices cut nothing wherever they go, so
// METIS sees the m others and, where a part is larger than m, only m of its slots:
// part i aims at min(sizes[i], m), which leaves every way of spreading the m
// vertices open. The isolated vertices then fill what room each part has left.
std::vector<int> metis_parts(const std::vector<int64_t> &offsets, const std::vector<int> &neighbors,
                             const std::vector<double> &bytes, double total_bytes, const std::vector<int> &sizes,
                             int seed) {
  int n = static_cast<int>(offsets.size()) - 1;
  std::vector<int> index(static_cast<size_t>(n), -1);  // vertex -> index among the connected ones
  int m = 0;
  for (int v = 0; v < n; ++v)
    if (offsets[static_cast<size_t>(v) + 1] > offsets[static_cast<size_t>(v)]) index[static_cast<size_t>(v)] = m++;
  std::vector<int> reduced_sizes;
  int64_t reduced = 0;
  for (int s : sizes) reduced += reduced_sizes.emplace_back(std::min(s, m));
  if (m == 0 || reduced >= n) return metis_call(offsets, neighbors, bytes, total_bytes, sizes, seed);
  std::vector<int64_t> reduced_offsets{0};
  std::vector<int> reduced_neighbors;
  reduced_neighbors.reserve(neighbors.size());
  for (int v = 0; v < n; ++v) {
    if (index[static_cast<size_t>(v)] < 0) continue;
    for (int64_t e = offsets[static_cast<size_t>(v)]; e < offsets[static_cast<size_t>(v) + 1]; ++e) {
      int w = index[static_cast<size_t>(neighbors[static_cast<size_t>(e)])];
      if (w < 0) return metis_call(offsets, neighbors, bytes, total_bytes, sizes, seed);  // not symmetric
      reduced_neighbors.push_back(w);
    }
    reduced_offsets.push_back(static_cast<int64_t>(reduced_neighbors.size()));
  }
  int64_t edges_end = reduced_offsets.back();
  reduced_offsets.resize(static_cast<size_t>(reduced) + 1, edges_end);  // isolated stand-ins
  std::vector<int> reduced_part = metis_call(reduced_offsets, reduced_neighbors, bytes, total_bytes, reduced_sizes, seed);
  std::vector<int> part(static_cast<size_t>(n)), room(sizes);
  for (int v = 0; v < n; ++v)
    if (int i = index[static_cast<size_t>(v)]; i >= 0) {
      part[static_cast<size_t>(v)] = reduced_part[static_cast<size_t>(i)];
      --room[static_cast<size_t>(part[static_cast<size_t>(v)])];
    }
  size_t p = 0;  // the room left adds up to at least the isolated vertices
  for (int v = 0; v < n; ++v)
    if (index[static_cast<size_t>(v)] < 0) {
      while (room[p] <= 0) ++p;
      part[static_cast<size_t>(v)] = static_cast<int>(p);
      --room[p];
    }
  return part;
}

double edge_cut(const CommGraph &g, const std::vector<int> &part) {
  double cut = 0;
  for (int v = 0; v < g.num_vertices(); ++v)
    for (int64_t i = g.row_begin(v); i < g.row_end(v); ++i)
      if (part[static_cast<size_t>(v)] != part[static_cast<size_t>(g.neighbor(i))]) cut += g.weight(i);
  return cut / 2;
}

namespace {

std::vector<int> split_by_sides(const CommGraph &g, const std::vector<int> &sizes, const std::vector<int> &side, int seed);

// The sides of the first bisection of k parts: the part list in halves.
std::vector<int> halves(size_t k) {
  std::vector<int> side(k);
  for (size_t p = 0; p < k; ++p) side[p] = p >= k / 2;
  return side;
}

// Positive sizes. More than two parts with few vertices each: bisections,
// recursively over halves of the parts. A bisection: METIS, or SmallBisection for
// small graphs. Many vertices per part: METIS k-way. METIS results are repaired
// to the exact sizes.
std::vector<int> split(const CommGraph &g, const std::vector<int> &sizes, int seed) {
  int n = g.num_vertices(), k = static_cast<int>(sizes.size());
  if (k == 1 || g.num_edges() == 0) return sequential_parts(sizes);
  if (k == 2 && n <= kSmallGraph) return SmallBisection(g, sizes[0]).best(kSmallBisectionTries);
  if (k == 2 || (n / k >= kKwayVerticesPerPart && n > kSmallGraph)) {
    std::vector<int> part = metis_parts(g.offsets(), g.neighbors(), g.weights(), g.total_bytes() * 2, sizes, seed);
    repair_balance(g, part, sizes);
    return part;
  }
  return split_by_sides(g, sizes, halves(sizes.size()), seed);
}

// A bisection into the two sides' sizes, then each side split into its parts.
std::vector<int> split_by_sides(const CommGraph &g, const std::vector<int> &sizes, const std::vector<int> &side, int seed) {
  std::vector<int> parts_of[2], sizes_of[2];
  for (size_t p = 0; p < sizes.size(); ++p) {
    parts_of[side[p]].push_back(static_cast<int>(p));
    sizes_of[side[p]].push_back(sizes[p]);
  }
  int n = g.num_vertices(), first = std::accumulate(sizes_of[0].begin(), sizes_of[0].end(), 0);
  std::vector<int> half = split(g, {first, n - first}, seed), part(static_cast<size_t>(n));
  for (int s = 0; s < 2; ++s) {
    std::vector<int> members;
    for (int v = 0; v < n; ++v)
      if (half[static_cast<size_t>(v)] == s) members.push_back(v);
    std::vector<int> sub = split(g.subgraph(members), sizes_of[s], seed);
    for (size_t i = 0; i < members.size(); ++i) part[static_cast<size_t>(members[i])] = parts_of[s][static_cast<size_t>(sub[i])];
  }
  return part;
}

}  // namespace

void repair_balance(const CommGraph &g, std::vector<int> &part, const std::vector<int> &sizes,
                    const HopTable *distance) {
  size_t k = sizes.size();
  std::vector<int> count(k, 0);
  std::vector<std::vector<int>> members(k);  // moves only fill parts with room: these lists stay valid
  for (int v = 0; v < g.num_vertices(); ++v) {
    ++count[static_cast<size_t>(part[static_cast<size_t>(v)])];
    members[static_cast<size_t>(part[static_cast<size_t>(v)])].push_back(v);
  }
  // Without distances every other part is one step away: the cost is the cut.
  auto dist = [&](size_t a, size_t b) -> double { return distance ? (*distance)(static_cast<int>(a), static_cast<int>(b)) : a != b; };
  std::vector<double> link(k, 0);  // bytes from the vertex examined to each part
  std::vector<size_t> touched;     // the parts its neighbours are in
  size_t any_room = 0;             // some part with room while any part is overfull (sizes add up)
  // The part with room a vertex of @p from goes to when none of its partners' parts has room.
  auto fallback = [&](size_t from) {
    if (!distance) return any_room;
    size_t best = any_room;
    for (size_t p = any_room; p < k; ++p)
      if (count[p] < sizes[p] && dist(from, p) < dist(from, best)) best = p;
    return best;
  };
  // The best move of v now: (decrease in cost, target part).
  auto best_move = [&](int v) {
    size_t from = static_cast<size_t>(part[static_cast<size_t>(v)]);
    for (int64_t i = g.row_begin(v); i < g.row_end(v); ++i) {
      size_t p = static_cast<size_t>(part[g.neighbor(i)]);
      if (link[p] == 0) touched.push_back(p);
      link[p] += g.weight(i);
    }
    std::pair<double, int> best{-INFINITY, -1};  // the fallback always has room: some move is found
    auto consider = [&](size_t to) {
      if (to == from || count[to] >= sizes[to]) return;
      double gain = 0;
      for (size_t p : touched) gain += link[p] * (dist(from, p) - dist(to, p));
      if (gain > best.first) best = {gain, static_cast<int>(to)};
    };
    consider(fallback(from));
    for (size_t p : touched) consider(p);
    for (size_t p : touched) link[p] = 0;
    touched.clear();
    return best;
  };
  auto advance_room = [&] {
    while (any_room < k && count[any_room] >= sizes[any_room]) ++any_room;
  };
  for (size_t from = 0; from < k; ++from) {
    if (count[from] <= sizes[from]) continue;
    advance_room();
    // Lazy priority queue: an entry whose gain has dropped since it was queued goes back in.
    std::priority_queue<std::pair<double, int>> queue;
    for (int v : members[from]) queue.push({best_move(v).first, v});
    while (count[from] > sizes[from]) {
      auto [queued_gain, v] = queue.top();
      queue.pop();
      advance_room();
      auto [gain, to] = best_move(v);
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

std::vector<int> partition_exact(const CommGraph &g, const std::vector<int> &sizes, int seed, const std::vector<int> &side) {
  int64_t total = std::accumulate(sizes.begin(), sizes.end(), int64_t{0});
  if (total != g.num_vertices() || std::any_of(sizes.begin(), sizes.end(), [](int s) { return s < 0; }))
    throw Error(CANOPY_ERR_INVALID_ARG, "part sizes add up to " + std::to_string(total) + ", the graph has " +
                                            std::to_string(g.num_vertices()) + " vertices");
  if (!side.empty() && (side.size() != sizes.size() || std::any_of(side.begin(), side.end(), [](int s) { return s != 0 && s != 1; })))
    throw Error(CANOPY_ERR_INVALID_ARG, "partition: " + std::to_string(side.size()) + " sides for " +
                                            std::to_string(sizes.size()) + " parts, each side 0 or 1");
  std::vector<int> nonempty;  // METIS wants positive target weights: partition among non-empty parts only
  for (size_t p = 0; p < sizes.size(); ++p)
    if (sizes[p] > 0) nonempty.push_back(static_cast<int>(p));
  if (nonempty.size() <= 1 || g.num_edges() == 0) return sequential_parts(sizes);
  std::vector<int> compact_sizes, compact_side;
  for (int p : nonempty) {
    compact_sizes.push_back(sizes[static_cast<size_t>(p)]);
    if (!side.empty()) compact_side.push_back(side[static_cast<size_t>(p)]);
  }
  auto on_side_1 = std::count(compact_side.begin(), compact_side.end(), 1);
  bool by_sides = on_side_1 > 0 && on_side_1 < static_cast<long>(nonempty.size());
  std::vector<int> part = by_sides ? split_by_sides(g, compact_sizes, compact_side, seed) : split(g, compact_sizes, seed);
  for (int &p : part) p = nonempty[static_cast<size_t>(p)];
  return part;
}

std::vector<std::vector<int>> other_side_groupings(const std::vector<int> &sizes) {
  size_t k = sizes.size();
  std::vector<std::vector<int>> groupings;
  if (k != 3 && k != 4) return groupings;
  // The sizes on each side, sorted, the two sides in order: equal for groupings that pair the same sizes.
  auto paired_sizes = [&](const std::vector<int> &side) {
    std::vector<int> of[2];
    for (size_t p = 0; p < k; ++p) of[side[p]].push_back(sizes[p]);
    for (auto &s : of) std::sort(s.begin(), s.end());
    if (of[1] < of[0]) std::swap(of[0], of[1]);
    return std::make_pair(of[0], of[1]);
  };
  std::set<std::pair<std::vector<int>, std::vector<int>>> paired{paired_sizes(halves(k))};
  for (unsigned grouping = 1; grouping + 1 < 1u << k; grouping += 2) {  // part 0 on side 1: each grouping once
    std::vector<int> side(k);
    for (size_t p = 0; p < k; ++p) side[p] = (grouping >> p) & 1;
    if (paired.insert(paired_sizes(side)).second) groupings.push_back(std::move(side));
  }
  return groupings;
}

}  // namespace canopy::map

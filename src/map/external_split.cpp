#include "map/external_split.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "map/partition.h"

namespace canopy::map {
namespace {

// Swaps below this share of the bytes involved are rounding noise, not gains.
constexpr double kTolerance = 1e-9;

// Permutes the parts among children of equal size (part p goes to child
// sigma[p]) while one exchange lowers the cost: METIS numbers its parts
// arbitrarily, so without this the half that talks to an already placed
// neighbour lands on the far child as often as on the near one.
void orient(const CommGraph &g, const SplitCosts &costs, std::vector<int> &part) {
  size_t k = static_cast<size_t>(costs.parts);
  std::vector<double> bytes(k * k, 0), external(k * k, 0);  // between parts; part p's external cost in child c
  std::vector<int> count(k, 0);
  double scale = 1;
  for (int v = 0; v < g.num_vertices(); ++v) {
    size_t p = static_cast<size_t>(part[static_cast<size_t>(v)]);
    ++count[p];
    for (size_t c = 0; c < k; ++c) external[p * k + c] += costs.external[static_cast<size_t>(v) * k + c];
    for (int64_t i = g.row_begin(v); i < g.row_end(v); ++i)
      bytes[p * k + static_cast<size_t>(part[static_cast<size_t>(g.neighbor(i))])] += g.weight(i);
  }
  for (double x : external) scale += x;
  std::vector<size_t> sigma(k);
  std::iota(sigma.begin(), sigma.end(), size_t{0});
  auto d = [&](size_t a, size_t b) { return costs.distance[a * k + b]; };
  for (bool improved = true; improved;) {
    improved = false;
    for (size_t p1 = 0; p1 < k; ++p1)
      for (size_t p2 = p1 + 1; p2 < k; ++p2) {
        if (count[p1] != count[p2]) continue;
        size_t a = sigma[p1], b = sigma[p2];
        double delta = external[p1 * k + b] + external[p2 * k + a] - external[p1 * k + a] - external[p2 * k + b];
        for (size_t q = 0; q < k; ++q)
          if (q != p1 && q != p2)
            delta += (bytes[p1 * k + q] - bytes[p2 * k + q]) * (d(b, sigma[q]) - d(a, sigma[q]));
        if (delta < -kTolerance * scale) std::swap(sigma[p1], sigma[p2]), improved = true;
      }
  }
  for (int &p : part) p = static_cast<int>(sigma[static_cast<size_t>(p)]);
}

// Rounds of swaps between two parts. Each round ranks every vertex by the gain
// of its best move, pairs the best movers a -> b with the best b -> a, and
// swaps a pair when its gain, recomputed on the current parts, is positive: so
// the cost only falls, and sizes never change.
class SwapRefiner {
 public:
  SwapRefiner(const CommGraph &g, const SplitCosts &costs, std::vector<int> &part)
      : g_(g), costs_(costs), part_(part), k_(static_cast<size_t>(costs.parts)), link_(k_, 0), movers_(k_ * k_) {}

  // One round; returns the cost removed.
  double round() {
    for (auto &list : movers_) list.clear();
    double best_gain = -INFINITY;
    for (int v = 0; v < g_.num_vertices(); ++v) {
      auto [gain, to] = best_move(v);
      if (to < 0) continue;
      movers_[side(v) * k_ + static_cast<size_t>(to)].push_back({gain, v});
      best_gain = std::max(best_gain, gain);
    }
    // A swap needs gx + gy > 0: a mover losing more than the best gain can never be in one.
    if (!(best_gain > 0)) return 0;
    for (auto &list : movers_)
      list.erase(std::remove_if(list.begin(), list.end(), [&](const Mover &m) { return m.gain <= -best_gain; }), list.end());
    double gained = 0;
    for (size_t a = 0; a < k_; ++a)
      for (size_t b = a + 1; b < k_; ++b) gained += swap_pairs(a, b);
    return gained;
  }

 private:
  struct Mover {
    double gain;
    int vertex;
  };

  size_t side(int v) const { return static_cast<size_t>(part_[static_cast<size_t>(v)]); }

  // Fills link_ with v's bytes to each part (touched_ lists the parts).
  void gather(int v) {
    for (int64_t i = g_.row_begin(v); i < g_.row_end(v); ++i) {
      size_t p = side(g_.neighbor(i));
      if (link_[p] == 0) touched_.push_back(p);
      link_[p] += g_.weight(i);
    }
  }
  void release() {
    for (size_t p : touched_) link_[p] = 0;
    touched_.clear();
  }
  double cost_in(int v, size_t c) const {
    double sum = costs_.external[static_cast<size_t>(v) * k_ + c];
    for (size_t p : touched_) sum += link_[p] * costs_.distance[c * k_ + p];
    return sum;
  }

  std::pair<double, int> best_move(int v) {
    gather(v);
    size_t from = side(v);
    double here = cost_in(v, from);
    std::pair<double, int> best{-INFINITY, -1};
    for (size_t c = 0; c < k_; ++c)
      if (c != from) {
        double gain = here - cost_in(v, c);
        if (gain > best.first) best = {gain, static_cast<int>(c)};
      }
    release();
    return best;
  }

  double move_gain(int v, size_t to) {
    gather(v);
    double gain = cost_in(v, side(v)) - cost_in(v, to);
    release();
    return gain;
  }

  double swap_pairs(size_t a, size_t b) {
    auto by_gain = [](const Mover &x, const Mover &y) { return x.gain != y.gain ? x.gain > y.gain : x.vertex < y.vertex; };
    std::vector<Mover> &ab = movers_[a * k_ + b], &ba = movers_[b * k_ + a];
    // Heaps, not sorted lists: the pairing usually stops long before the lists end.
    auto after = [&](const Mover &x, const Mover &y) { return by_gain(y, x); };
    std::make_heap(ab.begin(), ab.end(), after);
    std::make_heap(ba.begin(), ba.end(), after);
    auto drop = [&](std::vector<Mover> &list) {
      std::pop_heap(list.begin(), list.end(), after);
      list.pop_back();
    };
    // Earlier swaps may have changed both fronts' gains: they are recomputed, but
    // only after a swap or for a new front, so that a front which outlasts many
    // partners (a hub talking to all) is not gathered again for each.
    struct Front {
      int vertex = -1;
      double gain = 0, bytes = 0;
    } fx, fy;
    auto refresh = [&](Front &f, int v, size_t to) {
      if (f.vertex != v) f = {v, move_gain(v, to), g_.vertex_bytes(v)};
    };
    double gained = 0;
    while (!ab.empty() && !ba.empty() && ab.front().gain + ba.front().gain > 0) {
      int x = ab.front().vertex, y = ba.front().vertex;
      refresh(fx, x, b), refresh(fy, y, a);
      // An edge x-y keeps its length, which both gains miscount.
      double gain = fx.gain + fy.gain - 2 * g_.bytes_between(x, y) * costs_.distance[a * k_ + b];
      if (gain > kTolerance * (fx.bytes + fy.bytes + 1)) {
        part_[static_cast<size_t>(x)] = static_cast<int>(b);
        part_[static_cast<size_t>(y)] = static_cast<int>(a);
        gained += gain;
        drop(ab), drop(ba);
        fx.vertex = fy.vertex = -1;
      } else {
        drop(fx.gain < fy.gain ? ab : ba);
      }
    }
    return gained;
  }

  const CommGraph &g_;
  const SplitCosts &costs_;
  std::vector<int> &part_;
  size_t k_;
  std::vector<double> link_;
  std::vector<size_t> touched_;
  std::vector<std::vector<Mover>> movers_;  // [a * k + b]: vertices of part a whose best move is to b
};

}  // namespace

double split_cost(const CommGraph &g, const SplitCosts &costs, const std::vector<int> &part) {
  size_t k = static_cast<size_t>(costs.parts);
  double sum = 0;
  for (int v = 0; v < g.num_vertices(); ++v) {
    size_t p = static_cast<size_t>(part[static_cast<size_t>(v)]);
    sum += costs.external[static_cast<size_t>(v) * k + p];
    for (int64_t i = g.row_begin(v); i < g.row_end(v); ++i)
      if (v < g.neighbor(i)) sum += g.weight(i) * costs.distance[p * k + static_cast<size_t>(part[static_cast<size_t>(g.neighbor(i))])];
  }
  return sum;
}

double refine_split(const CommGraph &g, const SplitCosts &costs, std::vector<int> &part, double give_up_above,
                    int max_rounds) {
  if (costs.parts < 2 || g.num_vertices() < 2) return split_cost(g, costs, part);
  orient(g, costs, part);
  double cost = split_cost(g, costs, part);
  if (cost > give_up_above) return INFINITY;
  SwapRefiner refiner(g, costs, part);
  // Rounds that remove under 0.1% of the cost are not worth their pass over the graph.
  double floor = 1e-3 * cost;
  for (int r = 0; r < max_rounds; ++r) {
    double gained = refiner.round();
    cost -= gained;  // each swap's gain is its exact cost change
    if (gained <= floor) break;
  }
  return cost;
}

std::vector<int> anchored_bisection(const CommGraph &g, const SplitCosts &costs, const std::vector<int> &sizes, int seed) {
  int n = g.num_vertices();
  const int anchor[2] = {n, n + 1};
  // The graph plus the anchors in CSR, built directly: each vertex's row gets one anchor edge at its end.
  std::vector<int64_t> offsets{0};
  std::vector<int> neighbors, anchored_by[2];
  std::vector<double> bytes, anchor_bytes[2];
  double apart = costs.distance[1];
  for (int v = 0; v < n; ++v) {
    for (int64_t i = g.row_begin(v); i < g.row_end(v); ++i) neighbors.push_back(g.neighbor(i)), bytes.push_back(g.weight(i) * apart);
    double prefers0 = costs.external[static_cast<size_t>(v) * 2 + 1] - costs.external[static_cast<size_t>(v) * 2];
    if (prefers0 != 0) {
      int side = prefers0 > 0 ? 0 : 1;
      neighbors.push_back(anchor[side]), bytes.push_back(std::abs(prefers0));
      anchored_by[side].push_back(v), anchor_bytes[side].push_back(std::abs(prefers0));
    }
    offsets.push_back(static_cast<int64_t>(neighbors.size()));
  }
  for (int side = 0; side < 2; ++side) {
    neighbors.insert(neighbors.end(), anchored_by[side].begin(), anchored_by[side].end());
    bytes.insert(bytes.end(), anchor_bytes[side].begin(), anchor_bytes[side].end());
    offsets.push_back(static_cast<int64_t>(neighbors.size()));
  }
  // Anchors of ordinary weight: METIS's balance and coarsening work as usual, and
  // vertices tied to both sides keep them apart (together, the anchors are not used).
  std::vector<int> part = metis_parts(offsets, neighbors, bytes, std::accumulate(bytes.begin(), bytes.end(), 0.0),
                                      {sizes[0] + 1, sizes[1] + 1}, seed);
  int side0 = part[static_cast<size_t>(anchor[0])];
  if (side0 == part[static_cast<size_t>(anchor[1])]) return {};
  std::vector<int> result(static_cast<size_t>(n));
  for (int v = 0; v < n; ++v) result[static_cast<size_t>(v)] = part[static_cast<size_t>(v)] == side0 ? 0 : 1;
  repair_balance(g, result, sizes);
  return result;
}

std::vector<int> grown_bisection(const CommGraph &g, const SplitCosts &costs, const std::vector<int> &sizes) {
  size_t n = static_cast<size_t>(g.num_vertices());
  std::vector<double> pull(n);  // how much cheaper in child 0, plus bytes x distance to child 0's part so far
  for (size_t v = 0; v < n; ++v) pull[v] = costs.external[v * 2 + 1] - costs.external[v * 2];
  std::vector<int> part(n, 1);
  for (int filled = 0; filled < sizes[0]; ++filled) {
    size_t next = n;
    for (size_t v = 0; v < n; ++v)
      if (part[v] == 1 && (next == n || pull[v] > pull[next])) next = v;
    part[next] = 0;
    for (int64_t i = g.row_begin(static_cast<int>(next)); i < g.row_end(static_cast<int>(next)); ++i)
      pull[static_cast<size_t>(g.neighbor(i))] += 2 * g.weight(i) * costs.distance[1];
  }
  return part;
}

}  // namespace canopy::map

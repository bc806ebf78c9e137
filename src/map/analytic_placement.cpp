// Analytic placement of whole host groups on machines with coordinates: see
// placement_steps.h. The scheme is SimPL's (Kim, Lee and Markov, "SimPL: an
// effective placement algorithm", ICCAD 2010) on the hosts' coordinates:
// quadratic placement of the groups, pulled towards anchors that are the last
// legal placement, alternating with the legal placement nearest to it.
#include <algorithm>
#include <cmath>
#include <deque>
#include <map>
#include <limits>
#include <numeric>
#include <optional>
#include <string>
#include <tuple>

#include "map/placement_steps.h"

namespace canopy::map {
namespace {

constexpr double kAnchorStart = 0.01;  // x the mean weighted degree: the first pull towards the anchors
constexpr double kAnchorGrowth = 1.3;  // per iteration
constexpr double kMinLength = 0.5;     // B2B: an edge weighs bytes / max(length, this) along an axis
constexpr double kBidStep = 0.2;       // the auction's epsilon between hosts, in squared coordinate units
constexpr int kSolverSteps = 100;      // conjugate-gradient steps per axis at most
// The first iterations take the bisection's legal placement (bisection_placement),
// which costs next to nothing; the auction's, closer to the positions, from then on.
constexpr int kProbeIterations = 3;
// Until a legal placement beats the start, each of the auction's must close this
// share of the gap between the last one's cost and the start's, or the placement
// stops: where the walk's placement is already good the legal placements hover above it.
constexpr double kLeastApproach = 0.25;

// Solves (L_w + lambda I) x = lambda anchor by Jacobi-preconditioned conjugate
// gradients, from the current x: L_w is the Laplacian of the groups' graph whose
// entry i of the CSR rows weighs weight[i].
void solve_axis(const CommGraph &g, const std::vector<double> &weight, double lambda, const std::vector<double> &anchor,
                std::vector<double> &x) {
  size_t n = x.size();
  std::vector<double> diagonal(n, lambda), r(n), z(n), p(n), q(n);
  for (int v = 0; v < g.num_vertices(); ++v)
    for (int64_t e = g.row_begin(v); e < g.row_end(v); ++e) diagonal[static_cast<size_t>(v)] += weight[static_cast<size_t>(e)];
  auto multiply = [&](const std::vector<double> &in, std::vector<double> &out) {
    for (int v = 0; v < g.num_vertices(); ++v) {
      double sum = diagonal[static_cast<size_t>(v)] * in[static_cast<size_t>(v)];
      for (int64_t e = g.row_begin(v); e < g.row_end(v); ++e)
        sum -= weight[static_cast<size_t>(e)] * in[static_cast<size_t>(g.neighbor(e))];
      out[static_cast<size_t>(v)] = sum;
    }
  };
  multiply(x, q);
  double rz = 0, target = 0;
  for (size_t i = 0; i < n; ++i) {
    r[i] = lambda * anchor[i] - q[i];
    p[i] = z[i] = r[i] / diagonal[i];
    rz += r[i] * z[i];
    target += lambda * anchor[i] * lambda * anchor[i];
  }
  for (int step = 0; step < kSolverSteps && rz > 1e-6 * target; ++step) {
    multiply(p, q);
    double pq = 0;
    for (size_t i = 0; i < n; ++i) pq += p[i] * q[i];
    double alpha = rz / pq, next = 0;
    for (size_t i = 0; i < n; ++i) {
      x[i] += alpha * p[i];
      r[i] -= alpha * q[i];
      z[i] = r[i] / diagonal[i];
      next += r[i] * z[i];
    }
    for (size_t i = 0; i < n; ++i) p[i] = z[i] + next / rz * p[i];
    rz = next;
  }
}

// The legal placement nearest to the groups' positions: each group on its own
// host, the sum of squared displacements least (up to the auction's step).
// Bertsekas's auction; its prices carry over from the last call, which the
// positions moved little from, so few bids are needed. Each bid looks at every
// candidate, so on many hosts the hosts are first taken together in cells (cubes
// of routers, at most kMostCells of them): the groups bid for a cell's places
// by the distance to its centre, then each cell's groups bid for its hosts.
class Legalizer {
 public:
  explicit Legalizer(const std::vector<std::vector<int>> &coords);
  std::vector<int> operator()(const std::vector<std::vector<double>> &x);

 private:
  static constexpr size_t kMostCells = 512;

  // What one auction hands out: targets, target c at position at[k][c] with
  // price[c].size() places, each place with its price; bids raise a price by at
  // least step, which scales with the squared spacing of the targets.
  struct Targets {
    std::vector<std::vector<double>> at;
    std::vector<std::vector<double>> price;
    double step = kBidStep;
    std::vector<double> norm;  // per target: its position's squared length
  };
  // Assigns @p groups (positions x) to places of @p t; returns each group's target.
  std::vector<int> auction(const std::vector<std::vector<double>> &x, const std::vector<int> &groups, Targets &t);

  size_t dims_;
  bool first_ = true;
  Targets cells_;                          // the cells, as many places as hosts each
  std::vector<std::vector<int>> members_;  // the hosts of each cell
  std::vector<Targets> hosts_;             // per cell: its hosts, one place each
};

Legalizer::Legalizer(const std::vector<std::vector<int>> &coords) : dims_(coords.empty() ? 0 : coords[0].size()) {
  std::vector<int> low(dims_, std::numeric_limits<int>::max());
  for (const std::vector<int> &c : coords)
    for (size_t k = 0; k < dims_; ++k) low[k] = std::min(low[k], c[k]);
  std::map<std::vector<int>, int> cell_at;
  int side = 1;
  for (;; side *= 2) {
    cell_at.clear();
    members_.clear();
    for (size_t h = 0; h < coords.size(); ++h) {
      std::vector<int> cell(dims_);
      for (size_t k = 0; k < dims_; ++k) cell[k] = (coords[h][k] - low[k]) / side;
      auto [it, added] = cell_at.try_emplace(cell, static_cast<int>(members_.size()));
      if (added) members_.emplace_back();
      members_[static_cast<size_t>(it->second)].push_back(static_cast<int>(h));
    }
    if (members_.size() <= kMostCells) break;
  }
  auto targets_of = [&](const std::vector<std::vector<int>> &sets) {  // one target per set of hosts, at their mean
    Targets t;
    t.at.assign(dims_, std::vector<double>(sets.size(), 0.0));
    t.norm.assign(sets.size(), 0.0);
    for (size_t i = 0; i < sets.size(); ++i) {
      for (size_t k = 0; k < dims_; ++k) {
        for (int h : sets[i]) t.at[k][i] += coords[static_cast<size_t>(h)][k] / static_cast<double>(sets[i].size());
        t.norm[i] += t.at[k][i] * t.at[k][i];
      }
      t.price.emplace_back(sets[i].size(), 0.0);
    }
    return t;
  };
  cells_ = targets_of(members_);
  cells_.step = kBidStep * side * side;
  for (const std::vector<int> &cell : members_) {
    std::vector<std::vector<int>> singles;
    for (int h : cell) singles.push_back({h});
    hosts_.push_back(targets_of(singles));
  }
}

std::vector<int> Legalizer::operator()(const std::vector<std::vector<double>> &x) {
  size_t n = x.empty() ? 0 : x[0].size();
  std::vector<int> all(n), host(n, -1);
  std::iota(all.begin(), all.end(), 0);
  std::vector<int> cell = auction(x, all, cells_);
  std::vector<std::vector<int>> in_cell(members_.size());
  for (size_t g = 0; g < n; ++g) in_cell[static_cast<size_t>(cell[g])].push_back(static_cast<int>(g));
  for (size_t c = 0; c < members_.size(); ++c) {
    std::vector<int> within = auction(x, in_cell[c], hosts_[c]);
    for (size_t i = 0; i < within.size(); ++i)
      host[static_cast<size_t>(in_cell[c][i])] = members_[c][static_cast<size_t>(within[i])];
  }
  first_ = false;
  return host;
}

std::vector<int> Legalizer::auction(const std::vector<std::vector<double>> &x, const std::vector<int> &groups, Targets &t) {
  size_t targets = t.price.size();
  std::vector<int> target(groups.size(), -1);
  if (targets == 1) return std::vector<int>(groups.size(), 0);
  // Per target: its cheapest place, that place's price plus the target's squared
  // length (bias), and the next cheapest price (infinite with one place).
  std::vector<size_t> cheapest(targets);
  std::vector<double> next(targets), bias(targets);
  auto survey = [&](size_t c) {
    const std::vector<double> &p = t.price[c];
    cheapest[c] = static_cast<size_t>(std::min_element(p.begin(), p.end()) - p.begin());
    bias[c] = t.norm[c] + p[cheapest[c]];
    next[c] = std::numeric_limits<double>::infinity();
    for (size_t s = 0; s < p.size(); ++s)
      if (s != cheapest[c]) next[c] = std::min(next[c], p[s]);
  };
  std::vector<std::vector<int>> owner(targets);
  std::vector<double> profit(targets);
  // A first call scales the step down from coarse bids (prices from nothing);
  // later calls start from prices that nearly fit.
  std::vector<double> steps{t.step};
  if (first_) steps = {25 * t.step, 5 * t.step, t.step};
  for (double step : steps) {
    for (size_t c = 0; c < targets; ++c) owner[c].assign(t.price[c].size(), -1), survey(c);
    std::deque<size_t> waiting(groups.size());
    std::iota(waiting.begin(), waiting.end(), size_t{0});
    // Bids are bounded by the costs' range over the step; the cap only guards against
    // rounding: groups still waiting then take the nearest free places.
    for (size_t bids = 0; !waiting.empty() && bids < 1000 * groups.size(); ++bids) {
      size_t i = waiting.front(), g = static_cast<size_t>(groups[i]);
      waiting.pop_front();
      // The profit of each target's cheapest place, but for the group's squared length
      // (the same for all): -|x - a|^2 - price = 2 x.a - |a|^2 - price - |x|^2. Plain
      // loops and maxima, so that they vectorise.
      double *p = profit.data();
      for (size_t c = 0; c < targets; ++c) p[c] = -bias[c];
      for (size_t k = 0; k < dims_; ++k) {
        const double twice = 2 * x[k][g], *at = t.at[k].data();
        for (size_t c = 0; c < targets; ++c) p[c] += twice * at[c];
      }
      double best = -std::numeric_limits<double>::infinity(), second = best;
      for (size_t c = 0; c < targets; ++c) best = p[c] > best ? p[c] : best;
      size_t to = static_cast<size_t>(std::find(p, p + targets, best) - p);
      p[to] = second;
      for (size_t c = 0; c < targets; ++c) second = p[c] > second ? p[c] : second;
      second = std::max(second, best + t.price[to][cheapest[to]] - next[to]);  // the best target's next place
      size_t place = cheapest[to];
      t.price[to][place] += best - second + step;
      int &holder = owner[to][place];
      if (holder >= 0) target[static_cast<size_t>(holder)] = -1, waiting.push_back(static_cast<size_t>(holder));
      holder = static_cast<int>(i), target[i] = static_cast<int>(to);
      survey(to);
    }
    for (size_t i : waiting) {
      size_t g = static_cast<size_t>(groups[i]);
      auto distance = [&](size_t c) {
        double sum = 0;
        for (size_t k = 0; k < dims_; ++k) sum += (t.at[k][c] - x[k][g]) * (t.at[k][c] - x[k][g]);
        return sum;
      };
      size_t to = targets;
      for (size_t c = 0; c < targets; ++c)
        if (std::count(owner[c].begin(), owner[c].end(), -1) > 0 && (to == targets || distance(c) < distance(to))) to = c;
      *std::find(owner[to].begin(), owner[to].end(), -1) = static_cast<int>(i), target[i] = static_cast<int>(to);
    }
  }
  return target;
}

// A legal placement near the groups' positions by geometric bisection, as SimPL's
// look-ahead legalization spreads cells: the hosts are split in halves across their
// widest extent, the groups by their position along that axis (as many to each side
// as it has hosts), and so on in each half. O(n log^2 n), with no prices to carry.
void bisect(const std::vector<std::vector<double>> &x, const std::vector<std::vector<int>> &coords, int *groups,
            int *hosts, size_t n, std::vector<int> &host) {
  if (n == 1) {
    host[static_cast<size_t>(groups[0])] = hosts[0];
    return;
  }
  size_t axis = 0;
  int widest = -1;
  for (size_t k = 0; k < coords[0].size(); ++k) {
    auto [low, high] = std::minmax_element(hosts, hosts + n, [&](int a, int b) {
      return coords[static_cast<size_t>(a)][k] < coords[static_cast<size_t>(b)][k];
    });
    int extent = coords[static_cast<size_t>(*high)][k] - coords[static_cast<size_t>(*low)][k];
    if (extent > widest) widest = extent, axis = k;
  }
  size_t half = n / 2;
  const std::vector<double> &along = x[axis];
  std::nth_element(hosts, hosts + half, hosts + n, [&](int a, int b) {
    const std::vector<int> &ca = coords[static_cast<size_t>(a)], &cb = coords[static_cast<size_t>(b)];
    return std::tie(ca[axis], ca, a) < std::tie(cb[axis], cb, b);
  });
  std::nth_element(groups, groups + half, groups + n, [&](int a, int b) {
    return std::tie(along[static_cast<size_t>(a)], a) < std::tie(along[static_cast<size_t>(b)], b);
  });
  bisect(x, coords, groups, hosts, half, host);
  bisect(x, coords, groups + half, hosts + half, n - half, host);
}

std::vector<int> bisection_placement(const std::vector<std::vector<double>> &x, const std::vector<std::vector<int>> &coords) {
  std::vector<int> groups(coords.size()), hosts(coords.size()), host(coords.size());
  std::iota(groups.begin(), groups.end(), 0);
  std::iota(hosts.begin(), hosts.end(), 0);
  bisect(x, coords, groups.data(), hosts.data(), coords.size(), host);
  return host;
}

}  // namespace

bool analytic_placement_applies(const Machine &m) {
  return !m.coordinates().empty() && m.uniform_slots() > 0 && m.num_hosts() >= 2;
}

double place_host_groups_analytically(const CommGraph &graph, const Machine &m, std::vector<int> &host_of, int iterations,
                                      const ProgressFn &progress) {
  if (iterations <= 0 || !analytic_placement_applies(m)) return 0;
  const std::vector<std::vector<int>> &coords = m.coordinates();
  size_t hosts = static_cast<size_t>(m.num_hosts());
  // Group g is what host g holds at the start; host[g] is its host in a placement.
  // Coordinates come with dimension-order routes, whose hop counts are the same both ways.
  CommGraph groups = graph.quotient(host_of, static_cast<int>(hosts));
  std::vector<int> host(hosts);
  std::iota(host.begin(), host.end(), 0);
  const double start = inter_node_hop_bytes(groups, m, host);
  if (start == 0) return 0;
  std::vector<int> best = host;
  double lowest = start;
  size_t dims = coords[0].size();
  std::vector<std::vector<double>> x(dims, std::vector<double>(hosts));  // x[k][g]: group g's position on axis k
  for (size_t k = 0; k < dims; ++k)
    for (size_t g = 0; g < hosts; ++g) x[k][g] = coords[g][k];
  double lambda = kAnchorStart * 2 * groups.total_bytes() / static_cast<double>(hosts);
  std::vector<double> weight(static_cast<size_t>(2 * groups.num_edges())), anchor(hosts);  // per CSR entry
  std::optional<Legalizer> legalize;
  double last = std::numeric_limits<double>::infinity();
  for (int it = 0; it < iterations; ++it) {
    if (progress)
      progress("placing the host groups analytically: iteration " + std::to_string(it + 1) + " of " +
               std::to_string(iterations));
    for (size_t k = 0; k < dims; ++k) {
      const std::vector<double> &at = x[k];
      for (int g = 0; g < groups.num_vertices(); ++g)
        for (int64_t e = groups.row_begin(g); e < groups.row_end(g); ++e) {
          double length = std::abs(at[static_cast<size_t>(g)] - at[static_cast<size_t>(groups.neighbor(e))]);
          weight[static_cast<size_t>(e)] = groups.weight(e) / std::max(length, kMinLength);
        }
      for (size_t g = 0; g < hosts; ++g) anchor[g] = coords[static_cast<size_t>(host[g])][k];
      solve_axis(groups, weight, lambda, anchor, x[k]);
    }
    bool probing = it < kProbeIterations;
    if (!probing && !legalize) legalize.emplace(coords);
    std::vector<int> placed = probing ? bisection_placement(x, coords) : (*legalize)(x);
    // The probe stops where a bisection gives the placement it started from: the groups
    // sit at a fixed point of the pull towards their places (the benchmark's stencils,
    // AMR patterns and random graphs, within the probe).
    if (probing && placed == host) break;
    host = std::move(placed);
    double c = inter_node_hop_bytes(groups, m, host);
    if (c < lowest) lowest = c, best = host;
    // Only the auction's placements are held to the rule (`last` is theirs alone): its
    // first is the first of another legalization, not comparable to the bisections'.
    if (!probing) {
      if (lowest == start && last - c < kLeastApproach * (last - start)) break;
      last = c;
    }
    lambda *= kAnchorGrowth;
  }
  for (int &h : host_of) h = best[static_cast<size_t>(h)];
  return start - lowest;
}

}  // namespace canopy::map

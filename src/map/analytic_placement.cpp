// Analytic placement of whole host groups on machines with coordinates: see
// placement_steps.h. The scheme is SimPL's (Kim, Lee and Markov, "SimPL: an
// effective placement algorithm", ICCAD 2010) on the hosts' coordinates:
// quadratic placement of the groups, pulled towards anchors that are the last
// legal placement, alternating with the legal placement nearest to it.
#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <numeric>
#include <string>

#include "map/placement_steps.h"

namespace canopy::map {
namespace {

constexpr double kAnchorStart = 0.01;  // x the mean weighted degree: the first pull towards the anchors
constexpr double kAnchorGrowth = 1.3;  // per iteration
constexpr double kMinLength = 0.5;     // B2B: an edge weighs bytes / max(length, this) along an axis
constexpr double kBidStep = 0.2;       // the auction's epsilon, in squared coordinate units
constexpr int kSolverSteps = 100;      // conjugate-gradient steps per axis at most

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
// host, the sum of squared displacements least up to n x kBidStep (Bertsekas's
// auction; prices carry over from the last call, which the positions moved
// little from, so few bids are needed).
class Legalizer {
 public:
  explicit Legalizer(const std::vector<std::vector<int>> &coords)
      : hosts_(coords.size()), dims_(coords.empty() ? 0 : coords[0].size()), at_(dims_, std::vector<double>(hosts_)),
        price_(hosts_, 0) {
    for (size_t h = 0; h < hosts_; ++h)
      for (size_t k = 0; k < dims_; ++k) at_[k][h] = coords[h][k];
  }

  std::vector<int> operator()(const std::vector<std::vector<double>> &x) {
    std::vector<int> owner(hosts_, -1), host(hosts_, -1);
    std::deque<int> waiting;
    std::vector<double> cost(hosts_);
    auto displacements = [&](size_t g) {  // cost[h]: g's squared displacement to host h (axis by axis: vectorised)
      std::fill(cost.begin(), cost.end(), 0.0);
      for (size_t k = 0; k < dims_; ++k) {
        const double here = x[k][g], *at = at_[k].data();
        for (size_t h = 0; h < hosts_; ++h) cost[h] += (here - at[h]) * (here - at[h]);
      }
    };
    // The first call scales the step down from coarse bids (prices from nothing);
    // later calls start from prices that nearly fit.
    std::vector<double> steps{kBidStep};
    if (first_) steps = {25 * kBidStep, 5 * kBidStep, kBidStep};
    first_ = false;
    size_t bids = 0;
    for (double step : steps) {
      std::fill(owner.begin(), owner.end(), -1);
      waiting.resize(hosts_);
      std::iota(waiting.begin(), waiting.end(), 0);
      // Bids are bounded by the costs' range over the step; the cap only guards against
      // rounding: groups still waiting then take the nearest free hosts.
      for (size_t cap = bids + 1000 * hosts_; !waiting.empty() && bids < cap; ++bids) {
        size_t g = static_cast<size_t>(waiting.front());
        waiting.pop_front();
        displacements(g);
        double best = -std::numeric_limits<double>::infinity(), second = best;
        size_t to = 0;
        for (size_t h = 0; h < hosts_; ++h) {
          double value = -cost[h] - price_[h];
          if (value > best) second = best, best = value, to = h;
          else if (value > second) second = value;
        }
        price_[to] += best - second + step;
        if (owner[to] >= 0) host[static_cast<size_t>(owner[to])] = -1, waiting.push_back(owner[to]);
        owner[to] = static_cast<int>(g), host[g] = static_cast<int>(to);
      }
    }
    for (int g : waiting) {
      displacements(static_cast<size_t>(g));
      size_t to = hosts_;
      for (size_t h = 0; h < hosts_; ++h)
        if (owner[h] < 0 && (to == hosts_ || cost[h] < cost[to])) to = h;
      owner[to] = g, host[static_cast<size_t>(g)] = static_cast<int>(to);
    }
    return host;
  }

 private:
  size_t hosts_, dims_;
  std::vector<std::vector<double>> at_;  // at_[k][h]: host h's coordinate on axis k
  std::vector<double> price_;
  bool first_ = true;
};

}  // namespace

double place_host_groups_analytically(const CommGraph &graph, const Machine &m, std::vector<int> &host_of, int iterations,
                                      const ProgressFn &progress) {
  const std::vector<std::vector<int>> &coords = m.coordinates();
  size_t hosts = static_cast<size_t>(m.num_hosts());
  if (iterations <= 0 || coords.empty() || m.uniform_slots() == 0 || hosts < 2) return 0;
  // Group g is what host g holds at the start; host[g] is its host in a placement.
  CommGraph groups = graph.quotient(host_of, static_cast<int>(hosts));
  auto cost = [&](const std::vector<int> &host) {  // bytes x hops, each pair's hops averaged over both directions
    double sum = 0;
    for (int g = 0; g < groups.num_vertices(); ++g)
      for (int64_t e = groups.row_begin(g); e < groups.row_end(g); ++e) {
        if (groups.neighbor(e) < g) continue;  // each pair once
        int a = host[static_cast<size_t>(g)], b = host[static_cast<size_t>(groups.neighbor(e))];
        sum += groups.weight(e) * 0.5 * (m.hops(a, b) + m.hops(b, a));
      }
    return sum;
  };
  std::vector<int> host(hosts);
  std::iota(host.begin(), host.end(), 0);
  const double start = cost(host);
  if (start == 0) return 0;
  std::vector<int> best = host;
  double lowest = start;
  size_t dims = coords[0].size();
  std::vector<std::vector<double>> x(dims, std::vector<double>(hosts));  // x[k][g]: group g's position on axis k
  for (size_t k = 0; k < dims; ++k)
    for (size_t g = 0; g < hosts; ++g) x[k][g] = coords[g][k];
  double lambda = kAnchorStart * 2 * groups.total_bytes() / static_cast<double>(hosts);
  std::vector<double> weight(static_cast<size_t>(2 * groups.num_edges())), anchor(hosts);  // per CSR entry
  Legalizer legalize(coords);
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
    host = legalize(x);
    double c = cost(host);
    if (c < lowest) lowest = c, best = host;
    lambda *= kAnchorGrowth;
  }
  for (int &h : host_of) h = best[static_cast<size_t>(h)];
  return start - lowest;
}

}  // namespace canopy::map

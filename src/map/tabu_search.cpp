// Robust tabu search of where whole host groups go: see placement_steps.h. The
// scheme is Taillard's for the quadratic assignment problem ("Robust taboo search
// for the quadratic assignment problem", Parallel Computing 17, 1991): every
// iteration takes the best swap of two groups that is not tabu, with the cost
// changes of all swaps kept current in O(hosts^2) per iteration.
#include <algorithm>
#include <limits>
#include <numeric>
#include <random>

#include "map/placement_steps.h"

namespace canopy::map {
namespace {
constexpr int kIterationsPerHost = 50;
}  // namespace

bool tabu_search_applies(const Machine &m) {
  return m.uniform_slots() > 0 && m.num_hosts() >= 3 && m.num_hosts() <= kTabuSearchMostHosts;
}

double tabu_search_host_groups(const CommGraph &graph, const Machine &m, std::vector<int> &host_of, uint64_t seed) {
  if (!tabu_search_applies(m)) return 0;
  size_t n = static_cast<size_t>(m.num_hosts());
  // Group g is what host g holds at the start; at[g] is its host now. Dense
  // bytes between groups and mean_hops between hosts: n is small.
  CommGraph groups = graph.quotient(host_of, static_cast<int>(n));
  if (groups.num_edges() == 0) return 0;
  // between[i * n + j]: the hops between the hosts of groups i and j now, kept current through the swaps.
  std::vector<double> bytes(n * n, 0), between(n * n, 0);
  for (int g = 0; g < groups.num_vertices(); ++g)
    for (int64_t e = groups.row_begin(g); e < groups.row_end(g); ++e)
      bytes[static_cast<size_t>(g) * n + static_cast<size_t>(groups.neighbor(e))] = groups.weight(e);
  for (size_t a = 0; a < n; ++a)
    for (size_t b = 0; b < n; ++b)
      between[a * n + b] = mean_hops(m, static_cast<int>(a), static_cast<int>(b));
  std::vector<size_t> at(n);
  std::iota(at.begin(), at.end(), size_t{0});
  const double *f = bytes.data(), *d = between.data();
  // delta[r * n + s], r < s: the cost change of groups r and s trading hosts.
  std::vector<double> delta(n * n, 0);
  auto full_delta = [&](size_t r, size_t s) {
    double sum = 0;
    for (size_t k = 0; k < n; ++k) sum += (f[r * n + k] - f[s * n + k]) * (d[s * n + k] - d[r * n + k]);
    // Without the terms k = r and k = s, which add -2 f_rs d_rs: the edge between them keeps its length.
    return sum + 2 * f[r * n + s] * d[r * n + s];
  };
  for (size_t r = 0; r < n; ++r)
    for (size_t s = r + 1; s < n; ++s) delta[r * n + s] = full_delta(r, s);
  // tabu[g * n + h]: the iteration until which group g may not go back to host h.
  std::vector<long> tabu(n * n, 0);
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<long> tenure(std::max<long>(1, static_cast<long>(n) * 9 / 10), static_cast<long>(n) * 11 / 10);
  double cost = 0, lowest = 0;  // relative to the start
  std::vector<size_t> best = at;
  long iterations = kIterationsPerHost * static_cast<long>(n);
  for (long it = 1; it <= iterations; ++it) {
    size_t u = n, v = n;
    double chosen = std::numeric_limits<double>::infinity();
    double aspiration = lowest - 1e-9 * std::abs(lowest) - cost;  // a swap below this beats the best seen
    for (size_t r = 0; r < n; ++r)
      for (size_t s = r + 1; s < n; ++s) {
        double change = delta[r * n + s];
        if (change >= chosen) continue;
        bool is_tabu = tabu[r * n + at[s]] >= it && tabu[s * n + at[r]] >= it;
        if (!is_tabu || change < aspiration) chosen = change, u = r, v = s;
      }
    if (u == n) break;  // every swap tabu: nothing left to try
    tabu[u * n + at[u]] = it + tenure(rng);
    tabu[v * n + at[v]] = it + tenure(rng);
    // Swaps of two other groups change only by their terms with u and v, with the hops before the swap.
    for (size_t r = 0; r < n; ++r) {
      if (r == u || r == v) continue;
      double fr = f[r * n + u] - f[r * n + v], dr = d[r * n + u] - d[r * n + v];
      for (size_t s = r + 1; s < n; ++s)
        if (s != u && s != v) delta[r * n + s] += (fr - f[s * n + u] + f[s * n + v]) * (d[s * n + v] - d[s * n + u] + dr);
    }
    std::swap(at[u], at[v]);
    for (size_t k = 0; k < n; ++k) std::swap(between[u * n + k], between[v * n + k]);
    for (size_t k = 0; k < n; ++k) std::swap(between[k * n + u], between[k * n + v]);
    for (size_t x : {u, v})  // the swaps with u or v: anew
      for (size_t k = 0; k < n; ++k)
        if (k != x) delta[std::min(x, k) * n + std::max(x, k)] = full_delta(std::min(x, k), std::max(x, k));
    cost += chosen;
    if (cost < lowest - 1e-9 * std::abs(lowest)) lowest = cost, best = at;
  }
  for (int &h : host_of) h = static_cast<int>(best[static_cast<size_t>(h)]);
  return -lowest;
}

}  // namespace canopy::map

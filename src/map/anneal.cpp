// Annealing the hosts of whole host groups: see placement_steps.h.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <string>

#include "map/placement_steps.h"

namespace canopy::map {
namespace {
constexpr int kNearHosts = 16;            // the hosts a group may move to around a partner's host
constexpr double kStartTemperature = 10;  // x the mean bytes between two communicating groups
constexpr double kCooling = 1e-3;         // the last temperature over the first
}  // namespace

double anneal_host_groups(const CommGraph &graph, const Machine &m, std::vector<int> &host_of, int64_t moves_per_host,
                          uint64_t seed, const ProgressFn &progress) {
  size_t hosts = static_cast<size_t>(m.num_hosts());
  // Group g is what host g holds at the start; host[g] is its host now, at[h] the group on host h.
  CommGraph groups = graph.quotient(host_of, static_cast<int>(hosts));
  int64_t host_count = static_cast<int64_t>(hosts);
  int64_t moves = std::min(moves_per_host, std::numeric_limits<int64_t>::max() / std::max<int64_t>(host_count, 1)) * host_count;
  if (moves <= 0 || groups.num_edges() == 0) return 0;
  std::vector<std::vector<int>> near(hosts);
  std::vector<std::pair<double, int>> candidates;  // (hops, host): nearest first, then by index
  for (size_t h = 0; h < hosts; ++h) {
    candidates.clear();
    for (size_t x = 0; x < hosts; ++x)
      if (x != h && m.slots(static_cast<int>(x)) == m.slots(static_cast<int>(h)))
        candidates.emplace_back(mean_hops(m, static_cast<int>(h), static_cast<int>(x)), static_cast<int>(x));
    auto keep = candidates.begin() + static_cast<long>(std::min<size_t>(kNearHosts, candidates.size()));
    std::partial_sort(candidates.begin(), keep, candidates.end());
    for (auto it = candidates.begin(); it != keep; ++it) near[h].push_back(it->second);
  }
  std::vector<int> host(hosts), at(hosts);
  std::iota(host.begin(), host.end(), 0);
  std::iota(at.begin(), at.end(), 0);
  std::vector<int> best = host;
  double t0 = kStartTemperature * groups.total_bytes() / static_cast<double>(groups.num_edges());
  double temperature = t0, cost = 0, lowest = 0;  // cost relative to the start
  // The cost change of group g leaving host `from` for host `to`, whose group `other` takes its place.
  auto change = [&](int g, int from, int to, int other) {
    double delta = 0;
    for (int64_t e = groups.row_begin(g); e < groups.row_end(g); ++e) {
      size_t partner = static_cast<size_t>(groups.neighbor(e));
      if (static_cast<int>(partner) != other)
        delta += groups.weight(e) * (mean_hops(m, to, host[partner]) - mean_hops(m, from, host[partner]));
    }
    return delta;
  };
  std::mt19937_64 rng(seed);
  for (int64_t move = 0; move < moves; ++move) {
    if (move % 256 == 0) temperature = t0 * std::pow(kCooling, static_cast<double>(move) / static_cast<double>(moves));
    if (progress && moves >= 10 && move % (moves / 10) == 0)
      progress("annealing the host groups: " + std::to_string(move / (moves / 10) * 10) + "% of " + std::to_string(moves) + " moves");
    int g = static_cast<int>(rng() % hosts);
    if (groups.degree(g) == 0) continue;
    int partner = groups.neighbor(groups.row_begin(g) + static_cast<int64_t>(rng() % static_cast<uint64_t>(groups.degree(g))));
    const std::vector<int> &around = near[static_cast<size_t>(host[static_cast<size_t>(partner)])];
    size_t pick = rng() % (around.size() + 1);
    int to = pick < around.size() ? around[pick] : host[static_cast<size_t>(partner)];
    int from = host[static_cast<size_t>(g)], other = at[static_cast<size_t>(to)];
    if (other == g || m.slots(from) != m.slots(to)) continue;
    double delta = change(g, from, to, other) + change(other, to, from, g);
    if (delta > 0 && std::generate_canonical<double, 53>(rng) >= std::exp(-delta / temperature)) continue;
    host[static_cast<size_t>(g)] = to, host[static_cast<size_t>(other)] = from;
    at[static_cast<size_t>(to)] = g, at[static_cast<size_t>(from)] = other;
    cost += delta;
    if (cost < lowest - 1e-9 * std::abs(lowest)) lowest = cost, best = host;
  }
  for (int &h : host_of) h = best[static_cast<size_t>(h)];
  return -lowest;
}

}  // namespace canopy::map

#include "anneal_groups.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <numeric>
#include <random>

namespace canopy::bench {
namespace {
constexpr int kNearHosts = 16;
constexpr double kStartTemperature = 10;  // x the mean bytes between two communicating groups
constexpr double kCooling = 1e-3;         // the last temperature over the first
}  // namespace

AnnealedGroups anneal_host_groups(const map::Problem &problem, const std::vector<int> &slot_of_process,
                                  int64_t moves_per_host, uint64_t seed,
                                  const std::function<void(const std::string &)> &progress) {
  auto start = std::chrono::steady_clock::now();
  std::clock_t cpu_start = std::clock();
  const map::Machine &m = problem.machine;
  size_t hosts = static_cast<size_t>(m.num_hosts());
  std::vector<int> host_of(slot_of_process.size());
  for (size_t p = 0; p < host_of.size(); ++p) host_of[p] = m.host_of_slot(slot_of_process[p]);
  // Group g is what host g holds now; at[h] is the group on host h, host[g] the host of group g.
  map::CommGraph groups = problem.graph.quotient(host_of, static_cast<int>(hosts));
  auto hops = [&](int a, int b) { return 0.5 * (m.hops(a, b) + m.hops(b, a)); };
  std::vector<std::vector<int>> near(hosts);
  for (size_t h = 0; h < hosts; ++h) {
    std::vector<int> &list = near[h];
    for (size_t x = 0; x < hosts; ++x)
      if (x != h && m.slots(static_cast<int>(x)) == m.slots(static_cast<int>(h))) list.push_back(static_cast<int>(x));
    size_t keep = std::min<size_t>(kNearHosts, list.size());
    std::partial_sort(list.begin(), list.begin() + static_cast<long>(keep), list.end(), [&](int a, int b) {
      double ha = hops(static_cast<int>(h), a), hb = hops(static_cast<int>(h), b);
      return ha != hb ? ha < hb : a < b;
    });
    list.resize(keep);
  }
  std::vector<int> host(hosts), at(hosts);
  std::iota(host.begin(), host.end(), 0);
  std::iota(at.begin(), at.end(), 0);
  std::vector<int> best = host;
  double mean_bytes = groups.num_edges() ? groups.total_bytes() / static_cast<double>(groups.num_edges()) : 0;
  double t0 = kStartTemperature * mean_bytes, temperature = t0, cost = 0, lowest = 0;
  // The cost change of group g leaving host `from` for host `to`, whose group `other` takes its place.
  auto change = [&](int g, int from, int to, int other) {
    double delta = 0;
    for (int64_t e = groups.row_begin(g); e < groups.row_end(g); ++e) {
      int partner = groups.neighbor(e);
      if (partner != other) delta += groups.weight(e) * (hops(to, host[static_cast<size_t>(partner)]) - hops(from, host[static_cast<size_t>(partner)]));
    }
    return delta;
  };
  std::mt19937_64 rng(seed);
  AnnealedGroups result;
  int64_t moves = moves_per_host * static_cast<int64_t>(hosts);
  for (int64_t move = 0; move < moves; ++move) {
    if (move % 256 == 0) temperature = t0 * std::pow(kCooling, static_cast<double>(move) / static_cast<double>(moves));
    if (progress && moves >= 10 && move % (moves / 10) == 0)
      progress("annealing the host groups: " + std::to_string(move / (moves / 10) * 10) + "%");
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
    ++result.accepted;
    cost += delta;
    if (cost < lowest - 1e-9 * std::abs(lowest)) lowest = cost, best = host;
  }
  result.moves = moves;
  result.slot_of_process.resize(slot_of_process.size());
  for (size_t p = 0; p < slot_of_process.size(); ++p) {
    int from = host_of[p];
    result.slot_of_process[p] = m.first_slot(best[static_cast<size_t>(from)]) + m.local_slot(slot_of_process[p]);
  }
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  result.cpu_seconds = static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC;
  return result;
}

}  // namespace canopy::bench

// Simulated annealing of where host groups go, and of single processes between
// hosts: see placement_steps.h.
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
constexpr double kProcessStartTemperature = 3;  // x the mean bytes of an edge; falls linearly to 0
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

double anneal_processes(const CommGraph &graph, const Machine &m, std::vector<int> &host_of, int64_t moves_per_process,
                        uint64_t seed, const ProgressFn &progress) {
  int vertices = graph.num_vertices();
  int64_t talking = 0;  // the processes that exchange bytes; the free slots' vertices have no edges
  for (int v = 0; v < vertices; ++v) talking += graph.degree(v) > 0;
  int64_t moves = std::min(moves_per_process, std::numeric_limits<int64_t>::max() / std::max<int64_t>(talking, 1)) * talking;
  if (moves <= 0) return 0;
  // on[h]: the vertices host h holds; at[v]: v's index there.
  std::vector<std::vector<int>> on(static_cast<size_t>(m.num_hosts()));
  std::vector<size_t> at(static_cast<size_t>(vertices));
  for (int v = 0; v < vertices; ++v) {
    std::vector<int> &held = on[static_cast<size_t>(host_of[static_cast<size_t>(v)])];
    at[static_cast<size_t>(v)] = held.size();
    held.push_back(v);
  }
  // As the refinement does, no swap takes a host's off-node bytes (what its link carries) above the
  // busiest host's at the start.
  std::vector<double> off = off_node_bytes(graph, m, host_of);
  double cap = *std::max_element(off.begin(), off.end());
  HubBytes hubs(graph, m.num_hosts(), host_of);
  // The cost change of vertex v leaving host `from` for host `to`, where `other` leaves `to` for
  // `from`; adds the changes of the two hosts' off-node bytes to off_from and off_to.
  auto change = [&](int v, int from, int to, int other, double &off_from, double &off_to) {
    if (int hub = hubs.hub(v); hub >= 0) {  // the same sums from its bytes per host, less its edge to `other` (on `to`)
      double to_other = graph.bytes_between(v, other), all = -to_other, delta = to_other * mean_hops(m, from, to);
      for (int y = 0; y < m.num_hosts(); ++y)
        if (double bytes = hubs.bytes(hub, y); bytes != 0) {
          all += bytes;
          delta += bytes * (mean_hops(m, to, y) - mean_hops(m, from, y));
        }
      off_from += 2 * hubs.bytes(hub, from) - all;
      off_to += all - 2 * (hubs.bytes(hub, to) - to_other);
      return delta;
    }
    double delta = 0;
    for (int64_t e = graph.row_begin(v); e < graph.row_end(v); ++e) {
      int partner = graph.neighbor(e);
      if (partner == other) continue;  // their edge keeps its length, and stays between the two hosts
      int there = host_of[static_cast<size_t>(partner)];
      double bytes = graph.weight(e);
      delta += bytes * (mean_hops(m, to, there) - mean_hops(m, from, there));
      off_from += there == from ? bytes : -bytes;  // an edge inside `from` leaves it; any other stops leaving it
      off_to += there == to ? -bytes : bytes;      // an edge to `to` comes inside; any other now leaves it
    }
    return delta;
  };
  double t0 = kProcessStartTemperature * graph.total_bytes() / static_cast<double>(graph.num_edges());
  double cost = 0;  // relative to the start
  std::mt19937_64 rng(seed);
  for (int64_t move = 0; move < moves; ++move) {
    if (progress && moves >= 10 && move % (moves / 10) == 0)
      progress("annealing the processes: " + std::to_string(move / (moves / 10) * 10) + "% of " + std::to_string(moves) + " moves");
    int v = static_cast<int>(rng() % static_cast<uint64_t>(vertices));
    if (graph.degree(v) == 0) continue;
    // Towards a partner: v swaps with any vertex (a free slot's too) on the host of one of its partners.
    int partner = graph.neighbor(graph.row_begin(v) + static_cast<int64_t>(rng() % static_cast<uint64_t>(graph.degree(v))));
    int from = host_of[static_cast<size_t>(v)], to = host_of[static_cast<size_t>(partner)];
    if (from == to) continue;
    const std::vector<int> &there = on[static_cast<size_t>(to)];
    int other = there[rng() % there.size()];
    double off_from = 0, off_to = 0;
    double delta = change(v, from, to, other, off_from, off_to) + change(other, to, from, v, off_to, off_from);
    if ((off_from > 0 && off[static_cast<size_t>(from)] + off_from > cap) ||
        (off_to > 0 && off[static_cast<size_t>(to)] + off_to > cap))
      continue;
    double temperature = t0 * (1 - static_cast<double>(move) / static_cast<double>(moves));
    if (delta > 0 && !(temperature > 0 && std::generate_canonical<double, 53>(rng) < std::exp(-delta / temperature))) continue;
    host_of[static_cast<size_t>(v)] = to, host_of[static_cast<size_t>(other)] = from;
    hubs.moved(v, from, to), hubs.moved(other, to, from);
    off[static_cast<size_t>(from)] += off_from, off[static_cast<size_t>(to)] += off_to;
    std::swap(on[static_cast<size_t>(from)][at[static_cast<size_t>(v)]], on[static_cast<size_t>(to)][at[static_cast<size_t>(other)]]);
    std::swap(at[static_cast<size_t>(v)], at[static_cast<size_t>(other)]);
    cost += delta;
  }
  return -cost;
}

}  // namespace canopy::map

#include "coll/plan/leader_order.h"

#include <algorithm>
#include <deque>

namespace canopy::coll {

const char *leader_order_name(LeaderOrder order) {
  switch (order) {
    case LeaderOrder::None: return "none";
    case LeaderOrder::DepthFirst: return "dft";
    case LeaderOrder::BreadthFirst: return "bft";
  }
  return "?";
}

std::vector<int> bcast_tree_parents(const std::string &algorithm, int n, int knomial_radix) {
  std::vector<int> parent(static_cast<size_t>(n), -1);
  if (algorithm == "chain") {
    for (int v = 1; v < n; ++v) parent[static_cast<size_t>(v)] = v - 1;
    return parent;
  }
  // k-nomial (bcast.cpp's knomial): v's parent clears v's lowest non-zero base-k digit.
  long long radix = algorithm == "knomial" ? knomial_radix : 2;
  for (int v = 1; v < n; ++v) {
    long long mask = 1;
    while (v % (radix * mask) == 0) mask *= radix;
    parent[static_cast<size_t>(v)] = static_cast<int>(v - v % (radix * mask));
  }
  return parent;
}

LeaderLinks LeaderLinks::from(const topo::HostMatrices &m) {
  LeaderLinks links;
  for (int hops : m.hops) links.hops.push_back(static_cast<uint8_t>(std::min(hops, 255)));
  for (double gbps : m.gbps) links.inverse_gbps.push_back(gbps > 0 ? static_cast<float>(1 / gbps) : 0.0f);
  return links;
}

std::optional<LeaderLinks> LeaderLinks::from_rates(const std::vector<double> &gbps) {
  if (std::adjacent_find(gbps.begin(), gbps.end(), std::not_equal_to<>()) == gbps.end()) return std::nullopt;
  LeaderLinks links;
  for (double rate : gbps) links.hca_inverse_gbps.push_back(static_cast<float>(1 / rate));
  return links;
}

DelaysFrom message_delays(const LeaderLinks &links, double hop_latency_us, size_t bytes) {
  auto latency = static_cast<float>(hop_latency_us), kbits = static_cast<float>(8e-3 * static_cast<double>(bytes));
  return [&links, latency, kbits](int from, std::vector<float> &row) {  // Gb/s = kbit/us
    size_t n = row.size(), first = static_cast<size_t>(from) * n;
    if (const std::vector<float> &hca = links.hca_inverse_gbps; !hca.empty())
      for (size_t b = 0; b < n; ++b) row[b] = kbits * std::max(hca[static_cast<size_t>(from)], hca[b]);
    else
      for (size_t b = 0; b < n; ++b) row[b] = links.hops[first + b] * latency + kbits * links.inverse_gbps[first + b];
  };
}

size_t delay_size_class(size_t bytes) {
  size_t size = 1;
  while (size < bytes && size < (size_t{1} << 62)) size <<= 1;
  return size;
}

std::vector<int> order_leaders(const std::vector<int> &parent, int root, const DelaysFrom &delays_from,
                               LeaderOrder order) {
  size_t n = parent.size();
  std::vector<int> leader(n);
  for (size_t p = 0; p < n; ++p) leader[p] = static_cast<int>((static_cast<size_t>(root) + p) % n);
  if (order == LeaderOrder::None || n < 3) return leader;
  // Children with more descendants first (their delays hold up more of the tree).
  std::vector<int> descendants(n, 0);
  for (size_t p = n; p-- > 1;) descendants[static_cast<size_t>(parent[p])] += descendants[p] + 1;
  std::vector<std::vector<int>> children(n);
  for (size_t p = 1; p < n; ++p) children[static_cast<size_t>(parent[p])].push_back(static_cast<int>(p));
  for (std::vector<int> &c : children)
    std::stable_sort(c.begin(), c.end(), [&](int a, int b) { return descendants[a] > descendants[b]; });
  std::vector<bool> placed(n, false);
  placed[static_cast<size_t>(root)] = true;
  leader[0] = root;
  std::vector<float> row(n);
  auto place = [&](int p) {
    delays_from(leader[static_cast<size_t>(parent[p])], row);
    float least = 0;
    bool any = false;
    for (size_t l = 0; l < n; ++l)
      if (!placed[l] && (!any || row[l] < least)) least = row[l], any = true;
    size_t best = 0;
    while (placed[best] || row[best] > least * (1 + kDelayTolerance)) ++best;
    leader[static_cast<size_t>(p)] = static_cast<int>(best);
    placed[best] = true;
  };
  std::deque<int> pending{0};  // breadth first: a queue; depth first: a stack
  while (!pending.empty()) {
    int p = order == LeaderOrder::BreadthFirst ? pending.front() : pending.back();
    if (order == LeaderOrder::BreadthFirst) pending.pop_front();
    else pending.pop_back();
    if (p != 0) place(p);
    const std::vector<int> &c = children[static_cast<size_t>(p)];
    if (order == LeaderOrder::BreadthFirst) pending.insert(pending.end(), c.begin(), c.end());
    else pending.insert(pending.end(), c.rbegin(), c.rend());  // the first child on top
  }
  return leader;
}

}  // namespace canopy::coll

// Refinement: pairwise swaps between hosts that lower inter-node hop-bytes and
// never raise the busiest host's off-node bytes.
#include <algorithm>
#include <numeric>
#include <tuple>
#include <utility>

#include "map/placement_steps.h"

namespace canopy::map {
namespace {

class Refiner {
 public:
  // bytes[v]: all bytes of vertex v.
  Refiner(const CommGraph &g, const Machine &m, std::vector<int> &host_of, const std::vector<double> &bytes)
      : g_(g), m_(m), host_of_(host_of), bytes_(bytes), members_(static_cast<size_t>(m.num_hosts())),
        position_(host_of.size()), partner_bytes_(host_of.size(), 0), here_(host_of.size(), 0),
        off_node_(off_node_bytes(g, m, host_of)) {
    for (size_t v = 0; v < host_of.size(); ++v) {
      auto &list = members_[static_cast<size_t>(host_of[v])];
      position_[v] = static_cast<int>(list.size());
      list.push_back(static_cast<int>(v));
      here_[v] = cost(static_cast<int>(v), host_of[v]);
    }
    off_node_limit_ = *std::max_element(off_node_.begin(), off_node_.end());
  }

  // One pass over the processes, heaviest first; returns the hop-bytes removed.
  double pass(const std::vector<int> &order) {
    double gained = 0;
    for (int v : order) gained += improve(v);
    return gained;
  }

 private:
  // Bytes x links of v's edges if v were on `host` (partners where they are now).
  double cost(int v, int host) const {
    double sum = 0;
    for (int64_t i = g_.row_begin(v); i < g_.row_end(v); ++i)
      sum += g_.weight(i) * m_.hops(host, host_of_[static_cast<size_t>(g_.neighbor(i))]);
    return sum;
  }

  double improve(int v) {
    int h = host_of_[static_cast<size_t>(v)];
    double here = here_[static_cast<size_t>(v)];
    if (here == 0) return 0;
    for (int64_t i = g_.row_begin(v); i < g_.row_end(v); ++i) partner_bytes_[static_cast<size_t>(g_.neighbor(i))] = g_.weight(i);
    double best = -1e-9 * here;  // only real improvements
    int best_u = -1;
    candidates_.clear();
    for (int64_t i = g_.row_begin(v); i < g_.row_end(v); ++i) {
      int target = host_of_[static_cast<size_t>(g_.neighbor(i))];
      if (target != h && std::find(candidates_.begin(), candidates_.end(), target) == candidates_.end()) candidates_.push_back(target);
    }
    for (int target : candidates_) {
      double v_delta = cost(v, target) - here, apart = m_.hops(h, target);
      for (int u : members_[static_cast<size_t>(target)]) {
        // v and u trade hosts; an edge between them keeps its length, which both deltas miscount.
        double u_here = here_[static_cast<size_t>(u)], shared = 2 * partner_bytes_[static_cast<size_t>(u)] * apart;
        // cost(u, h) >= 0: when even 0 there would not beat the best, skip computing it. Exact (rounding
        // is monotone, the sum is formed in the same order), and most u are skipped.
        if (v_delta - u_here + shared >= best) continue;
        double delta = v_delta + cost(u, h) - u_here + shared;
        if (delta < best && within_limit(off_node_after_swap(v, u))) best = delta, best_u = u;
      }
    }
    for (int64_t i = g_.row_begin(v); i < g_.row_end(v); ++i) partner_bytes_[static_cast<size_t>(g_.neighbor(i))] = 0;
    if (best_u < 0) return 0;
    swap(v, best_u);
    return -best;
  }

  // Bytes of x's edges to the vertices on `host` other than x and `except`.
  double bytes_to_host(int x, int host, int except) const {
    double sum = 0;
    for (int64_t i = g_.row_begin(x); i < g_.row_end(x); ++i) {
      int y = g_.neighbor(i);
      if (y != except && host_of_[static_cast<size_t>(y)] == host) sum += g_.weight(i);
    }
    return sum;
  }

  // Off-node bytes of v's host and u's host once v and u trade places. A host
  // that gives up x for y: x's edges inside become cut, x's cut edges leave it,
  // and y's edges into the host stop being cut while the rest of y's are cut.
  std::pair<double, double> off_node_after_swap(int v, int u) const {
    int a = host_of_[static_cast<size_t>(v)], b = host_of_[static_cast<size_t>(u)];
    auto after = [&](int host, int out, int in) {
      double out_inside = bytes_to_host(out, host, out), in_inside = bytes_to_host(in, host, out);
      return off_node_[static_cast<size_t>(host)] + 2 * out_inside - bytes_[static_cast<size_t>(out)] +
             bytes_[static_cast<size_t>(in)] - 2 * in_inside;
    };
    return {after(a, v, u), after(b, u, v)};
  }

  // The busiest host's off-node bytes (a NIC's load) when the refinement started
  // bound every swap: fewer hop-bytes must not come from one host's link carrying
  // more, which sets the step of a bandwidth-bound exchange (docs/mapping.md).
  bool within_limit(std::pair<double, double> off_node) const {
    double limit = off_node_limit_ * (1 + 1e-12);
    return off_node.first <= limit && off_node.second <= limit;
  }

  void swap(int v, int u) {
    int hv = host_of_[static_cast<size_t>(v)], hu = host_of_[static_cast<size_t>(u)];
    // Before host_of_ changes: off_node_after_swap reads where v and u are now.
    std::tie(off_node_[static_cast<size_t>(hv)], off_node_[static_cast<size_t>(hu)]) = off_node_after_swap(v, u);
    int pv = position_[static_cast<size_t>(v)], pu = position_[static_cast<size_t>(u)];
    members_[static_cast<size_t>(hv)][static_cast<size_t>(pv)] = u;
    members_[static_cast<size_t>(hu)][static_cast<size_t>(pu)] = v;
    position_[static_cast<size_t>(v)] = pu;
    position_[static_cast<size_t>(u)] = pv;
    host_of_[static_cast<size_t>(v)] = hu;
    host_of_[static_cast<size_t>(u)] = hv;
    for (int x : {v, u}) {  // the cost where they are changed for both and their partners
      here_[static_cast<size_t>(x)] = cost(x, host_of_[static_cast<size_t>(x)]);
      for (int64_t i = g_.row_begin(x); i < g_.row_end(x); ++i) {
        int y = g_.neighbor(i);
        here_[static_cast<size_t>(y)] = cost(y, host_of_[static_cast<size_t>(y)]);
      }
    }
  }

  const CommGraph &g_;
  const Machine &m_;
  std::vector<int> &host_of_;
  const std::vector<double> &bytes_;       // all bytes of each vertex
  std::vector<std::vector<int>> members_;  // vertices on each host
  std::vector<int> position_;              // index of each vertex in its host's list
  std::vector<double> partner_bytes_;      // bytes to the vertex being improved
  std::vector<double> here_;               // cost(v, host of v), kept current through swaps
  std::vector<double> off_node_;           // bytes of the cut edges at each host, kept current
  double off_node_limit_ = 0;              // no swap takes a host above this
  std::vector<int> candidates_;
};

}  // namespace

double inter_node_hop_bytes(const CommGraph &g, const Machine &m, const std::vector<int> &host_of) {
  double sum = 0;
  for (int v = 0; v < g.num_vertices(); ++v)
    for (int64_t i = g.row_begin(v); i < g.row_end(v); ++i)
      if (v < g.neighbor(i)) sum += g.weight(i) * m.hops(host_of[static_cast<size_t>(v)], host_of[static_cast<size_t>(g.neighbor(i))]);
  return sum;
}

std::vector<double> off_node_bytes(const CommGraph &g, const Machine &m, const std::vector<int> &host_of) {
  std::vector<double> bytes(static_cast<size_t>(m.num_hosts()), 0);
  for (int v = 0; v < g.num_vertices(); ++v) {
    int h = host_of[static_cast<size_t>(v)];
    for (int64_t i = g.row_begin(v); i < g.row_end(v); ++i)
      if (host_of[static_cast<size_t>(g.neighbor(i))] != h) bytes[static_cast<size_t>(h)] += g.weight(i);
  }
  return bytes;
}

double refine_hosts(const CommGraph &g, const Machine &m, std::vector<int> &host_of, int max_passes) {
  if (m.num_hosts() < 2) return 0;
  std::vector<int> order(static_cast<size_t>(g.num_vertices()));
  std::iota(order.begin(), order.end(), 0);
  std::vector<double> bytes(order.size());
  for (int v = 0; v < g.num_vertices(); ++v) bytes[static_cast<size_t>(v)] = g.vertex_bytes(v);
  order.erase(std::remove_if(order.begin(), order.end(), [&](int v) { return bytes[static_cast<size_t>(v)] == 0; }), order.end());
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return bytes[static_cast<size_t>(a)] > bytes[static_cast<size_t>(b)]; });
  Refiner refiner(g, m, host_of, bytes);
  double total = 0, remaining = inter_node_hop_bytes(g, m, host_of);
  for (int p = 0; p < max_passes && remaining > 0; ++p) {
    double gained = refiner.pass(order);
    total += gained;
    remaining -= gained;
    if (gained <= 1e-3 * (remaining + gained)) break;
  }
  return total;
}

}  // namespace canopy::map

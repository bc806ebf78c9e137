// Greedy placement (a LibTopoMap-style baseline).
#include <algorithm>
#include <numeric>
#include <queue>

#include "map/placement_steps.h"

namespace canopy::map {
namespace {

class GreedyPlacer {
 public:
  GreedyPlacer(const CommGraph &g, const Machine &m)
      : g_(g), m_(m), host_of_(static_cast<size_t>(g.num_vertices()), -1),
        room_(static_cast<size_t>(m.num_hosts())), link_(static_cast<size_t>(g.num_vertices()), 0) {
    for (int h = 0; h < m.num_hosts(); ++h) room_[static_cast<size_t>(h)] = m.slots(h);
  }

  std::vector<int> run() {
    std::vector<int> order(static_cast<size_t>(g_.num_vertices()));
    std::iota(order.begin(), order.end(), 0);
    std::vector<double> bytes(order.size());
    for (int v = 0; v < g_.num_vertices(); ++v) bytes[static_cast<size_t>(v)] = g_.vertex_bytes(v);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return bytes[static_cast<size_t>(a)] > bytes[static_cast<size_t>(b)]; });
    int last_host = 0;
    // Each component starts from its heaviest process, next to where the previous one ended.
    for (int start : order) {
      if (host_of_[static_cast<size_t>(start)] >= 0) continue;
      place(start, nearest_with_room(last_host));
      while (!queue_.empty()) {
        auto [link, v] = queue_.top();
        queue_.pop();
        if (host_of_[static_cast<size_t>(v)] >= 0 || link < link_[static_cast<size_t>(v)]) continue;
        place(v, best_host(v));
      }
      last_host = host_of_[static_cast<size_t>(start)];
    }
    return host_of_;
  }

 private:
  void place(int v, int host) {
    host_of_[static_cast<size_t>(v)] = host;
    --room_[static_cast<size_t>(host)];
    for (int64_t i = g_.row_begin(v); i < g_.row_end(v); ++i) {
      int u = g_.neighbor(i);
      if (host_of_[static_cast<size_t>(u)] >= 0) continue;
      link_[static_cast<size_t>(u)] += g_.weight(i);
      queue_.push({link_[static_cast<size_t>(u)], u});
    }
  }

  int nearest_with_room(int from) const {
    int best = -1, best_hops = 0;
    for (int h = 0; h < m_.num_hosts(); ++h)
      if (room_[static_cast<size_t>(h)] > 0) {
        int hops = m_.hops(from, h);
        if (best < 0 || hops < best_hops) best = h, best_hops = hops;
      }
    return best;
  }

  double cost(int v, int host) const {
    double sum = 0;
    for (int64_t i = g_.row_begin(v); i < g_.row_end(v); ++i) {
      int at = host_of_[static_cast<size_t>(g_.neighbor(i))];
      if (at >= 0) sum += g_.weight(i) * m_.hops(host, at);
    }
    return sum;
  }

  // Candidates: the placed partners' hosts with room, and the host with room nearest the heaviest partner.
  int best_host(int v) const {
    int heaviest_at = -1, best = -1;
    double heaviest = -1, best_cost = 0;
    auto consider = [&](int h) {
      if (h < 0 || room_[static_cast<size_t>(h)] == 0) return;
      double c = cost(v, h);
      if (best < 0 || c < best_cost) best = h, best_cost = c;
    };
    for (int64_t i = g_.row_begin(v); i < g_.row_end(v); ++i) {
      int at = host_of_[static_cast<size_t>(g_.neighbor(i))];
      if (at < 0) continue;
      consider(at);
      if (g_.weight(i) > heaviest) heaviest = g_.weight(i), heaviest_at = at;
    }
    if (best < 0 || room_[static_cast<size_t>(heaviest_at)] == 0) consider(nearest_with_room(heaviest_at));
    return best;
  }

  const CommGraph &g_;
  const Machine &m_;
  std::vector<int> host_of_, room_;
  std::vector<double> link_;  // bytes to placed processes
  std::priority_queue<std::pair<double, int>> queue_;
};

}  // namespace

std::vector<int> greedy_hosts(const CommGraph &graph, const Machine &machine) { return GreedyPlacer(graph, machine).run(); }

}  // namespace canopy::map

// Refinement: pairwise swaps between hosts that lower inter-node hop-bytes and
// never raise the busiest host's off-node bytes.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <optional>
#include <tuple>
#include <utility>

#include "map/placement_steps.h"

namespace canopy::map {
namespace {

// The hosts of a process's partners with its bytes to each, (host, bytes) in the
// order the hosts first came, with adds in constant time however many hosts there are.
class PartnerHosts {
 public:
  explicit PartnerHosts(int hosts) : index_(static_cast<size_t>(hosts), -1) {}
  // Adds @p bytes to @p host's entry, a new entry if it has none; true when new.
  bool add(int host, double bytes) {
    int &at = index_[static_cast<size_t>(host)];
    if (at >= 0) {
      entries_[static_cast<size_t>(at)].second += bytes;
      return false;
    }
    at = static_cast<int>(entries_.size());
    entries_.emplace_back(host, bytes);
    return true;
  }
  void clear() {
    for (const auto &entry : entries_) index_[static_cast<size_t>(entry.first)] = -1;
    entries_.clear();
  }
  const std::vector<std::pair<int, double>> &entries() const { return entries_; }

 private:
  std::vector<int> index_;  // per host: its entry, or -1
  std::vector<std::pair<int, double>> entries_;
};

class Refiner {
 public:
  // bytes[v]: all bytes of vertex v. prune: as refine_hosts.
  Refiner(const CommGraph &g, const Machine &m, std::vector<int> &host_of, const std::vector<double> &bytes, bool prune)
      : g_(g), m_(m), host_of_(host_of), bytes_(bytes), prune_(prune), fewest_links_(m.hop_table().fewest_links()),
        first_(static_cast<size_t>(m.num_hosts()) + 1, 0), members_(host_of.size()), slot_of_(host_of.size()),
        partner_bytes_(host_of.size(), 0), off_node_(off_node_bytes(g, m, host_of)), candidates_(m.num_hosts()),
        partner_hosts_(m.num_hosts()), checked_at_(host_of.size(), 0),
        changed_at_(static_cast<size_t>(m.num_hosts()), 0) {
    if (prune_) {  // costing every pair (prune off) is the plain reference the tests compare with
      hubs_.emplace(g, m.num_hosts(), host_of);
      hub_cost_.assign(static_cast<size_t>(hubs_->count()) * static_cast<size_t>(m.num_hosts()), kUnknown);
    }
    for (int h : host_of) ++first_[static_cast<size_t>(h) + 1];
    std::partial_sum(first_.begin(), first_.end(), first_.begin());
    std::vector<size_t> next(first_.begin(), first_.end() - 1);
    for (size_t v = 0; v < host_of.size(); ++v) {
      size_t slot = next[static_cast<size_t>(host_of[v])]++;
      slot_of_[v] = slot;
      members_[slot].vertex = static_cast<int>(v);
      update(static_cast<int>(v));
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
  // A vertex as its host's member: what it costs where it is, and the parts of a
  // lower bound on what it would cost on another host h, `apart` links from its
  // own: apart x inside (its partners on its host stay there) + spread.
  struct Member {
    int vertex;
    double here;    // cost(vertex, its host)
    double inside;  // bytes of its edges to the other vertices on its host
    double spread;  // fewest links x its off-node bytes beyond those to its largest partner host
  };

  // Bytes x links of v's edges if v were on `host` (partners where they are now).
  double cost(int v, int host) {
    if (int hub = hub_of(v); hub >= 0) return hub_cost(hub, host);
    double sum = 0;
    HopTable::From links = m_.hop_table().from(host);
    for (int64_t i = g_.row_begin(v); i < g_.row_end(v); ++i)
      sum += g_.weight(i) * links(host_of_[static_cast<size_t>(g_.neighbor(i))]);
    return sum;
  }

  // The best swap of v with a vertex on the host of one of its partners, as
  // costing every such pair would find it, with less costing:
  // - v is not looked at again until a swap has changed its host or one of its
  //   partners' hosts (what a swap with them would gain);
  // - a pair is costed only where a lower bound on its cost (v's partners on its
  //   host stay there, u's on its host too, the rest cost at least the fewest
  //   links) does not rule it out.
  double improve(int v) {
    int h = host_of_[static_cast<size_t>(v)];
    const Member &mv = members_[slot_of_[static_cast<size_t>(v)]];
    double here = mv.here;
    if (here == 0) return 0;
    long &checked = checked_at_[static_cast<size_t>(v)];
    candidates_.clear();  // the hosts of v's partners but h, with v's bytes to each
    bool unchanged = checked > changed_at_[static_cast<size_t>(h)];
    for (int64_t i = g_.row_begin(v); i < g_.row_end(v); ++i) {
      int target = host_of_[static_cast<size_t>(g_.neighbor(i))];
      if (target != h && candidates_.add(target, g_.weight(i)))
        unchanged = unchanged && checked > changed_at_[static_cast<size_t>(target)];
    }
    if (prune_ && unchanged) return 0;
    for (int64_t i = g_.row_begin(v); i < g_.row_end(v); ++i) partner_bytes_[static_cast<size_t>(g_.neighbor(i))] = g_.weight(i);
    double best = -1e-9 * here;  // only real improvements
    int best_u = -1;
    for (auto [target, bytes_there] : candidates_.entries()) {
      double apart = m_.hops(h, target);
      // v and u trade hosts; an edge between them keeps its length, which both deltas miscount.
      auto shared = [&](const Member &mu) { return 2 * partner_bytes_[static_cast<size_t>(mu.vertex)] * apart; };
      // True when the swap with mu cannot beat the best, with u at its least cost on h and v
      // at v_part + here on target. The margin, relative to every term, is far above rounding,
      // so that no swap the costing would take is ruled out.
      auto ruled_out = [&](double v_part, const Member &mu) {
        double floor = v_part + apart * mu.inside + mu.spread - mu.here + shared(mu);
        return prune_ && floor >= best + 1e-9 * (floor + 2 * (here + mu.here) + std::abs(v_part));
      };
      // v's least cost on target: its partners on h at the links back, those on neither host at the fewest.
      double v_floor = m_.hops(target, h) * mv.inside +
                       fewest_links_ * (bytes_[static_cast<size_t>(v)] - mv.inside - bytes_there) - here;
      unruled_.clear();
      for (size_t s = first_[static_cast<size_t>(target)]; s < first_[static_cast<size_t>(target) + 1]; ++s)
        if (!ruled_out(v_floor, members_[s])) unruled_.push_back(s);
      if (unruled_.empty()) continue;
      double v_delta = cost(v, target) - here;
      for (size_t s : unruled_) {
        const Member &mu = members_[s];
        if (ruled_out(v_delta, mu)) continue;
        double delta = v_delta + cost(mu.vertex, h) - mu.here + shared(mu);
        if (delta < best && within_limit(off_node_after_swap(v, mu.vertex))) best = delta, best_u = mu.vertex;
      }
    }
    for (int64_t i = g_.row_begin(v); i < g_.row_end(v); ++i) partner_bytes_[static_cast<size_t>(g_.neighbor(i))] = 0;
    if (best_u < 0) {
      checked = swaps_ + 1;  // after every change so far
      return 0;
    }
    ++swaps_;
    swap(v, best_u);
    return -best;
  }

  // Bytes of x's edges to the vertices on `host` other than x and `except`.
  double bytes_to_host(int x, int host, int except) const {
    if (int hub = hub_of(x); hub >= 0)
      return hubs_->bytes(hub, host) -
             (host_of_[static_cast<size_t>(except)] == host ? g_.bytes_between(x, except) : 0);
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
      double out_inside = members_[slot_of_[static_cast<size_t>(out)]].inside, in_inside = bytes_to_host(in, host, out);
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
    std::swap(slot_of_[static_cast<size_t>(v)], slot_of_[static_cast<size_t>(u)]);
    members_[slot_of_[static_cast<size_t>(v)]].vertex = v;
    members_[slot_of_[static_cast<size_t>(u)]].vertex = u;
    host_of_[static_cast<size_t>(v)] = hu;
    host_of_[static_cast<size_t>(u)] = hv;
    partner_moved(v, hv, hu);
    partner_moved(u, hu, hv);
    for (int x : {v, u}) {  // changed for both and their partners
      update(x);
      for (int64_t i = g_.row_begin(x); i < g_.row_end(x); ++i) update(g_.neighbor(i));
    }
  }

  // x's Member entry from where its partners are now.
  void update(int x) {
    int host = host_of_[static_cast<size_t>(x)];
    Member &mx = members_[slot_of_[static_cast<size_t>(x)]];
    changed_at_[static_cast<size_t>(host)] = swaps_;
    mx.here = cost(x, host);
    mx.inside = 0;
    double largest = 0;
    if (int hub = hub_of(x); hub >= 0) {
      for (int y = 0; y < m_.num_hosts(); ++y) {
        double bytes = hubs_->bytes(hub, y);
        if (y == host)
          mx.inside = bytes;
        else
          largest = std::max(largest, bytes);
      }
    } else {
      partner_hosts_.clear();
      for (int64_t i = g_.row_begin(x); i < g_.row_end(x); ++i) {
        int y = host_of_[static_cast<size_t>(g_.neighbor(i))];
        if (y == host)
          mx.inside += g_.weight(i);
        else
          partner_hosts_.add(y, g_.weight(i));
      }
      for (const auto &p : partner_hosts_.entries()) largest = std::max(largest, p.second);
    }
    mx.spread = fewest_links_ * (bytes_[static_cast<size_t>(x)] - mx.inside - largest);
  }

  int hub_of(int v) const { return hubs_ ? hubs_->hub(v) : -1; }

  // A hub's cost on `host` (HubBytes): computed from its bytes to each host when
  // first asked, then kept current by partner_moved, so that costing a hub takes
  // constant time and not a pass over all its edges.
  double hub_cost(int hub, int host) {
    double &known = hub_cost_[hubs_->entry(hub, host)];
    if (std::isnan(known)) {
      known = 0;
      HopTable::From links = m_.hop_table().from(host);
      for (int y = 0; y < m_.num_hosts(); ++y)
        if (double bytes = hubs_->bytes(hub, y); bytes != 0) known += bytes * links(y);
    }
    return known;
  }

  // x went from host `from` to host `to`: its hub partners' bytes and costs
  // follow (an unknown cost stays unknown: NaN plus anything is NaN).
  void partner_moved(int x, int from, int to) {
    if (!hubs_ || hubs_->empty()) return;
    hubs_->moved(x, from, to, [&](int hub, double bytes) {
      for (int y = 0; y < m_.num_hosts(); ++y) hub_cost_[hubs_->entry(hub, y)] += bytes * (m_.hops(y, to) - m_.hops(y, from));
    });
  }

  const CommGraph &g_;
  const Machine &m_;
  std::vector<int> &host_of_;
  const std::vector<double> &bytes_;  // all bytes of each vertex
  const bool prune_;
  const double fewest_links_;         // between two hosts
  std::vector<size_t> first_;         // host h's members are members_[first_[h], first_[h + 1])
  std::vector<Member> members_;       // kept current through swaps
  std::vector<size_t> slot_of_;       // index of each vertex in members_
  std::vector<double> partner_bytes_;  // bytes to the vertex being improved
  std::vector<double> off_node_;       // bytes of the cut edges at each host, kept current
  double off_node_limit_ = 0;          // no swap takes a host above this
  PartnerHosts candidates_, partner_hosts_;
  static constexpr double kUnknown = std::numeric_limits<double>::quiet_NaN();
  std::optional<HubBytes> hubs_;  // with pruning
  std::vector<double> hub_cost_;  // per hub and host: its cost there, or kUnknown
  std::vector<size_t> unruled_;  // members of the target host a bound does not rule out
  // Swaps so far; for each vertex, the count after which it was last looked at
  // without a swap found, and for each host the count at its last change.
  long swaps_ = 0;
  std::vector<long> checked_at_, changed_at_;
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

double refine_hosts(const CommGraph &g, const Machine &m, std::vector<int> &host_of, int max_passes, bool prune) {
  if (m.num_hosts() < 2) return 0;
  std::vector<int> order(static_cast<size_t>(g.num_vertices()));
  std::iota(order.begin(), order.end(), 0);
  std::vector<double> bytes(order.size());
  for (int v = 0; v < g.num_vertices(); ++v) bytes[static_cast<size_t>(v)] = g.vertex_bytes(v);
  order.erase(std::remove_if(order.begin(), order.end(), [&](int v) { return bytes[static_cast<size_t>(v)] == 0; }), order.end());
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return bytes[static_cast<size_t>(a)] > bytes[static_cast<size_t>(b)]; });
  Refiner refiner(g, m, host_of, bytes, prune);
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

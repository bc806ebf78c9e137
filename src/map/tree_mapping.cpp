#include "map/tree_mapping.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>
#include <queue>
#include <string>
#include <tuple>
#include <unordered_map>

#include "common/error.h"
#include "map/external_split.h"
#include "map/partition.h"

namespace canopy::map {
namespace {

// The distance between two domains (tree nodes) of a dual recursive walk: the
// average hop count between their places, which is the expected distance of an
// edge between them once both sides are refined further (leaves uniformly
// likely). Representative "centre" places would be cheaper but are not
// faithful: half of a torus wraps around in every dimension but one, so any
// centre is arbitrary and would pull vertices towards one side for no reason.
// Large domains are sampled: kSamples places spread over the leaf list by the
// golden ratio (the lists follow coordinates or switch order, so evenly spaced
// indexes would all share the low-order coordinates).
class DomainDistance {
 public:
  DomainDistance(const TopologyTree &tree, const HopTable &hops) : tree_(tree), hops_(hops), samples_(tree.nodes.size()) {}

  // Cached per pair of large domains: the walk asks for the same pairs split
  // after split (a node's children against every outside domain its vertices
  // talk to). Pairs of small domains, which deep in the tree are most of them
  // (2.1 million on a 65,536-process random graph, 90 MB of cache), cost fewer
  // hop lookups than a hash lookup and are not kept.
  double operator()(int a, int b) {
    const std::vector<int> &sa = samples(a), &sb = samples(b);
    if (sa.size() * sb.size() <= kUncachedLookups) return average(sa, sb);
    uint64_t key = (static_cast<uint64_t>(static_cast<uint32_t>(a)) << 32) | static_cast<uint32_t>(b);
    auto [it, inserted] = cache_.try_emplace(key, 0.0);
    if (inserted) it->second = average(sa, sb);
    return it->second;
  }

 private:
  static constexpr size_t kSamples = 24;
  static constexpr size_t kUncachedLookups = 64;

  double average(const std::vector<int> &sa, const std::vector<int> &sb) const {
    double sum = 0;
    for (int x : sa)
      for (int y : sb) sum += hops_(x, y);
    return sum / static_cast<double>(sa.size() * sb.size());
  }

  const std::vector<int> &samples(int node) {
    std::vector<int> &s = samples_[static_cast<size_t>(node)];
    if (!s.empty()) return s;
    const std::vector<int> &leaves = tree_.nodes[static_cast<size_t>(node)].leaves;
    if (leaves.size() <= kSamples) return s = leaves;
    for (size_t j = 0; j < kSamples; ++j) {
      double position = std::fmod(0.5 + static_cast<double>(j) * 0.6180339887498949, 1.0);
      s.push_back(leaves[static_cast<size_t>(position * static_cast<double>(leaves.size()))]);
    }
    return s;
  }

  const TopologyTree &tree_;
  const HopTable &hops_;
  std::vector<std::vector<int>> samples_;
  std::unordered_map<uint64_t, double> cache_;
};

// Recursive tree mapping, breadth first: every tree node's vertices are split
// among its children once all nodes above have been split, so that with a hop
// matrix each split knows the (as refined as possible) domain of every outside
// partner and puts a vertex on the child nearest its partners (dual recursive
// bipartitioning). Without hops the splits are independent: the paper's walk.
class TreeWalk {
  // Splits of at most this many vertices try no more METIS cuts: its fixed
  // cost per call (about 0.1 ms) would dominate (partition.cpp bisects graphs
  // this small without METIS for the same reason).
  static constexpr int kSmallSplit = 48;
  // METIS seeds tried per split beyond the first: each level of the walk costs
  // about one METIS pass over the whole graph per seed, so small graphs
  // (the 256- and 1,024-process instances) afford more tries.
  static int extra_seeds(int vertices) { return std::clamp(4096 / std::max(vertices, 1), 1, 3); }

 public:
  TreeWalk(const CommGraph &g, const TopologyTree &tree, int seed, std::vector<int> node_capacity, const HopTable *hops)
      : g_(g), tree_(tree), seed_(seed), extra_seeds_(extra_seeds(g.num_vertices())), node_capacity_(std::move(node_capacity)),
        domain_of_(static_cast<size_t>(g.num_vertices()), 0), leaf_of_(domain_of_.size(), -1),
        members_(tree.nodes.size()), scratch_(domain_of_.size(), -1),
        domain_index_(tree.nodes.size(), -1), pending_(tree.nodes.size(), 0), informed_(tree.nodes.size(), 0),
        rank_(tree.nodes.size(), 0) {
    if (hops) distance_.emplace(tree, *hops);
  }

  std::vector<int> run(const ProgressFn &progress) {
    members_[0].resize(domain_of_.size());
    std::iota(members_[0].begin(), members_[0].end(), 0);
    int depth = 0, splits = progress ? tree_.depth() : 0;  // the leaves' level splits nothing
    for (std::vector<int> level{0}; !level.empty(); ++depth) {
      if (depth < splits)
        progress("tree walk on " + std::to_string(g_.num_vertices()) + " vertices, level " + std::to_string(depth + 1) +
                 " of " + std::to_string(splits));
      std::vector<int> next;
      for (int node : split_level(level))
        for (int c : tree_.nodes[static_cast<size_t>(node)].children) next.push_back(c);
      level = std::move(next);
    }
    return std::move(leaf_of_);
  }

 private:
  // Splits every node of one depth; returns them in the order split. Without
  // hops, in tree order. With hops, the node with the most bytes to nodes split
  // before it in this level goes next (Scotch's neighbour-level policy): its
  // split then follows how its neighbours were cut, and the cuts spread like a
  // wave over the graph. A node no split neighbour informs would choose its
  // orientation blindly, and a wrong blind choice taken early would clash with
  // the informed choices of its other neighbours later.
  std::vector<int> split_level(const std::vector<int> &level) {
    if (!distance_) {
      for (int node : level) split(node);
      return level;
    }
    for (size_t i = 0; i < level.size(); ++i) {
      size_t node = static_cast<size_t>(level[i]);
      pending_[node] = 1, informed_[node] = 0, rank_[node] = -static_cast<int>(i);
    }
    // (bytes to split neighbours, -position in the level, node); entries outdated by a later push are skipped.
    std::priority_queue<std::tuple<double, int, int>> queue;
    for (int node : level) queue.emplace(0.0, rank_[static_cast<size_t>(node)], node);
    std::vector<int> order, touched;
    while (!queue.empty()) {
      auto [bytes, rank, node] = queue.top();
      queue.pop();
      if (!pending_[static_cast<size_t>(node)] || bytes != informed_[static_cast<size_t>(node)]) continue;
      pending_[static_cast<size_t>(node)] = 0;
      order.push_back(node);
      std::vector<int> vertices = members_[static_cast<size_t>(node)];
      split(node);
      for (int v : vertices)
        for (int64_t e = g_.row_begin(v); e < g_.row_end(v); ++e) {
          size_t other = static_cast<size_t>(domain_of_[static_cast<size_t>(g_.neighbor(e))]);
          if (!pending_[other]) continue;
          if (pending_[other] == 1) touched.push_back(static_cast<int>(other)), pending_[other] = 2;
          informed_[other] += g_.weight(e);
        }
      for (int other : touched) {
        pending_[static_cast<size_t>(other)] = 1;
        queue.emplace(informed_[static_cast<size_t>(other)], rank_[static_cast<size_t>(other)], other);
      }
      touched.clear();
    }
    return order;
  }

  void split(int node) {
    const TreeNode &t = tree_.nodes[static_cast<size_t>(node)];
    std::vector<int> vertices = std::move(members_[static_cast<size_t>(node)]);
    if (t.children.empty()) {
      for (int v : vertices) leaf_of_[static_cast<size_t>(v)] = t.leaves[0];
      return;
    }
    std::vector<int> part(vertices.size(), 0);
    if (t.children.size() > 1) {
      std::vector<int> sizes;
      for (int c : t.children) sizes.push_back(node_capacity_[static_cast<size_t>(c)]);
      if (single_places(t)) {
        part = sequential_parts(sizes);
      } else {
        CommGraph sub = g_.subgraph(vertices, scratch_);
        part = partition_exact(sub, sizes, seed_);
        if (distance_) dual_split(sub, split_costs(node, vertices), sizes, part);
      }
    }
    for (size_t i = 0; i < vertices.size(); ++i) {
      int child = t.children[static_cast<size_t>(part[i])];
      domain_of_[static_cast<size_t>(vertices[i])] = child;
      members_[static_cast<size_t>(child)].push_back(vertices[i]);
    }
  }

  // Without distances, children that are single places (the cores under a
  // node's package) are interchangeable: the walk's cost sees only which
  // vertices share a tree node, and each of these holds one vertex, so every
  // assignment costs the same and none is searched for (half the intra-node
  // mapping's time on 16-slot hosts was spent cutting packages into cores).
  bool single_places(const TreeNode &t) const {
    return !distance_ && std::all_of(t.children.begin(), t.children.end(), [&](int c) {
             return tree_.nodes[static_cast<size_t>(c)].children.empty() && node_capacity_[static_cast<size_t>(c)] <= 1;
           });
  }

  // Several cuts, each oriented and refined (refine_split), and the cheapest
  // split wins: METIS's (partition_exact); runs of consecutive ranks, as the
  // block placement has them (applications number neighbours close: space-
  // filling curves, lexicographic grids); for a bisection the anchored
  // bisection, which sees the outside partners from the start, or for graphs
  // METIS is too slow for the grown bisection; METIS with the next seeds; and
  // into three or four children, the groupings of the children into two sides
  // that pair other sizes (other_side_groupings), each cut as a bisection and
  // then each side into its children: METIS's cut halves the list of children
  // in order, which pairs their sizes one way only, and another pairing often
  // gives the blocks a better shape (hosts with 8 and 24 slots:
  // docs/mapping-history.md).
  // No cut is always best: anchors steer METIS towards the outside partners
  // but sometimes cost it a clean internal cut, and METIS's cuts vary with the
  // seed. Measured on the benchmark: each added cut lowered torus hop-bytes by
  // up to 10-20% on some instance (stencils, AMR), fat-tree ones by 1-3%.
  // A cut whose oriented cost is this many times the best one's is not refined:
  // swaps move a boundary locally, they do not make up for a worse cut.
  static constexpr double kHopeless = 1.25;

  void dual_split(const CommGraph &sub, const SplitCosts &costs, const std::vector<int> &sizes, std::vector<int> &part) {
    // Cuts as they came, before refining: METIS's seeds and the anchored
    // bisection often return the very same cut (a third of the splits above
    // kSmallSplit on the benchmark), whose refinement (deterministic) would give
    // the same cost again and could not win. So the result is the same.
    std::vector<std::vector<int>> tried{part};
    double best = refine_split(sub, costs, part);
    auto consider = [&](std::vector<int> other) {
      if (other.empty() || std::find(tried.begin(), tried.end(), other) != tried.end()) return;
      tried.push_back(other);
      double cost = refine_split(sub, costs, other, kHopeless * best);
      if (cost < best) best = cost, part = std::move(other);
    };
    // The vertices are in rank order: child c gets the c-th run of ranks.
    std::vector<int> in_rank_order;
    for (size_t c = 0; c < sizes.size(); ++c)
      in_rank_order.insert(in_rank_order.end(), static_cast<size_t>(sizes[c]), static_cast<int>(c));
    consider(std::move(in_rank_order));
    bool small = sub.num_vertices() <= kSmallSplit;
    if (costs.parts == 2) consider(small ? grown_bisection(sub, costs, sizes) : anchored_bisection(sub, costs, sizes, seed_));
    if (!small)
      for (int i = 1; i <= extra_seeds_; ++i) consider(partition_exact(sub, sizes, seed_ + i));
    for (const std::vector<int> &side : other_side_groupings(sizes)) consider(partition_exact(sub, sizes, seed_, side));
  }

  // Distances between the children, and every vertex's bytes x distance to its
  // partners outside the node from each child.
  SplitCosts split_costs(int node, const std::vector<int> &vertices) {
    const std::vector<int> &children = tree_.nodes[static_cast<size_t>(node)].children;
    size_t k = children.size();
    SplitCosts costs;
    costs.parts = static_cast<int>(k);
    costs.distance.assign(k * k, 0);
    for (size_t a = 0; a < k; ++a)
      for (size_t b = a + 1; b < k; ++b) costs.distance[a * k + b] = costs.distance[b * k + a] = (*distance_)(children[a], children[b]);
    // The outside domains touched, each one's distance to every child computed once.
    std::vector<int> outside;
    std::vector<double> to_child;  // [outside index * k + child]
    auto index_of = [&](int domain) {
      int &index = domain_index_[static_cast<size_t>(domain)];
      if (index < 0) {
        index = static_cast<int>(outside.size());
        outside.push_back(domain);
        for (int c : children) to_child.push_back((*distance_)(c, domain));
      }
      return static_cast<size_t>(index);
    };
    costs.external.assign(vertices.size() * k, 0);
    for (size_t i = 0; i < vertices.size(); ++i)
      for (int64_t e = g_.row_begin(vertices[i]); e < g_.row_end(vertices[i]); ++e) {
        int domain = domain_of_[static_cast<size_t>(g_.neighbor(e))];
        if (domain == node) continue;
        size_t o = index_of(domain);
        for (size_t c = 0; c < k; ++c) costs.external[i * k + c] += g_.weight(e) * to_child[o * k + c];
      }
    for (int domain : outside) domain_index_[static_cast<size_t>(domain)] = -1;
    return costs;
  }

  const CommGraph &g_;
  const TopologyTree &tree_;
  int seed_, extra_seeds_;
  std::vector<int> node_capacity_;  // vertices each tree node takes
  std::optional<DomainDistance> distance_;
  std::vector<int> domain_of_;  // the tree node each vertex is in now
  std::vector<int> leaf_of_;
  std::vector<std::vector<int>> members_;  // vertices waiting at each tree node
  std::vector<int> scratch_;               // for subgraph()
  std::vector<int> domain_index_;          // per tree node: index in the outside list of the split at hand
  // Per tree node, for the level being split: waiting (1; 2 while being counted), bytes to
  // split neighbours, and minus its position in the level (ties go to the earlier node).
  std::vector<char> pending_;
  std::vector<double> informed_;
  std::vector<int> rank_;
};

// The cost change of moving every vertex v in `moved` to leaf target[v].
double move_delta(const CommGraph &g, const HopTable &distance, const std::vector<int> &leaf_of,
                  const std::vector<int> &moved, const std::vector<int> &target) {
  double delta = 0;
  auto at = [&](int v) { return target[static_cast<size_t>(v)] >= 0 ? target[static_cast<size_t>(v)] : leaf_of[static_cast<size_t>(v)]; };
  for (int v : moved)
    for (int64_t i = g.row_begin(v); i < g.row_end(v); ++i) {
      int u = g.neighbor(i);
      // An edge between two moved vertices is seen from both ends: count half each time.
      double share = target[static_cast<size_t>(u)] >= 0 ? 0.5 : 1.0;
      delta += share * g.weight(i) * (distance(at(v), at(u)) - distance(leaf_of[static_cast<size_t>(v)], leaf_of[static_cast<size_t>(u)]));
    }
  return delta;
}

}  // namespace

double swap_subtrees(const CommGraph &g, const TopologyTree &tree, const HopTable &distance,
                     std::vector<int> &leaf_of, int max_passes) {
  size_t n = leaf_of.size();
  std::vector<int> vertex_at(n), target(n, -1), moved;
  for (size_t v = 0; v < n; ++v) vertex_at[static_cast<size_t>(leaf_of[v])] = static_cast<int>(v);
  double removed = 0;
  for (int pass = 0; pass < max_passes; ++pass) {
    double gained = 0;
    for (const TreeNode &node : tree.nodes)
      for (size_t a = 0; a < node.children.size(); ++a)
        for (size_t b = a + 1; b < node.children.size(); ++b) {
          const std::vector<int> &la = tree.nodes[static_cast<size_t>(node.children[a])].leaves;
          const std::vector<int> &lb = tree.nodes[static_cast<size_t>(node.children[b])].leaves;
          if (la.size() != lb.size()) continue;
          moved.clear();
          for (size_t i = 0; i < la.size(); ++i) {
            int va = vertex_at[static_cast<size_t>(la[i])], vb = vertex_at[static_cast<size_t>(lb[i])];
            target[static_cast<size_t>(va)] = lb[i];
            target[static_cast<size_t>(vb)] = la[i];
            moved.push_back(va);
            moved.push_back(vb);
          }
          double delta = move_delta(g, distance, leaf_of, moved, target);
          for (int v : moved) {
            if (delta < -1e-9) {
              leaf_of[static_cast<size_t>(v)] = target[static_cast<size_t>(v)];
              vertex_at[static_cast<size_t>(target[static_cast<size_t>(v)])] = v;
            }
            target[static_cast<size_t>(v)] = -1;
          }
          if (delta < -1e-9) gained -= delta;
        }
    removed += gained;
    if (gained == 0) break;
  }
  return removed;
}

std::vector<int> map_on_tree(const CommGraph &graph, const TopologyTree &tree, int seed, const std::vector<int> &capacity,
                             const HopTable *hops, const ProgressFn &progress) {
  size_t places = tree.nodes.empty() ? 0 : tree.nodes[0].leaves.size();
  if (!capacity.empty() && capacity.size() != places)
    throw Error(CANOPY_ERR_INVALID_ARG, "tree mapping: " + std::to_string(capacity.size()) + " capacities for " +
                                            std::to_string(places) + " places");
  std::vector<int> node_capacity;
  for (const TreeNode &node : tree.nodes) {
    int64_t sum = 0;
    for (int leaf : node.leaves) sum += capacity.empty() ? 1 : capacity[static_cast<size_t>(leaf)];
    node_capacity.push_back(static_cast<int>(sum));
  }
  if (places == 0 || node_capacity[0] != graph.num_vertices())
    throw Error(CANOPY_ERR_INVALID_ARG, "tree mapping: " + std::to_string(graph.num_vertices()) + " vertices for " +
                                            std::to_string(places) + " places taking " +
                                            std::to_string(places ? node_capacity[0] : 0));
  if (hops && hops->size() != places)
    throw Error(CANOPY_ERR_INVALID_ARG, "tree mapping: distances between " + std::to_string(hops->size()) + " places for " +
                                            std::to_string(places));
  return TreeWalk(graph, tree, seed, std::move(node_capacity), hops).run(progress);
}

}  // namespace canopy::map

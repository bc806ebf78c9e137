#include "map/topology_tree.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <random>
#include <unordered_map>

#include "common/error.h"

namespace canopy::map {
namespace {

struct Dendrogram {  // binary merges: node i < n is leaf i, node n + k is the k-th merge
  std::vector<int> left, right;
  std::vector<float> height;
};

// Nearest-neighbour chain over average-linkage distances (reducible, so the
// chain finds exactly the merges of the greedy algorithm, in O(n^2)).
//
// A merge rewrites one row of the matrix only, never the column: the column
// writes (one cache line per active slot, across the whole matrix) were 3/4 of
// the time at 4,096 hosts. The current distance of two slots is then in the row
// rewritten last (`written` orders the rows); a row is brought up to date when
// it is scanned, from the rows rewritten since. The values and the scan
// order are those of writing both, so the merges are the same.
Dendrogram nn_chain(std::vector<float> d, int n) {
  std::vector<int> cluster(static_cast<size_t>(n));  // dendrogram node held by each slot
  std::iota(cluster.begin(), cluster.end(), 0);
  std::vector<int> size(static_cast<size_t>(n), 1);
  // The active slots in increasing order: scans and updates visit only these
  // (half the work of testing every slot), in the same order, so ties go the same way.
  std::vector<int> active(static_cast<size_t>(n));
  std::iota(active.begin(), active.end(), 0);
  std::vector<int64_t> written(static_cast<size_t>(n), 0);  // when each row was last made current
  int64_t clock = 0;
  Dendrogram out;
  std::vector<int> chain;
  auto at = [&](int a, int b) -> float & { return d[static_cast<size_t>(a) * n + b]; };
  auto written_at = [&](int a) -> int64_t & { return written[static_cast<size_t>(a)]; };
  // Copies into row a the entries of the rows written after it; then row a is current.
  auto refresh = [&](int a) {
    float *row = &at(a, 0);
    for (int x : active)
      if (written_at(x) > written_at(a)) row[x] = at(x, a);
    written_at(a) = ++clock;
  };
  for (int merges = 0; merges < n - 1;) {
    if (chain.empty()) chain.push_back(active.front());
    int a = chain.back(), previous = chain.size() > 1 ? chain[chain.size() - 2] : -1;
    refresh(a);
    // Nearest active slot; ties go to the previous chain element, so the chain always ends.
    int best = previous;
    float best_d = previous >= 0 ? at(a, previous) : INFINITY;
    const float *row = &at(a, 0);
    for (int x : active)
      if (x != a && row[x] < best_d) best = x, best_d = row[x];
    if (best != previous) {
      chain.push_back(best);
      continue;
    }
    chain.pop_back();
    chain.pop_back();
    // Merge `previous` into slot a (Lance-Williams update for average linkage).
    int b = previous;
    refresh(b);  // merges further up the chain may have rewritten rows since b was scanned
    float sa = static_cast<float>(size[static_cast<size_t>(a)]), sb = static_cast<float>(size[static_cast<size_t>(b)]);
    float *row_a = &at(a, 0);
    const float *row_b = &at(b, 0);
    for (int x : active) {
      if (x == a || x == b) continue;
      row_a[x] = (sa * row_a[x] + sb * row_b[x]) / (sa + sb);
    }
    written_at(a) = ++clock;
    out.left.push_back(cluster[static_cast<size_t>(a)]);
    out.right.push_back(cluster[static_cast<size_t>(b)]);
    out.height.push_back(best_d);
    cluster[static_cast<size_t>(a)] = n + merges++;
    size[static_cast<size_t>(a)] += size[static_cast<size_t>(b)];
    active.erase(std::lower_bound(active.begin(), active.end(), b));
  }
  return out;
}

// Fills leaves bottom-up from the children's.
void collect_leaves(TopologyTree &tree, int node) {
  TreeNode &t = tree.nodes[static_cast<size_t>(node)];
  if (t.children.empty()) return;
  for (int c : t.children) {
    collect_leaves(tree, c);
    const std::vector<int> &sub = tree.nodes[static_cast<size_t>(c)].leaves;
    tree.nodes[static_cast<size_t>(node)].leaves.insert(tree.nodes[static_cast<size_t>(node)].leaves.end(), sub.begin(), sub.end());
  }
}

}  // namespace

int TopologyTree::depth() const {
  std::function<int(int)> depth_of = [&](int node) {
    int deepest = 0;
    for (int c : nodes[static_cast<size_t>(node)].children) deepest = std::max(deepest, 1 + depth_of(c));
    return deepest;
  };
  return nodes.empty() ? 0 : depth_of(0);
}

TopologyTree neighbor_joining_tree(std::vector<float> distance, int n, unsigned seed) {
  if (n < 1 || distance.size() != static_cast<size_t>(n) * n)
    throw Error(CANOPY_ERR_INVALID_ARG, "neighbor joining needs an n x n distance matrix");
  // Row i of the shuffled matrix is place[i] of the input (no copy without a seed: 64 MiB at 4,096 hosts).
  std::vector<int> place(static_cast<size_t>(n));
  std::iota(place.begin(), place.end(), 0);
  if (seed) {
    std::shuffle(place.begin(), place.end(), std::mt19937(seed));
    std::vector<float> shuffled(distance.size());
    for (size_t i = 0; i < place.size(); ++i)
      for (size_t j = 0; j < place.size(); ++j)
        shuffled[i * place.size() + j] = distance[static_cast<size_t>(place[i]) * place.size() + static_cast<size_t>(place[j])];
    distance = std::move(shuffled);
  }
  Dendrogram merges = nn_chain(std::move(distance), n);
  // Children of each dendrogram node after collapsing merges made at the same
  // height into one multi-way node (merges come after the merges they join).
  std::vector<std::vector<int>> kids(static_cast<size_t>(2 * n - 1));
  for (size_t k = 0; k < merges.left.size(); ++k)
    for (int child : {merges.left[k], merges.right[k]}) {
      auto &mine = kids[static_cast<size_t>(n) + k];
      bool same_height = child >= n && std::fabs(merges.height[static_cast<size_t>(child - n)] - merges.height[k]) < 1e-4f;
      if (same_height) mine.insert(mine.end(), kids[static_cast<size_t>(child)].begin(), kids[static_cast<size_t>(child)].end());
      else mine.push_back(child);
    }
  TopologyTree tree;
  tree.kind = "neighbor-joining";
  // Renumber from the root down; dendrogram node -> tree node.
  std::vector<int> order{2 * n - 2};
  tree.nodes.emplace_back();
  for (size_t i = 0; i < order.size(); ++i) {
    int dn = order[i];
    if (dn < n) {
      tree.nodes[i].leaves = {place[static_cast<size_t>(dn)]};
      continue;
    }
    for (int child : kids[static_cast<size_t>(dn)]) {
      tree.nodes[i].children.push_back(static_cast<int>(tree.nodes.size()));
      tree.nodes.emplace_back();
      order.push_back(child);
    }
  }
  collect_leaves(tree, 0);
  return tree;
}

TopologyTree fabric_hierarchy_tree(const topo::Topology &topo, const std::vector<int> &hosts) {
  topo::Hierarchy h = topo::host_hierarchy(topo, hosts);
  std::unordered_map<int, int> position;  // topology node -> allocation index
  for (size_t i = 0; i < hosts.size(); ++i) position.emplace(hosts[i], static_cast<int>(i));
  TopologyTree tree;
  tree.kind = "fabric-hierarchy";
  tree.nodes.resize(h.nodes.size());
  for (size_t i = 0; i < h.nodes.size(); ++i) {
    tree.nodes[i].children = h.nodes[i].children;
    if (!h.nodes[i].children.empty()) continue;
    for (int host : h.nodes[i].hosts) {  // a leaf-switch group: one tree leaf per host
      tree.nodes[i].children.push_back(static_cast<int>(tree.nodes.size()));
      tree.nodes.push_back({{}, {position.at(host)}});
    }
  }
  collect_leaves(tree, 0);
  return tree;
}

TopologyTree coordinate_bisection_tree(const std::vector<std::vector<int>> &coords) {
  if (coords.empty()) throw Error(CANOPY_ERR_INVALID_ARG, "no coordinates to bisect");
  TopologyTree tree;
  tree.kind = "coordinate-bisection";
  tree.nodes.emplace_back();
  tree.nodes[0].leaves.resize(coords.size());
  std::iota(tree.nodes[0].leaves.begin(), tree.nodes[0].leaves.end(), 0);
  for (size_t i = 0; i < tree.nodes.size(); ++i) {
    std::vector<int> points = tree.nodes[i].leaves;
    if (points.size() < 2) continue;
    size_t dims = coords[static_cast<size_t>(points[0])].size(), widest = 0;
    int widest_extent = -1;
    for (size_t d = 0; d < dims; ++d) {
      auto [lo, hi] = std::minmax_element(points.begin(), points.end(),
                                          [&](int a, int b) { return coords[static_cast<size_t>(a)][d] < coords[static_cast<size_t>(b)][d]; });
      int extent = coords[static_cast<size_t>(*hi)][d] - coords[static_cast<size_t>(*lo)][d] + 1;
      if (extent > widest_extent) widest_extent = extent, widest = d;
    }
    // Median split along the widest dimension; ties broken by the other coordinates, then by index.
    std::sort(points.begin(), points.end(), [&](int a, int b) {
      const auto &ca = coords[static_cast<size_t>(a)], &cb = coords[static_cast<size_t>(b)];
      if (ca[widest] != cb[widest]) return ca[widest] < cb[widest];
      return ca != cb ? ca < cb : a < b;
    });
    size_t half = points.size() / 2;
    for (auto [from, to] : {std::pair<size_t, size_t>{0, half}, {half, points.size()}}) {
      tree.nodes[i].children.push_back(static_cast<int>(tree.nodes.size()));
      tree.nodes.push_back({{}, std::vector<int>(points.begin() + static_cast<long>(from), points.begin() + static_cast<long>(to))});
    }
  }
  return tree;
}

}  // namespace canopy::map

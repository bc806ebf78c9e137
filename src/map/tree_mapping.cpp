#include "map/tree_mapping.h"

#include <numeric>
#include <string>

#include "common/error.h"
#include "map/partition.h"

namespace canopy::map {
namespace {

// vertices[i] is the original id of vertex i of `graph`.
void map_subtree(const CommGraph &graph, const std::vector<int> &vertices, const TopologyTree &tree, int node, int seed,
                 int per_leaf, std::vector<int> &leaf_of) {
  const TreeNode &t = tree.nodes[static_cast<size_t>(node)];
  if (t.children.empty()) {
    for (int v : vertices) leaf_of[static_cast<size_t>(v)] = t.leaves[0];
    return;
  }
  if (t.children.size() == 1) return map_subtree(graph, vertices, tree, t.children[0], seed, per_leaf, leaf_of);
  std::vector<int> sizes;
  for (int c : t.children) sizes.push_back(per_leaf * static_cast<int>(tree.nodes[static_cast<size_t>(c)].leaves.size()));
  std::vector<int> part = partition_exact(graph, sizes, seed);
  std::vector<std::vector<int>> members(t.children.size());  // local ids per child
  for (size_t v = 0; v < part.size(); ++v) members[static_cast<size_t>(part[v])].push_back(static_cast<int>(v));
  for (size_t c = 0; c < t.children.size(); ++c) {
    std::vector<int> original;
    for (int v : members[c]) original.push_back(vertices[static_cast<size_t>(v)]);
    map_subtree(graph.subgraph(members[c]), original, tree, t.children[c], seed, per_leaf, leaf_of);
  }
}

// The cost change of moving every vertex v in `moved` to leaf target[v].
double move_delta(const CommGraph &g, const std::vector<uint16_t> &distance, size_t n, const std::vector<int> &leaf_of,
                  const std::vector<int> &moved, const std::vector<int> &target) {
  double delta = 0;
  auto at = [&](int v) { return target[static_cast<size_t>(v)] >= 0 ? target[static_cast<size_t>(v)] : leaf_of[static_cast<size_t>(v)]; };
  for (int v : moved)
    for (int64_t i = g.row_begin(v); i < g.row_end(v); ++i) {
      int u = g.neighbor(i);
      // An edge between two moved vertices is seen from both ends: count half each time.
      double share = target[static_cast<size_t>(u)] >= 0 ? 0.5 : 1.0;
      delta += share * g.weight(i) *
               (static_cast<double>(distance[static_cast<size_t>(at(v)) * n + static_cast<size_t>(at(u))]) -
                distance[static_cast<size_t>(leaf_of[static_cast<size_t>(v)]) * n + static_cast<size_t>(leaf_of[static_cast<size_t>(u)])]);
    }
  return delta;
}

}  // namespace

double swap_subtrees(const CommGraph &g, const TopologyTree &tree, const std::vector<uint16_t> &distance,
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
          double delta = move_delta(g, distance, n, leaf_of, moved, target);
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

std::vector<int> map_on_tree(const CommGraph &graph, const TopologyTree &tree, int seed, int per_leaf) {
  if (tree.nodes.empty() || static_cast<int64_t>(tree.nodes[0].leaves.size()) * per_leaf != graph.num_vertices())
    throw Error(CANOPY_ERR_INVALID_ARG, "tree mapping: " + std::to_string(graph.num_vertices()) + " vertices for " +
                                            std::to_string(tree.nodes.empty() ? 0 : tree.nodes[0].leaves.size()) +
                                            " places of " + std::to_string(per_leaf));
  std::vector<int> vertices(static_cast<size_t>(graph.num_vertices()));
  std::iota(vertices.begin(), vertices.end(), 0);
  std::vector<int> leaf_of(vertices.size(), -1);
  map_subtree(graph, vertices, tree, 0, seed, per_leaf, leaf_of);
  return leaf_of;
}

}  // namespace canopy::map

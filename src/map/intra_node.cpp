// Intra-node mapping: each host's processes onto its slots, by recursive tree
// mapping on the node's hwloc tree (the paper's section 3.2).
#include <map>

#include "map/placement_steps.h"
#include "map/tree_mapping.h"

namespace canopy::map {
namespace {

// The tree of the first @p slots slots of a node: neighbor joining on their
// distances in the hwloc tree (levels up to the cores' common ancestor).
TopologyTree node_tree(const NodeLayout &layout, int slots) {
  size_t n = static_cast<size_t>(slots);
  std::vector<float> distance;
  for (size_t a = 0; a < n; ++a)
    for (size_t b = 0; b < n; ++b) distance.push_back(static_cast<float>(layout.slot_distance(static_cast<int>(a), static_cast<int>(b))));
  TopologyTree tree = neighbor_joining_tree(std::move(distance), slots);
  tree.kind = "hwloc";
  return tree;
}

}  // namespace

std::vector<int> place_in_nodes(const CommGraph &g, const Machine &m, const std::vector<int> &host_of, bool on_node_tree,
                                int seed) {
  std::vector<std::vector<int>> members(static_cast<size_t>(m.num_hosts()));
  for (size_t v = 0; v < host_of.size(); ++v) members[static_cast<size_t>(host_of[v])].push_back(static_cast<int>(v));
  std::map<int, TopologyTree> trees;  // by the hosts' number of slots
  std::vector<int> slot_of(host_of.size(), -1), scratch(host_of.size(), -1);
  for (int h = 0; h < m.num_hosts(); ++h) {
    const std::vector<int> &list = members[static_cast<size_t>(h)];
    std::vector<int> local(list.size());
    for (size_t i = 0; i < list.size(); ++i) local[i] = static_cast<int>(i);
    // A host whose processes do not talk to each other keeps them in order.
    if (on_node_tree && m.node()) {
      CommGraph sub = g.subgraph(list, scratch);
      if (sub.num_edges() > 0) {
        auto tree = trees.find(m.slots(h));
        if (tree == trees.end()) tree = trees.emplace(m.slots(h), node_tree(*m.node(), m.slots(h))).first;
        local = map_on_tree(sub, tree->second, seed);
      }
    }
    for (size_t i = 0; i < list.size(); ++i) slot_of[static_cast<size_t>(list[i])] = m.first_slot(h) + local[i];
  }
  return slot_of;
}

}  // namespace canopy::map

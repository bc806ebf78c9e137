// Intra-node mapping: each host's processes onto its slots, by recursive tree
// mapping on the node's hwloc tree (the paper's section 3.2).
#include "map/placement_steps.h"
#include "map/tree_mapping.h"

namespace canopy::map {

std::vector<int> place_in_nodes(const CommGraph &g, const Machine &m, const std::vector<int> &host_of,
                                const TopologyTree *node_tree, int seed) {
  std::vector<std::vector<int>> members(static_cast<size_t>(m.num_hosts()));
  for (size_t v = 0; v < host_of.size(); ++v) members[static_cast<size_t>(host_of[v])].push_back(static_cast<int>(v));
  std::vector<int> slot_of(host_of.size(), -1), scratch(host_of.size(), -1);
  for (int h = 0; h < m.num_hosts(); ++h) {
    const std::vector<int> &list = members[static_cast<size_t>(h)];
    std::vector<int> local(list.size());
    for (size_t i = 0; i < list.size(); ++i) local[i] = static_cast<int>(i);
    // A host whose processes do not talk to each other keeps them in order.
    if (node_tree) {
      CommGraph sub = g.subgraph(list, scratch);
      if (sub.num_edges() > 0) local = map_on_tree(sub, *node_tree, seed);
    }
    for (size_t i = 0; i < list.size(); ++i) slot_of[static_cast<size_t>(list[i])] = h * m.slots_per_host() + local[i];
  }
  return slot_of;
}

}  // namespace canopy::map

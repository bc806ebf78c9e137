// Breadth-first hop counts over a Topology's links, for the unit tests and
// fuzz targets: the shortest-path reference a router's answer must match.
#pragma once
#include <deque>
#include <vector>

#include "topo/topology.h"

namespace canopy::test {

/** Links on the shortest path from @p from to every node (-1: unreachable),
    following Port.peer_node only. */
inline std::vector<int> bfs_hops(const topo::Topology &topo, int from) {
  std::vector<int> hops(topo.nodes().size(), -1);
  std::deque<int> queue{from};
  hops[from] = 0;
  while (!queue.empty()) {
    int n = queue.front();
    queue.pop_front();
    for (const topo::Port &port : topo.node(n).ports)
      if (port.connected() && hops[port.peer_node] < 0) {
        hops[port.peer_node] = hops[n] + 1;
        queue.push_back(port.peer_node);
      }
  }
  return hops;
}

}  // namespace canopy::test

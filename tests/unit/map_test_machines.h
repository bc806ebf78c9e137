// Machines for the mapping tests: fat trees built through the Topology API
// (optionally with scattered allocations) and tori from coordinate files, plus
// communication graphs with a known structure (3D stencils, random graphs).
#pragma once
#include <algorithm>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "fabric_builder.h"
#include "map/comm_graph.h"
#include "map/machine.h"
#include "topo/loaders/loaders.h"

namespace canopy::test {

/** A two-level fat tree: @p leaves leaf switches with @p hosts_per_leaf hosts
    each (named n0, n1, ... leaf by leaf), every leaf linked to each of @p spines spines. */
inline std::shared_ptr<const topo::Topology> fat_tree(int leaves, int hosts_per_leaf, int spines) {
  FabricBuilder b;
  std::vector<int> spine;
  for (int s = 0; s < spines; ++s) spine.push_back(b.add_switch("spine" + std::to_string(s), leaves));
  for (int l = 0; l < leaves; ++l) {
    int leaf = b.add_switch("leaf" + std::to_string(l), hosts_per_leaf + spines);
    for (int h = 0; h < hosts_per_leaf; ++h) b.add_host("n" + std::to_string(l * hosts_per_leaf + h), leaf, h + 1);
    for (int s = 0; s < spines; ++s) b.link(leaf, hosts_per_leaf + 1 + s, spine[static_cast<size_t>(s)], l + 1);
  }
  b.topo.finalize();
  return std::make_shared<const topo::Topology>(std::move(b.topo));
}

/** The torus file of a torus (wrap in every dimension) with one host per
    router, hosts named t0, t1, ... in router order (first dimension fastest). */
inline std::string torus_text(const std::vector<int> &dims) {
  std::string text = "dims";
  for (int d : dims) text += " " + std::to_string(d);
  text += "\n";
  int total = 1;
  for (int d : dims) total *= d;
  for (int i = 0, rest = 0; i < total; ++i) {
    text += "host t" + std::to_string(i);
    rest = i;
    for (int d : dims) text += " " + std::to_string(rest % d), rest /= d;
    text += "\n";
  }
  return text;
}

/** That torus (torus_text) loaded. */
inline std::shared_ptr<const topo::Topology> torus(const std::vector<int> &dims) {
  return std::make_shared<const topo::Topology>(topo::load_torus(torus_text(dims), "test.torus"));
}

/** All hosts of @p topo, in node order or shuffled (a scattered allocation). */
inline std::vector<int> all_hosts(const topo::Topology &topo, unsigned shuffle_seed = 0) {
  std::vector<int> hosts = topo.hosts();
  if (shuffle_seed) std::shuffle(hosts.begin(), hosts.end(), std::mt19937(shuffle_seed));
  return hosts;
}

/** An X x Y x Z 7-point stencil (no wrap-around), @p bytes per neighbour pair, x fastest. */
inline map::CommGraph stencil_3d(int x, int y, int z, double bytes = 1) {
  map::CommGraphBuilder b(x * y * z);
  auto id = [&](int i, int j, int k) { return i + x * (j + y * k); };
  for (int k = 0; k < z; ++k)
    for (int j = 0; j < y; ++j)
      for (int i = 0; i < x; ++i) {
        if (i + 1 < x) b.add(id(i, j, k), id(i + 1, j, k), bytes);
        if (j + 1 < y) b.add(id(i, j, k), id(i, j + 1, k), bytes);
        if (k + 1 < z) b.add(id(i, j, k), id(i, j, k + 1), bytes);
      }
  return b.build();
}

/** A random graph: @p edges random pairs, volumes 0 to 1000 bytes (some zero). */
inline map::CommGraph random_graph(int n, int edges, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> vertex(0, n - 1), bytes(0, 1000);
  map::CommGraphBuilder b(n);
  for (int e = 0; e < edges; ++e) b.add(vertex(rng), vertex(rng), bytes(rng) < 50 ? 0 : bytes(rng));
  return b.build();
}

}  // namespace canopy::test

// Scotch's static mapping as the `scotch` algorithm: the target built for each
// kind of machine (tleaf from the switch hierarchy, torus, mesh, a target graph
// otherwise; sub-architectures for partial allocations), obvious optima found,
// one-to-one placements on random graphs and allocations, determinism.
#include <gtest/gtest.h>

#include <random>

#include "common/error.h"
#include "map/mapping.h"
#include "map/metrics.h"
#include "map_test_machines.h"
#include "topo/loaders/loaders.h"

namespace canopy::map {
namespace {

using test::all_hosts;

Problem problem_on(std::shared_ptr<const topo::Topology> topo, std::vector<int> hosts, int ppn, CommGraph graph) {
  return Problem{std::move(graph), Machine(std::move(topo), std::move(hosts), ppn)};
}

MapResult scotch(const Problem &p, int seed = 1) {
  MapOptions o;
  o.algorithm = "scotch";
  o.seed = seed;
  MapResult r = map_processes(p, o);
  check_placement(p, r.slot_of_process);
  return r;
}

double hop_bytes(const Problem &p, const std::vector<int> &slots) { return evaluate(p, slots).hop_bytes; }

// Two cliques of @p size (heavy inside), numbered alternately so that identity
// splits both, joined by one light edge.
CommGraph interleaved_cliques(int size) {
  CommGraphBuilder b(2 * size);
  for (int i = 0; i < size; ++i)
    for (int j = i + 1; j < size; ++j) b.add(2 * i, 2 * j, 1000), b.add(2 * i + 1, 2 * j + 1, 1000);
  b.add(0, 1, 1);
  return b.build();
}

std::shared_ptr<const topo::Topology> torus_file(const std::string &text) {
  return std::make_shared<const topo::Topology>(topo::load_torus(text, "test.torus"));
}

// Every router of a DIMS torus/mesh (given as "x y z") with one host, wrap as given.
std::string torus_text(const std::vector<int> &dims, const std::string &wrap) {
  std::string text = "dims";
  for (int d : dims) text += " " + std::to_string(d);
  text += "\nwrap " + wrap + "\n";
  for (int i = 0; i < dims[0] * dims[1] * dims[2]; ++i)
    text += "host t" + std::to_string(i) + " " + std::to_string(i % dims[0]) + " " + std::to_string(i / dims[0] % dims[1]) +
            " " + std::to_string(i / dims[0] / dims[1]) + "\n";
  return text;
}

TEST(ScotchMapping, TwoCliquesOntoTwoHostsBehindDifferentLeaves) {
  auto topo = test::fat_tree(2, 2, 1);  // n0 n1 on leaf0, n2 n3 on leaf1
  Problem p = problem_on(topo, {topo->find_host("n0"), topo->find_host("n2")}, 4, interleaved_cliques(4));
  ASSERT_EQ(p.machine.hops(0, 1), 4);
  EXPECT_GT(hop_bytes(p, identity_placement(p)), 1000);
  MapResult r = scotch(p);
  EXPECT_EQ(r.algorithm, "scotch");
  EXPECT_EQ(r.target.rfind("tleaf", 0), 0u) << r.target;
  EXPECT_DOUBLE_EQ(hop_bytes(p, r.slot_of_process), 4);  // only the light edge crosses
  EXPECT_TRUE(r.refined_from.empty());
  EXPECT_FALSE(r.intra_node);
}

TEST(ScotchMapping, TleafFollowsTheSwitchHierarchyWithCoresLast) {
  auto topo = test::fat_tree(4, 4, 2);
  Problem full = problem_on(topo, all_hosts(*topo), 8, test::stencil_3d(8, 4, 4));
  EXPECT_EQ(scotch(full).target, "tleaf 4x4x8");  // leaves x hosts per leaf x cores
  // A scattered, partial allocation over all four leaves, at most three hosts on
  // one: a 4 x 3 x 8 tree restricted to the 6 hosts' slots.
  std::vector<int> hosts;
  for (const char *name : {"n10", "n0", "n5", "n15", "n2", "n1"}) hosts.push_back(topo->find_host(name));
  Problem part = problem_on(topo, hosts, 8, test::stencil_3d(4, 4, 3));
  MapResult r = scotch(part);
  EXPECT_EQ(r.target, "tleaf 4x3x8 (sub 48 of 96)");
  EXPECT_LT(hop_bytes(part, r.slot_of_process), hop_bytes(part, identity_placement(part)));
}

TEST(ScotchMapping, StencilOnTorusNodesReachesTheBlockOptimum) {
  // 4x4x4 processes on a 2x2x2 torus of 8-slot hosts: optimum 144, a 2x2x2 cube per
  // host (see test_map_algorithms.cpp), which Scotch's torus mapping finds.
  auto topo = test::torus({2, 2, 2});
  Problem p = problem_on(topo, all_hosts(*topo, 3), 8, test::stencil_3d(4, 4, 4));
  MapResult r = scotch(p);
  EXPECT_EQ(r.target, "torus 2x2x2");
  EXPECT_DOUBLE_EQ(hop_bytes(p, r.slot_of_process), 144);
  EXPECT_GT(hop_bytes(p, identity_placement(p)), 144);
}

TEST(ScotchMapping, TorusMeshAndTargetGraph) {
  CommGraph graph = test::stencil_3d(4, 4, 4);
  struct Case {
    std::string wrap, kind;
    double slack;  // how far above the optimum Scotch may stay
  };
  for (const Case &c : {Case{"1 1 1", "torus 4x4x4", 1.2}, Case{"0 0 0", "mesh 4x4x4", 1.2},
                        Case{"1 1 0", "graph of 64 hosts", 1.5}}) {
    auto topo = torus_file(torus_text({4, 4, 4}, c.wrap));
    Problem p = problem_on(topo, all_hosts(*topo, 5), 1, graph);
    MapResult r = scotch(p);
    EXPECT_EQ(r.target, c.kind);
    // A 4x4x4 stencil on a 4x4x4 machine: optimum 144 edges x 3 links (host, router, router, host).
    EXPECT_LE(hop_bytes(p, r.slot_of_process), 3 * 144 * c.slack) << c.kind;
    EXPECT_LT(hop_bytes(p, r.slot_of_process), hop_bytes(p, identity_placement(p))) << c.kind;
  }
  // Part of the torus: a sub-architecture of the allocated routers.
  auto topo = torus_file(torus_text({4, 4, 4}, "1 1 1"));
  std::vector<int> hosts = all_hosts(*topo, 7);
  hosts.resize(20);
  Problem p = problem_on(topo, hosts, 2, test::random_graph(37, 80, 3));
  EXPECT_EQ(scotch(p).target, "torus 4x4x4 (sub 20 of 64)");
}

TEST(ScotchMapping, MoreThanFiveDimensionsGetATargetGraph) {
  // Scotch's torus target stops at 5 dimensions: a 2^6 torus is mapped on the graph of its hosts.
  std::string text = "dims 2 2 2 2 2 2\nwrap 1 1 1 1 1 1\n";
  for (int i = 0; i < 64; ++i) {
    text += "host t" + std::to_string(i);
    for (int d = 0; d < 6; ++d) text += " " + std::to_string(i >> d & 1);
    text += "\n";
  }
  auto topo = torus_file(text);
  Problem p = problem_on(topo, all_hosts(*topo, 3), 1, test::random_graph(64, 150, 1));
  EXPECT_EQ(scotch(p).target, "graph of 64 hosts");
}

TEST(ScotchMapping, RoutesOffTheHierarchyGetATargetGraph) {
  // Three switches in a line, two hosts each: hosts on the end switches are 4 links
  // apart, on neighbouring switches 3: no tree of switch groups has these distances.
  test::FabricBuilder b;
  int s0 = b.add_switch("s0"), s1 = b.add_switch("s1"), s2 = b.add_switch("s2");
  b.link(s0, 5, s1, 5);
  b.link(s1, 6, s2, 5);
  std::vector<int> hosts;
  for (int s : {s0, s1, s2})
    for (int port = 1; port <= 2; ++port) hosts.push_back(b.add_host("h" + std::to_string(hosts.size()), s, port));
  b.topo.finalize();
  auto topo = std::make_shared<const topo::Topology>(std::move(b.topo));
  Problem p = problem_on(topo, hosts, 2, interleaved_cliques(6));
  ASSERT_EQ(p.machine.hops(0, 4), 4);
  MapResult r = scotch(p);
  EXPECT_EQ(r.target.rfind("graph of 6 hosts", 0), 0u) << r.target;
  // Each clique of 6 fills three neighbouring hosts' worth of slots at best.
  EXPECT_LT(hop_bytes(p, r.slot_of_process), hop_bytes(p, identity_placement(p)));
}

TEST(ScotchMapping, OneToOneOnRandomGraphsAndAllocations) {
  for (unsigned seed = 1; seed <= 24; ++seed) {
    std::mt19937 rng(seed);
    auto topo = seed % 3 == 0 ? test::torus({3, 4, 2}) : seed % 3 == 1 ? test::fat_tree(6, 5, 3) : test::fat_tree(3, 4, 1);
    std::vector<int> hosts = all_hosts(*topo, seed);
    hosts.resize(static_cast<size_t>(std::uniform_int_distribution<int>(1, static_cast<int>(hosts.size()))(rng)));
    int ppn = std::uniform_int_distribution<int>(1, 5)(rng);
    int slots = static_cast<int>(hosts.size()) * ppn;
    int processes = seed % 2 ? slots : std::uniform_int_distribution<int>(1, slots)(rng);
    Problem p = problem_on(topo, hosts, ppn, test::random_graph(processes, processes * 3, seed));
    MapResult r;
    ASSERT_NO_THROW(r = scotch(p, static_cast<int>(seed))) << "seed " << seed;
    EXPECT_EQ(r.slot_of_process.size(), static_cast<size_t>(processes));
    EXPECT_FALSE(r.target.empty());
  }
}

TEST(ScotchMapping, SameSeedSameMapping) {
  auto topo = test::fat_tree(4, 4, 2);
  Problem p = problem_on(topo, all_hosts(*topo, 9), 4, test::random_graph(64, 200, 4));
  EXPECT_EQ(scotch(p, 3).slot_of_process, scotch(p, 3).slot_of_process);
}

// Scotch ORs its seed with 1: without Canopy doubling it, seeds 2k and 2k + 1 map alike.
TEST(ScotchMapping, NeighbouringSeedsMapApart) {
  auto topo = test::fat_tree(4, 4, 2);
  Problem p = problem_on(topo, all_hosts(*topo, 9), 4, test::random_graph(64, 200, 4));
  int differing = 0;
  for (int k = 1; k <= 4; ++k) differing += scotch(p, 2 * k).slot_of_process != scotch(p, 2 * k + 1).slot_of_process;
  EXPECT_GE(differing, 1);
}

TEST(ScotchMapping, OneHostNeedsNoScotch) {
  auto topo = test::fat_tree(1, 2, 1);
  Problem p = problem_on(topo, {topo->find_host("n1")}, 4, test::random_graph(3, 4, 1));
  MapResult r = scotch(p);
  EXPECT_EQ(r.target, "none (one host)");
  EXPECT_DOUBLE_EQ(hop_bytes(p, r.slot_of_process), 0);
}

}  // namespace
}  // namespace canopy::map

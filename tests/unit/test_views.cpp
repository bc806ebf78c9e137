// Matrices, leaf grouping, hierarchy tree and summary over model fabrics.
#include <gtest/gtest.h>

#include <cstdlib>
#include <thread>

#include "fabric_builder.h"
#include "loader_test_util.h"
#include "topo/source.h"
#include "topo/views.h"

using namespace canopy;
using namespace canopy::topo;
using canopy::test::TwoLevelFatTree;

TEST(Views, HopSpeedAndDelayMatrices) {
  TwoLevelFatTree f;
  int slow = f.add_host("slow", f.leaf2, 5, ib_rate(4, LinkSpeed::SDR));
  f.topo.finalize();
  setenv("CANOPY_TOPO_HOP_LATENCY_US", "0.5", 1);
  setenv("CANOPY_TOPO_DELAY_BYTES", "1000", 1);
  HostMatrices m = host_matrices(f.topo, {f.h1, f.h2, f.h3, slow});
  unsetenv("CANOPY_TOPO_HOP_LATENCY_US");
  unsetenv("CANOPY_TOPO_DELAY_BYTES");
  ASSERT_EQ(m.n, 4);
  EXPECT_EQ(m.hops, (std::vector<int>{0, 2, 4, 4, 2, 0, 4, 4, 4, 4, 0, 2, 4, 4, 2, 0}));
  EXPECT_DOUBLE_EQ(m.gbps[0 * 4 + 2], 32.0);
  EXPECT_DOUBLE_EQ(m.gbps[0 * 4 + 3], 8.0);
  EXPECT_DOUBLE_EQ(m.gbps[3 * 4 + 3], 8.0);
  EXPECT_DOUBLE_EQ(m.delay_us[0], 0.0);
  EXPECT_DOUBLE_EQ(m.delay_us[0 * 4 + 1], 2 * 0.5 + 8000.0 / 32e3);
  EXPECT_DOUBLE_EQ(m.delay_us[0 * 4 + 3], 4 * 0.5 + 8000.0 / 8e3);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) EXPECT_EQ(m.hops[i * 4 + j], m.hops[j * 4 + i]);
}

// host_matrices finds the rest of the routes once per switch; every entry must still be what the
// route between the two hosts, found alone, gives: forwarding tables, dimension order on tori,
// shortest paths, a host with two cables (its routes its own), unequal rates, a host listed twice.
TEST(Views, MatricesEqualEveryRouteFoundAlone) {
  auto expect_routes_alone = [](const Topology &topo, const std::string &what) {
    std::vector<int> hosts(topo.hosts().rbegin(), topo.hosts().rend());
    hosts.push_back(hosts.front());
    HostMatrices m = host_matrices(topo, hosts);
    size_t n = hosts.size();
    for (size_t i = 0; i < n; ++i)
      for (size_t j = 0; j < n; ++j) {
        Route route = find_route(topo, hosts[i], hosts[j]);
        ASSERT_EQ(m.hops[i * n + j], route.links()) << what << " " << i << " -> " << j;
        ASSERT_DOUBLE_EQ(m.gbps[i * n + j], route_min_gbps(topo, route)) << what << " " << i << " -> " << j;
      }
  };
  expect_routes_alone(load_topology(test::data_path("cli/two-switch-dump")), "forwarding tables");
  expect_routes_alone(load_topology(test::data_path("torus/mixed3d.torus")), "torus");
  TwoLevelFatTree f;
  int slow = f.add_host("slow", f.leaf2, 5, ib_rate(4, LinkSpeed::SDR));
  int twice = f.topo.add_node(NodeType::Host, f.next_guid++, "twice HCA-1", 2);
  f.link(twice, 1, f.leaf1, 6, ib_rate(4, LinkSpeed::DDR));
  f.link(twice, 2, f.leaf2, 6);
  f.topo.finalize();
  ASSERT_GE(slow, 0);
  expect_routes_alone(f.topo, "shortest paths");
}

// Routes kept across calls (canopyd's per snapshot) give the matrices found without them: on
// overlapping host lists, in threads sharing them, and with no room to keep any.
TEST(Views, KeptRoutesGiveTheSameMatrices) {
  Topology topo = load_topology(test::data_path("cli/two-switch-dump"));
  const std::vector<int> &all = topo.hosts();
  std::vector<std::vector<int>> lists = {all, {all[1], all[0]}, {all.back(), all[0], all.back()}, {all[2]}};
  auto expect_same = [&](RouteTails &kept) {
    for (const std::vector<int> &hosts : lists) {
      HostMatrices fresh = host_matrices(topo, hosts), again = host_matrices(topo, hosts, &kept);
      EXPECT_EQ(again.hops, fresh.hops);
      EXPECT_EQ(again.gbps, fresh.gbps);
      EXPECT_EQ(again.delay_us, fresh.delay_us);
    }
  };
  RouteTails kept(topo, size_t{1} << 20), none(topo, 0);
  expect_same(kept);
  expect_same(kept);  // now from what was kept
  expect_same(none);
  RouteTails shared(topo, size_t{1} << 20);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) threads.emplace_back([&] { expect_same(shared); });
  for (std::thread &t : threads) t.join();
}

TEST(Views, TwoLevelHierarchyGroupsByLeafSwitch) {
  TwoLevelFatTree f;
  Hierarchy tree = host_hierarchy(f.topo, {f.h3, f.h1, f.h4, f.h2});
  ASSERT_EQ(tree.levels, 2);
  const HierarchyNode &root = tree.nodes[0];
  EXPECT_EQ(root.parent, -1);
  EXPECT_EQ(root.hosts.size(), 4u);
  ASSERT_EQ(root.children.size(), 2u);
  const HierarchyNode &first = tree.nodes[root.children[0]];
  EXPECT_EQ(first.switch_node, f.leaf2);
  EXPECT_EQ(first.hosts, (std::vector<int>{f.h3, f.h4}));
  EXPECT_EQ(tree.nodes[root.children[1]].hosts, (std::vector<int>{f.h1, f.h2}));
  auto groups = leaf_groups(f.topo, {f.h1, f.h2, f.h3});
  EXPECT_EQ(groups, (std::vector<std::vector<int>>{{f.h1, f.h2}, {f.h3}}));
}

TEST(Views, ThreeLevelHierarchyGroupsPods) {
  // Two pods of two leaves each; each pod has its own aggregation switch; one core.
  canopy::test::FabricBuilder b;
  int core = b.add_switch("core");
  std::vector<int> hosts;
  for (int pod = 0; pod < 2; ++pod) {
    int agg = b.add_switch("agg" + std::to_string(pod));
    b.link(agg, 16, core, pod + 1);
    for (int l = 0; l < 2; ++l) {
      int leaf = b.add_switch("leaf" + std::to_string(pod) + std::to_string(l));
      b.link(leaf, 16, agg, l + 1);
      for (int h = 0; h < 2; ++h) hosts.push_back(b.add_host("h" + std::to_string(hosts.size()), leaf, h + 1));
    }
  }
  b.topo.finalize();
  Hierarchy tree = host_hierarchy(b.topo, hosts);
  ASSERT_EQ(tree.levels, 3);
  ASSERT_EQ(tree.nodes[0].children.size(), 2u);  // pods
  for (int pod : tree.nodes[0].children) {
    EXPECT_EQ(tree.nodes[pod].level, 2);
    EXPECT_EQ(tree.nodes[pod].hosts.size(), 4u);
    ASSERT_EQ(tree.nodes[pod].children.size(), 2u);  // leaves
    for (int leaf : tree.nodes[pod].children) EXPECT_EQ(tree.nodes[leaf].hosts.size(), 2u);
  }
  EXPECT_EQ(b.topo.node(core).level, 3);
  Summary s = summarize(b.topo);
  EXPECT_EQ(s.levels, 3);
  EXPECT_EQ(s.diameter, 6);
  EXPECT_EQ(s.hosts, 8);
  EXPECT_EQ(s.switches, 7);
}

TEST(Views, SummaryCountsRatesAndProblems) {
  TwoLevelFatTree f;
  f.route_all_through_spine_b();
  Summary s = summarize(f.topo);
  EXPECT_EQ(s.links, 8);
  EXPECT_EQ(s.rates.at("4xQDR"), 8);
  EXPECT_EQ(s.diameter, 4);
  EXPECT_EQ(s.forwarding_tables, 4);
  EXPECT_EQ(s.forwarding.problems, 0u);
  f.forward(f.spine_b, f.h1, Topology::kNoPort);
  f.topo.finalize();
  EXPECT_EQ(summarize(f.topo).forwarding.problems, 1u);
}

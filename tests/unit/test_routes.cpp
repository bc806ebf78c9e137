// Routes over the model: forwarding tables followed hop by hop, holes and
// loops reported, shortest paths without tables, dimension order on tori.
#include <gtest/gtest.h>

#include <algorithm>

#include "common/error.h"
#include "fabric_builder.h"
#include "topo/routes.h"

using namespace canopy;
using namespace canopy::topo;
using canopy::test::TwoLevelFatTree;

namespace {
std::vector<int> nodes_of(const Route &route) {
  std::vector<int> nodes;
  for (const RouteHop &hop : route.hops) nodes.push_back(hop.node);
  return nodes;
}
}  // namespace

TEST(Routes, ShortestPathWithoutForwardingTables) {
  TwoLevelFatTree f;
  Route same_leaf = find_route(f.topo, f.h1, f.h2);
  EXPECT_EQ(same_leaf.method, RouteMethod::ShortestPath);
  EXPECT_EQ(nodes_of(same_leaf), (std::vector<int>{f.h1, f.leaf1, f.h2}));
  EXPECT_EQ(same_leaf.hops[1].in_port, 1);
  EXPECT_EQ(same_leaf.hops[1].out_port, 2);
  Route across = find_route(f.topo, f.h1, f.h4);
  EXPECT_EQ(across.links(), 4);
  EXPECT_EQ(across.hops.front().in_port, 0);
  EXPECT_EQ(across.hops.back().out_port, 0);
  EXPECT_EQ(find_route(f.topo, f.h3, f.h3).links(), 0);
}

TEST(Routes, FollowsForwardingTablesNotShortestPath) {
  TwoLevelFatTree f;
  f.route_all_through_spine_b();
  Route route = find_route(f.topo, f.h1, f.h3);
  EXPECT_EQ(route.method, RouteMethod::Lft);
  EXPECT_EQ(nodes_of(route), (std::vector<int>{f.h1, f.leaf1, f.spine_b, f.leaf2, f.h3}));
  EXPECT_EQ(route.hops[1].out_port, 4);
  EXPECT_EQ(route.hops[2].in_port, 1);
  EXPECT_EQ(route.hops[2].out_port, 2);
  EXPECT_EQ(route.hops[3].in_port, 4);
  EXPECT_EQ(route.hops[4].in_port, 1);
  EXPECT_EQ(check_forwarding_tables(f.topo).problems, 0u);
}

TEST(Routes, ReportsHoles) {
  TwoLevelFatTree f;
  f.route_all_through_spine_b();
  f.forward(f.spine_b, f.h3, Topology::kNoPort);
  f.topo.finalize();
  EXPECT_EQ(guard([&] { find_route(f.topo, f.h1, f.h3); }), CANOPY_ERR_ROUTE);
  EXPECT_NE(std::string(canopy_last_error()).find("hole"), std::string::npos);
  ForwardingCheck check = check_forwarding_tables(f.topo);
  ASSERT_EQ(check.problems, 1u);
  ASSERT_EQ(check.first.size(), 1u);
  EXPECT_EQ(check.first[0].switch_node, f.spine_b);
  EXPECT_EQ(check.first[0].lid, f.topo.node(f.h3).lid);
  // Counted whole, kept only up to the limit (an unrouted dump has a problem per pair).
  f.forward(f.spine_b, f.h1, Topology::kNoPort);
  f.topo.finalize();
  check = check_forwarding_tables(f.topo, 1);
  EXPECT_EQ(check.problems, 2u);
  EXPECT_EQ(check.first.size(), 1u);
}

// Hosts are checked a block at a time, switch by switch; the problems kept are still the first
// ones host by host: h1's hole sits on a switch checked after the one of h3's.
TEST(Routes, KeptProblemsComeHostByHost) {
  TwoLevelFatTree f;
  f.route_all_through_spine_b();
  f.forward(f.leaf1, f.h3, Topology::kNoPort);
  f.forward(f.spine_b, f.h1, Topology::kNoPort);
  f.topo.finalize();
  ASSERT_LT(std::find(f.topo.switches().begin(), f.topo.switches().end(), f.leaf1),
            std::find(f.topo.switches().begin(), f.topo.switches().end(), f.spine_b));
  ForwardingCheck check = check_forwarding_tables(f.topo, 1);
  EXPECT_EQ(check.problems, 2u);
  ASSERT_EQ(check.first.size(), 1u);
  EXPECT_EQ(check.first[0].lid, f.topo.node(f.h1).lid);
  EXPECT_EQ(check.first[0].switch_node, f.spine_b);
  check = check_forwarding_tables(f.topo);
  ASSERT_EQ(check.first.size(), 2u);
  EXPECT_EQ(check.first[1].lid, f.topo.node(f.h3).lid);
}

TEST(Routes, ReportsLoops) {
  TwoLevelFatTree f;
  f.route_all_through_spine_b();
  f.forward(f.spine_b, f.h3, 1);  // back down to leaf 1, which sends it up again
  f.topo.finalize();
  EXPECT_EQ(guard([&] { find_route(f.topo, f.h2, f.h3); }), CANOPY_ERR_ROUTE);
  EXPECT_NE(std::string(canopy_last_error()).find("loop"), std::string::npos);
  std::vector<ForwardingProblem> problems = check_forwarding_tables(f.topo).first;
  ASSERT_FALSE(problems.empty());
  EXPECT_EQ(problems[0].what, "forwarding loop");
}

TEST(Routes, ReportsDownEgressPort) {
  TwoLevelFatTree f;
  f.route_all_through_spine_b();
  f.forward(f.leaf1, f.h3, 9);  // nothing cabled on port 9
  f.topo.finalize();
  EXPECT_EQ(guard([&] { find_route(f.topo, f.h1, f.h3); }), CANOPY_ERR_ROUTE);
  EXPECT_NE(std::string(canopy_last_error()).find("down"), std::string::npos);
}

TEST(Routes, SlowestLinkOnTheRoute) {
  TwoLevelFatTree f;
  int h5 = f.add_host("h5", f.leaf2, 5, ib_rate(4, LinkSpeed::SDR));
  f.topo.finalize();
  EXPECT_DOUBLE_EQ(route_min_gbps(f.topo, find_route(f.topo, f.h1, f.h3)), 32.0);
  EXPECT_DOUBLE_EQ(route_min_gbps(f.topo, find_route(f.topo, f.h1, h5)), 8.0);
  EXPECT_DOUBLE_EQ(route_min_gbps(f.topo, find_route(f.topo, h5, h5)), 8.0);
}

namespace {
// A ring (or line) of routers r0..r(n-1) in one dimension, one host on each.
struct Ring : canopy::test::FabricBuilder {
  std::vector<int> routers, hosts;
  Ring(int n, bool wrap) {
    for (int i = 0; i < n; ++i) {
      routers.push_back(add_switch("r" + std::to_string(i), 3));
      topo.node(routers.back()).coords = {i};
    }
    for (int i = 0; i + 1 < n + (wrap ? 1 : 0); ++i) link(routers[i], 2, routers[(i + 1) % n], 1);
    for (int i = 0; i < n; ++i) {
      hosts.push_back(add_host("n" + std::to_string(i), routers[i], 3));
      topo.node(hosts.back()).coords = {i};
    }
    topo.set_torus({{n}, {wrap}});
    topo.finalize();
  }
};
}  // namespace

TEST(Routes, DimensionOrderTakesTheShortWayRound) {
  Ring torus(8, true);
  Route route = find_route(torus.topo, torus.hosts[0], torus.hosts[7]);
  EXPECT_EQ(route.method, RouteMethod::DimensionOrder);
  EXPECT_EQ(nodes_of(route), (std::vector<int>{torus.hosts[0], torus.routers[0], torus.routers[7], torus.hosts[7]}));
  EXPECT_EQ(route.links(), 2 + torus.topo.torus()->distance({0}, {7}));
  Ring mesh(8, false);
  EXPECT_EQ(find_route(mesh.topo, mesh.hosts[0], mesh.hosts[7]).links(), 2 + 7);
  EXPECT_EQ(find_route(mesh.topo, mesh.hosts[6], mesh.hosts[2]).links(), 2 + 4);
}

TEST(Routes, TorusDistance) {
  TorusShape shape{{4, 4, 8}, {true, false, true}};
  EXPECT_EQ(shape.distance({0, 0, 0}, {3, 3, 7}), 1 + 3 + 1);
  EXPECT_EQ(shape.distance({1, 2, 3}, {1, 2, 3}), 0);
  EXPECT_EQ(shape.distance({0, 0, 0}, {2, 0, 4}), 2 + 4);
}

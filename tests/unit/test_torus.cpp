// Torus/mesh coordinate files: grid construction, wrap-around rules, host
// attachment, distances, and every malformed case at the right file:line.
#include <gtest/gtest.h>

#include <chrono>
#include <random>
#include <set>
#include <string>

#include "common/params.h"
#include "loader_test_helpers.h"
#include "topo/loaders/loaders.h"
#include "topo/views.h"

using namespace canopy;
using namespace canopy::topo;
using canopy::test::bfs_hops;
using canopy::test::test_data;

namespace {
Topology load(const std::string &text) { return load_torus(text, "grid.torus"); }
std::string failure(const std::string &text) {
  return canopy::test::parse_failure([&] { load(text); });
}
// Router-to-router links, as unordered node pairs; fails on self or doubled links.
std::set<std::pair<int, int>> router_links(const Topology &topo) {
  std::set<std::pair<int, int>> pairs;
  for (const Link &l : topo.links()) {
    if (!topo.node(l.node_a).is_switch() || !topo.node(l.node_b).is_switch()) continue;
    EXPECT_NE(l.node_a, l.node_b);
    EXPECT_TRUE(pairs.insert({std::min(l.node_a, l.node_b), std::max(l.node_a, l.node_b)}).second);
  }
  return pairs;
}
}  // namespace

TEST(Torus, ShapeDistanceWithAndWithoutWrap) {
  TorusShape ring{{8}, {true}}, line{{8}, {false}};
  EXPECT_EQ(ring.distance({0}, {7}), 1);
  EXPECT_EQ(line.distance({0}, {7}), 7);
  EXPECT_EQ(ring.distance({1}, {5}), 4);
  TorusShape mixed{{4, 3, 2}, {true, false, true}};
  EXPECT_EQ(mixed.distance({0, 0, 0}, {3, 2, 1}), 1 + 2 + 1);
}

TEST(Torus, RingOfEight) {
  Topology topo = load_torus(test_data("torus/ring8.torus"), "ring8.torus");
  EXPECT_EQ(topo.switches().size(), 8u);
  EXPECT_EQ(topo.hosts().size(), 8u);
  EXPECT_EQ(topo.links().size(), 8u + 8u);
  ASSERT_TRUE(topo.torus());
  EXPECT_EQ(topo.torus()->dims, std::vector<int>{8});
  EXPECT_EQ(topo.torus()->wrap, std::vector<bool>{true});  // default: torus
  EXPECT_EQ(topo.source(), "torus:ring8.torus");
  const Node &r7 = topo.node(7);
  EXPECT_EQ(r7.description, "router(7)");
  EXPECT_EQ(r7.guid, 0x5200000000000007ULL);
  EXPECT_EQ(r7.ports[2].peer_node, 0);  // plus port wraps to router 0's minus port
  EXPECT_EQ(r7.ports[2].peer_port, 1);
  EXPECT_EQ(r7.ports[2].rate, plain_rate(50));
  std::vector<int> hops = bfs_hops(topo, topo.find_host("r0"));
  EXPECT_EQ(hops[topo.find_host("r7")], 1 + 2);
  EXPECT_EQ(hops[topo.find_host("r4")], 4 + 2);
}

TEST(Torus, MeshRingHasNoWrapLink) {
  Topology topo = load("dims 8\nwrap 0\nhost a 0\nhost b 7\n");
  EXPECT_EQ(router_links(topo).size(), 7u);
  EXPECT_FALSE(topo.node(7).ports[2].connected());
  EXPECT_FALSE(topo.node(0).ports[1].connected());
  EXPECT_EQ(bfs_hops(topo, topo.find_host("a"))[topo.find_host("b")], 7 + 2);
  EXPECT_EQ(topo.node(0).ports[1 + 2].rate, plain_rate(param_double("topo_default_gbps")));
}

TEST(Torus, Mixed3DGridHopsEqualTorusDistance) {
  Topology topo = load_torus(test_data("torus/mixed3d.torus"), "mixed3d.torus");
  const TorusShape &shape = *topo.torus();
  EXPECT_EQ(topo.switches().size(), 24u);
  // x: 4-ring x 6 = 24 links; y: mesh of 3, 2 links x 8 = 16; z: extent 2, one link x 12 = 12.
  EXPECT_EQ(router_links(topo).size(), 24u + 16u + 12u);
  const Node &r = topo.node(1 + 4 * (2 + 3 * 1));
  EXPECT_EQ(r.description, "router(1,2,1)");
  EXPECT_EQ(r.coords, (std::vector<int>{1, 2, 1}));
  for (int a : topo.switches()) {
    std::vector<int> hops = bfs_hops(topo, a);
    for (int b : topo.switches()) ASSERT_EQ(hops[b], shape.distance(topo.node(a).coords, topo.node(b).coords));
  }
  for (int a : topo.hosts()) {
    std::vector<int> hops = bfs_hops(topo, a);
    for (int b : topo.hosts()) {
      if (a == b) continue;
      EXPECT_EQ(hops[b], shape.distance(topo.node(a).coords, topo.node(b).coords) + 2);
    }
  }
}

TEST(Torus, HostsAttachToTheirRouterAfterTheDimensionPorts) {
  Topology topo = load_torus(test_data("torus/mixed3d.torus"), "mixed3d.torus");
  int c = topo.find_host("c"), d = topo.find_host("d");
  EXPECT_EQ(topo.node(c).coords, (std::vector<int>{2, 1, 0}));
  EXPECT_EQ(topo.node(c).guid, 0x4800000000000002ULL);
  int router = topo.node(c).ports[1].peer_node;
  EXPECT_EQ(router, 2 + 4 * 1);
  EXPECT_EQ(topo.node(d).ports[1].peer_node, router);
  EXPECT_EQ(topo.node(router).num_ports(), 6 + 2);
  EXPECT_EQ(topo.node(c).ports[1].peer_port, 7);
  EXPECT_EQ(topo.node(d).ports[1].peer_port, 8);
  EXPECT_EQ(topo.node(router).level, 1);
}

TEST(Torus, ExtentOneAndTwoMakeNoSelfOrDoubledLinks) {
  Topology topo = load_torus(test_data("torus/degenerate.torus"), "degenerate.torus");
  EXPECT_EQ(topo.switches().size(), 6u);
  // dim 0 (extent 1): none; dim 1 (extent 2): one per pair x 3; dim 2 (3-ring): 3 x 2.
  EXPECT_EQ(router_links(topo).size(), 0u + 3u + 6u);
  const Node &r0 = topo.node(0);
  EXPECT_FALSE(r0.ports[1].connected());
  EXPECT_FALSE(r0.ports[2].connected());
  EXPECT_FALSE(r0.ports[3].connected());  // extent 2: only 0 -> 1 via the plus port
  EXPECT_TRUE(r0.ports[4].connected());
}

TEST(Torus, LargeGridsAreAllowedUpToTheLimit) {
  Topology topo = load("dims 64 64 16\nwrap 1 1 0\nhost x 63 63 15\n");
  EXPECT_EQ(topo.switches().size(), 65536u);
  auto start = std::chrono::steady_clock::now();
  EXPECT_NE(failure("dims 100000 100000\n").find("more than 1048576 routers"), std::string::npos);
  EXPECT_NE(failure("dims 1024 1025\n").find("more than 1048576 routers"), std::string::npos);
  EXPECT_NE(failure("dims 99999999999999999999999\n").find("not a non-negative integer"), std::string::npos);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
}

TEST(Torus, ErrorsNameTheRightLine) {
  struct Case {
    const char *text, *where, *what;
  };
  const Case cases[] = {
      {"dims 4 4\nhost a 0 4\n", "grid.torus:2:", "coordinate 4 of dimension 1 is outside 0..3"},
      {"dims 4 4\nhost a 0\n", ":2:", "has 1 coordinates; the grid has 2 dimensions"},
      {"dims 4 4\nhost a 0 1 2\n", ":2:", "has 3 coordinates"},
      {"dims 4\nhost a 0\n\nhost a 1\n", ":4:", "host 'a' is already defined at line 2"},
      {"# canopy torus v1\nlink_gbps 10\n", ":2:", "missing 'dims' line"},
      {"host a 0\ndims 4\n", ":1:", "'host' before 'dims'"},
      {"wrap 1\ndims 4\n", ":1:", "'wrap' before 'dims'"},
      {"dims 4\nlinks 3\n", ":2:", "unknown keyword 'links'"},
      {"", "grid.torus:1:", "empty torus file"},
      {"# just a comment\n\n", "grid.torus:1:", "empty torus file"},
      {"dims\n", ":1:", "1 to 8 extents, found 0"},
      {"dims 2 2 2 2 2 2 2 2 2\n", ":1:", "found 9"},
      {"dims 4 0\n", ":1:", "extent of dimension 1 is 0"},
      {"dims 4 -2\n", ":1:", "'-2' is not a non-negative integer"},
      {"dims 4\ndims 4\n", ":2:", "'dims' given twice"},
      {"dims 4 4\nwrap 1\n", ":2:", "one 0/1 per dimension (2), found 1"},
      {"dims 4\nwrap 2\n", ":2:", "0 (mesh) or 1 (torus)"},
      {"dims 4\nwrap 1\nwrap 0\n", ":3:", "'wrap' given twice (first at line 2)"},
      {"dims 4\nlink_gbps 0\n", ":2:", "positive number"},
      {"dims 4\nlink_gbps fast\n", ":2:", "positive number"},
      {"dims 4\nlink_gbps 1 2\n", ":2:", "positive number"},
      {"# canopy torus v2\ndims 4\n", ":1:", "unsupported format version 'v2'"},
      {"dims 4\nhost\n", ":2:", "needs a name"},
      {"dims 4\nhost a[1] 0\n", ":2:", "contains '['"},
      {"dims 4\nhost a 0x1\n", ":2:", "not a non-negative integer"},
      {"\x01\x02\xff\n", ":1:", "unknown keyword"},
      {"dims 4 4\nhost a 1", ":2:", "has 1 coordinates"},  // truncated last line
  };
  for (const Case &c : cases) {
    std::string message = failure(c.text);
    EXPECT_NE(message.find(c.where), std::string::npos) << c.text << " -> " << message;
    EXPECT_NE(message.find(c.what), std::string::npos) << c.text << " -> " << message;
  }
}

TEST(Torus, LinkRateMayComeFirstAndCommentsAnywhere) {
  Topology topo = load("link_gbps 12.5   # slow links\n\ndims 3 # a ring\nhost a 2  # last\r\n");
  EXPECT_EQ(topo.node(2).ports[2].rate, plain_rate(12.5));
  EXPECT_EQ(topo.node(topo.find_host("a")).ports[1].peer_node, 2);
  EXPECT_EQ(topo.node(2).ports[2].peer_node, 0);  // extent 3 wraps
}

TEST(Torus, RouterPortLimit) {
  std::string text = "dims 2\n";
  for (int h = 0; h < 252; ++h) text += "host h" + std::to_string(h) + " 0\n";
  EXPECT_EQ(load(text).node(0).num_ports(), 254);
  text += "host one_too_many 0\n";
  EXPECT_NE(failure(text).find(":254: router of host 'one_too_many' would need more than 254 ports"),
            std::string::npos);
}

// The summary's diameter of a torus or mesh comes from the coordinates (a search
// from every router was quadratic: 58 s at 32,768 routers): it equals the longest
// shortest path between two hosts a breadth-first search finds, on tori and meshes
// of extents 1 to 5, hosts on some routers only, some sharing one.
TEST(Torus, SummaryDiameterEqualsTheLongestShortestHostPath) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 60; ++trial) {
    int dims = 1 + trial % 3;
    std::string text = "dims", wrap = "wrap";
    std::vector<int> extent;
    for (int d = 0; d < dims; ++d) {
      extent.push_back(1 + static_cast<int>(rng() % 5));
      text += " " + std::to_string(extent.back());
      wrap += rng() % 2 ? " 1" : " 0";
    }
    text += "\n" + wrap + "\n";
    int hosts = 2 + static_cast<int>(rng() % 6);
    for (int h = 0; h < hosts; ++h) {
      text += "host h" + std::to_string(h);
      for (int d = 0; d < dims; ++d) text += " " + std::to_string(rng() % static_cast<unsigned>(extent[static_cast<size_t>(d)]));
      text += "\n";
    }
    Topology topo = load(text);
    int longest = 0;
    for (int a : topo.hosts()) {
      std::vector<int> hops = bfs_hops(topo, a);
      for (int b : topo.hosts())
        if (b != a) longest = std::max(longest, hops[static_cast<size_t>(b)]);
    }
    EXPECT_EQ(summarize(topo).diameter, longest) << text;
  }
}

// diff_fabrics: what canopy-collect --watch compares to decide whether a
// collection is a new dump.
#include <gtest/gtest.h>

#include "fabric_builder.h"
#include "topo/fabric_diff.h"

using canopy::test::TwoLevelFatTree;
using canopy::topo::diff_fabrics;

namespace {

bool mentions(const canopy::topo::FabricDiff &diff, const std::string &text) {
  return diff.summary().find(text) != std::string::npos;
}

TEST(FabricDiff, SameFabricBuiltTwiceIsTheSame) {
  TwoLevelFatTree a, b;
  a.route_all_through_spine_b();
  b.route_all_through_spine_b();
  EXPECT_TRUE(diff_fabrics(a.topo, b.topo).same());
  EXPECT_EQ(diff_fabrics(a.topo, b.topo).summary(), "no difference");
}

TEST(FabricDiff, ForwardingTableChangeIsReported) {
  TwoLevelFatTree a, b;
  a.route_all_through_spine_b();
  b.route_all_through_spine_b();
  b.forward(b.leaf1, b.h3, 3);  // h3 now through spine A
  b.topo.finalize();
  auto diff = diff_fabrics(a.topo, b.topo);
  EXPECT_EQ(diff.total, 1u);
  EXPECT_TRUE(mentions(diff, "forwarding table of 'leaf1'")) << diff.summary();
  EXPECT_TRUE(mentions(diff, "port 4, now port 3")) << diff.summary();
}

TEST(FabricDiff, RateLidAndDescriptionChangesAreReported) {
  TwoLevelFatTree a, b;
  b.topo.node(b.h1).ports[1].lid = 60;
  b.topo.node(b.spine_a).description = "spineA renamed";
  auto diff = diff_fabrics(a.topo, b.topo);
  EXPECT_TRUE(mentions(diff, "port 1: LID 5, now 60")) << diff.summary();
  EXPECT_TRUE(mentions(diff, "is now described as 'spineA renamed'")) << diff.summary();

  canopy::test::FabricBuilder slow, fast;
  for (auto *f : {&slow, &fast}) f->add_switch("sw");
  slow.add_host("h", 0, 1, canopy::topo::ib_rate(4, canopy::topo::LinkSpeed::SDR));
  fast.add_host("h", 0, 1, canopy::topo::ib_rate(4, canopy::topo::LinkSpeed::DDR));
  slow.topo.finalize();
  fast.topo.finalize();
  EXPECT_TRUE(mentions(diff_fabrics(slow.topo, fast.topo), "at 4xSDR, now linked to 'sw'[1] at 4xDDR"))
      << diff_fabrics(slow.topo, fast.topo).summary();
}

TEST(FabricDiff, MissingCableAndNodesAreReportedFromBothEnds) {
  TwoLevelFatTree a;
  canopy::test::FabricBuilder b;  // the same fabric without leaf2's cable to spine B, and without h4
  int leaf1 = b.add_switch("leaf1"), leaf2 = b.add_switch("leaf2");
  int spine_a = b.add_switch("spineA"), spine_b = b.add_switch("spineB");
  b.add_host("h1", leaf1, 1);
  b.add_host("h2", leaf1, 2);
  b.add_host("h3", leaf2, 1);
  b.link(leaf1, 3, spine_a, 1);
  b.link(leaf1, 4, spine_b, 1);
  b.link(leaf2, 3, spine_a, 2);
  b.topo.finalize();
  auto diff = diff_fabrics(a.topo, b.topo, 100);
  EXPECT_TRUE(mentions(diff, "'leaf2' (0x0000000000001001) port 4: linked to 'spineB'[2] at 4xQDR, now unconnected"))
      << diff.summary();
  EXPECT_TRUE(mentions(diff, "'spineB' (0x0000000000001003) port 2: linked to 'leaf2'[4]")) << diff.summary();
  EXPECT_TRUE(mentions(diff, "node 'h4' (0x000000000000100a) is gone")) << diff.summary();
  auto short_diff = diff_fabrics(a.topo, b.topo, 1);
  EXPECT_EQ(short_diff.items.size(), 1u);
  EXPECT_TRUE(mentions(short_diff, "more)")) << short_diff.summary();
}

}  // namespace

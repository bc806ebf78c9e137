// The multi-leader Allgather's block orders (src/coll/plan/group_order.h): which blocks a
// leader group lacks, and where every block sits in the exchange and distribution buffers.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "coll/plan/group_order.h"
#include "common/error.h"

using namespace canopy;
using namespace canopy::coll;

namespace {

using Spans = std::vector<std::pair<int, int>>;

// Groups of 2, 3 and 1 consecutive ranks.
GroupOrder consecutive() { return GroupOrder({0, 0, 1, 1, 1, 2}, {0, 1, 0, 1, 2, 0}); }

// A reversed-split communicator on two nodes of two groups each: ranks of a group are neither
// consecutive nor in group-rank order, and groups have 1 to 3 members.
GroupOrder scattered() { return GroupOrder({3, 1, 0, 1, 3, 2, 0, 3}, {2, 1, 1, 0, 1, 0, 0, 0}); }

}  // namespace

TEST(CollGroupOrder, BundlesFollowGroupsInGroupRankOrder) {
  GroupOrder o = consecutive();
  EXPECT_EQ(o.groups(), 3);
  EXPECT_EQ(o.start(1), 2);
  EXPECT_EQ(o.size(1), 3);
  EXPECT_TRUE(is_rank_order(o.positions()));

  GroupOrder s = scattered();
  EXPECT_EQ(s.positions(), (std::vector<int>{7, 3, 1, 2, 6, 4, 0, 5}));
  EXPECT_FALSE(is_rank_order(s.positions()));
}

TEST(CollGroupOrder, AGroupLacksEveryOtherGroupsBundle) {
  GroupOrder o = consecutive();
  EXPECT_EQ(o.lacking(0), (Spans{{2, 6}}));
  EXPECT_EQ(o.lacking(1), (Spans{{0, 2}, {5, 6}}));
  EXPECT_EQ(o.lacking(2), (Spans{{0, 5}}));
  GroupOrder one({0, 0, 0}, {2, 0, 1});  // one group (one leader per node, one node) lacks nothing
  EXPECT_EQ(one.lacking(0), Spans{});
}

// In group g's lack-first order the blocks it lacks come first, in group-major order (the
// leader's packed message), and its own bundle last, in group-rank order.
TEST(CollGroupOrder, LackFirstPutsTheLackingSpansFirstAndTheBundleLast) {
  for (const GroupOrder &o : {consecutive(), scattered()}) {
    for (int g = 0; g < o.groups(); ++g) {
      std::vector<int> pos = o.positions(g), sorted = pos;
      std::sort(sorted.begin(), sorted.end());
      std::vector<int> all(o.ranks());
      std::iota(all.begin(), all.end(), 0);
      EXPECT_EQ(sorted, all) << "group " << g << ": not a permutation";
      // Expected: walk the lacking spans of group-major order, then the bundle.
      std::vector<int> expected(o.ranks());
      int next = 0;
      for (auto [lo, hi] : o.lacking(g))
        for (int index = lo; index < hi; ++index)
          for (int r = 0; r < o.ranks(); ++r)
            if (o.group_major_index(r) == index) expected[r] = next++;
      EXPECT_EQ(next, o.ranks() - o.size(g));
      for (int r = 0; r < o.ranks(); ++r)
        if (o.group_of(r) == g) expected[r] = o.group_major_index(r) - o.start(g) + next;
      EXPECT_EQ(pos, expected) << "group " << g;
    }
  }
  // The last group of a consecutive layout already works in rank order: no copies.
  EXPECT_TRUE(is_rank_order(consecutive().positions(2)));
  EXPECT_FALSE(is_rank_order(consecutive().positions(0)));
}

TEST(CollGroupOrder, InconsistentMapsAreRejected) {
  EXPECT_THROW(GroupOrder({0, 0}, {0, 0}), Error);     // group rank twice
  EXPECT_THROW(GroupOrder({0, 2}, {0, 0}), Error);     // group 1 empty
  EXPECT_THROW(GroupOrder({0, 0}, {0, 2}), Error);     // group rank out of range
  EXPECT_THROW(GroupOrder({0, -1}, {0, 0}), Error);    // negative group
  EXPECT_THROW(GroupOrder({0, 0}, {0}), Error);        // lengths differ
  EXPECT_EQ(GroupOrder({}, {}).groups(), 0);
}

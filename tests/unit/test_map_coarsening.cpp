// Coarsening for the multilevel tree walk (coarsening.h): a lexicographic grid
// pairs up into boxes, level by level; graphs whose heaviest partners are not
// mutual, and grids numbered at random, are left alone; free slots pair up with
// each other; rt on a stencil walks the coarse graph and still gives a
// one-to-one placement that reaches the box embedding.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <random>
#include <set>

#include "common/error.h"
#include "map/coarsening.h"
#include "map/mapping.h"
#include "map/metrics.h"
#include "map_test_machines.h"

namespace canopy::map {
namespace {

// The processes in every cluster of the coarsest level, by cluster.
std::map<int, std::vector<int>> coarsest_clusters(const Coarsening &c, int vertices) {
  std::map<int, std::vector<int>> members;
  for (int v = 0; v < vertices; ++v) {
    int at = v;
    for (const std::vector<int> &cluster : c.cluster) at = cluster[static_cast<size_t>(at)];
    members[at].push_back(v);
  }
  return members;
}

TEST(Coarsening, GridPairsUpIntoBoxes) {
  // 8x4x4, x fastest: pairs along x (the first neighbour in rank order), then
  // pairs of pairs along y (two edges apart of one), then along z (four of two).
  CommGraph g = test::stencil_3d(8, 4, 4);
  Pairing first = heavy_edge_pairing(g);
  EXPECT_DOUBLE_EQ(first.natural_share, 1.0);
  for (int v = 0; v < g.num_vertices(); v += 2) EXPECT_EQ(first.cluster[static_cast<size_t>(v)], first.cluster[static_cast<size_t>(v) + 1]);
  Coarsening c = coarsen_natural_pairs(g, 3);
  ASSERT_EQ(c.graphs.size(), 3u);
  EXPECT_EQ(c.graphs.back().num_vertices(), 16);
  for (const auto &[cluster, members] : coarsest_clusters(c, g.num_vertices())) {
    ASSERT_EQ(members.size(), 8u);
    std::set<int> xs, ys, zs;
    for (int v : members) xs.insert(v % 8), ys.insert(v / 8 % 4), zs.insert(v / 32);
    EXPECT_EQ(xs.size() * ys.size() * zs.size(), 8u) << "cluster " << cluster << " is not a 2x2x2 box";
  }
  // The coarse graph keeps every byte between clusters: a 4x2x2 grid of cubes, 4 faces of 2x2 edges between neighbours.
  EXPECT_DOUBLE_EQ(c.graphs.back().total_bytes(), (3 * 2 * 2 + 4 * 1 * 2 + 4 * 2 * 1) * 4.0);
}

TEST(Coarsening, LeavesGraphsWithoutMutualHeaviestPartnersAlone) {
  // A path whose volumes grow along it: every vertex's heaviest partner is the
  // next one, so no pair is natural, and nothing is contracted.
  CommGraphBuilder b(16);
  for (int v = 0; v + 1 < 16; ++v) b.add(v, v + 1, 1 + v);
  CommGraph path = b.build();
  EXPECT_LT(heavy_edge_pairing(path).natural_share, kNaturalShare);
  EXPECT_TRUE(coarsen_natural_pairs(path, 3).graphs.empty());
}

TEST(Coarsening, LeavesAStencilNumberedAtRandomAlone) {
  // All faces weigh the same, so the first-level pairs are natural (but for a few
  // left over), but they point along random axes and do not pair up naturally
  // again: no level is kept.
  CommGraph grid = test::stencil_3d(8, 4, 4);
  std::vector<int> rank(static_cast<size_t>(grid.num_vertices()));
  std::iota(rank.begin(), rank.end(), 0);
  std::shuffle(rank.begin(), rank.end(), std::mt19937(7));
  CommGraphBuilder b(grid.num_vertices());
  for (int v = 0; v < grid.num_vertices(); ++v)
    for (int64_t i = grid.row_begin(v); i < grid.row_end(v); ++i)
      b.add(rank[static_cast<size_t>(v)], rank[static_cast<size_t>(grid.neighbor(i))], grid.weight(i));
  CommGraph shuffled = b.build();
  Pairing first = heavy_edge_pairing(shuffled);
  EXPECT_GE(first.natural_share, kNaturalShare);
  EXPECT_LT(heavy_edge_pairing(shuffled.quotient(first.cluster, 64)).natural_share, kNaturalShare);
  EXPECT_TRUE(coarsen_natural_pairs(shuffled, 3).graphs.empty());
  EXPECT_EQ(coarsen_natural_pairs(grid, 3).graphs.size(), 3u);
}

TEST(Coarsening, FreeSlotsPairWithEachOther) {
  // A 4x4x2 stencil padded with 32 free slots (isolated vertices) still coarsens.
  CommGraph g = test::stencil_3d(4, 4, 2).padded(64);
  Coarsening c = coarsen_natural_pairs(g, 2);
  ASSERT_EQ(c.graphs.size(), 2u);
  for (const auto &[cluster, members] : coarsest_clusters(c, g.num_vertices()))
    EXPECT_TRUE(std::all_of(members.begin(), members.end(), [](int v) { return v < 32; }) ||
                std::all_of(members.begin(), members.end(), [](int v) { return v >= 32; }))
        << "cluster " << cluster << " mixes processes and free slots";
  EXPECT_THROW(heavy_edge_pairing(test::stencil_3d(3, 1, 1)), Error);
}

TEST(Coarsening, RtWalksTheCoarseGraphAndReachesTheBoxEmbedding) {
  // 8x8x8 processes on a 4x4x4 torus of 8-slot hosts (the dual walk's test):
  // two levels of pairs (clusters of 4, two per host), and the optimum 1728.
  auto topo = test::torus({4, 4, 4});
  Problem p{test::stencil_3d(8, 8, 8), Machine(topo, test::all_hosts(*topo, 5), 8)};
  MapOptions o;
  o.algorithm = "rt";
  MapResult r = map_processes(p, o);
  check_placement(p, r.slot_of_process);
  EXPECT_EQ(r.coarsening_levels, 2);
  EXPECT_DOUBLE_EQ(evaluate(p, r.slot_of_process).hop_bytes, (3.0 * 8 * 8 * 7 - 64 * 12) * 3);
  // A random graph has no natural pairs: the walk runs on the processes.
  Problem q{test::random_graph(512, 2048, 3), Machine(topo, test::all_hosts(*topo, 5), 8)};
  MapResult random = map_processes(q, o);
  check_placement(q, random.slot_of_process);
  EXPECT_EQ(random.coarsening_levels, 0);
}

}  // namespace
}  // namespace canopy::map

// Dual recursive tree mapping (tree_mapping.h with a hop matrix, external_split.h):
// splits that weigh the bytes to partners already placed in other subtrees reach
// the box embedding of a stencil on a torus, which independent splits miss, and
// the split refinement keeps part sizes while never raising its cost; the auto
// grouping keeps the best of tree, flat and runs groups, weighing hop-bytes and
// the busiest host, and on large graphs takes runs alone when samples of the
// numbering show it local.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>

#include "common/error.h"
#include "map/external_split.h"
#include "map/mapping.h"
#include "map/metrics.h"
#include "map/partition.h"
#include "map/placement_steps.h"
#include "map/topology_tree.h"
#include "map/tree_mapping.h"
#include "map_test_machines.h"

namespace canopy::map {
namespace {

// Hop-bytes of the tree walk alone (no refinement pass afterwards).
double walk_hop_bytes(const CommGraph &g, const Machine &m, const TopologyTree &tree, bool dual) {
  std::vector<int> slots(static_cast<size_t>(m.num_hosts()), m.uniform_slots());
  std::vector<int> host_of = map_on_tree(g, tree, 1, slots, dual ? &m.hop_table() : nullptr);
  std::vector<int> load(static_cast<size_t>(m.num_hosts()), 0);
  for (int h : host_of) ++load[static_cast<size_t>(h)];
  EXPECT_EQ(load, slots);
  return inter_node_hop_bytes(g, m, host_of);
}

TEST(DualTreeWalk, StencilOnATorusReachesTheBoxEmbedding) {
  // 8x8x8 processes on a 4x4x4 torus of 8-slot hosts. A part of 8 grid points has
  // at most 12 edges inside (a 2x2x2 cube), so at least 1344 - 64 x 12 = 576 of the
  // stencil's 3 x 8 x 8 x 7 = 1344 edges cross hosts, each over at least 3 links
  // (host, router, router, host): 1728, reached by cubes on neighbouring routers.
  auto topo = test::torus({4, 4, 4});
  Machine m(topo, test::all_hosts(*topo, 5), 8);
  CommGraph g = test::stencil_3d(8, 8, 8);
  const double optimum = (3.0 * 8 * 8 * 7 - 64 * 12) * 3;
  TopologyTree tree = coordinate_bisection_tree(m.coordinates());
  double independent = walk_hop_bytes(g, m, tree, false), dual = walk_hop_bytes(g, m, tree, true);
  EXPECT_DOUBLE_EQ(dual, optimum);
  EXPECT_GT(independent, optimum * 1.1);  // the halves are cut well but face their neighbours at random
}

TEST(DualTreeWalk, GridOnA2DTorusReachesTheBoxEmbedding) {
  // 8x8 processes on a 4x4 torus of 4-slot hosts: at least 112 - 16 x 4 = 48 edges
  // cross hosts (a part of 4 grid points has at most 4 edges inside, a 2x2 square),
  // over at least 3 links each. The independent walk cuts the squares but lines
  // up one quadrant's rows with its neighbour's columns.
  auto topo = test::torus({4, 4});
  Machine m(topo, test::all_hosts(*topo, 5), 4);
  CommGraph g = test::stencil_3d(8, 8, 1);
  const double optimum = (2 * 8 * 7 - 16 * 4) * 3;
  TopologyTree tree = coordinate_bisection_tree(m.coordinates());
  EXPECT_DOUBLE_EQ(walk_hop_bytes(g, m, tree, true), optimum);
  EXPECT_GT(walk_hop_bytes(g, m, tree, false), optimum * 1.1);
}

TEST(DualTreeWalk, SameSeedSameMappingAndAWrongDistanceMatrixIsAnError) {
  auto topo = test::torus({4, 4, 2});
  Machine m(topo, test::all_hosts(*topo, 9), 4);
  CommGraph g = test::random_graph(128, 600, 4);
  TopologyTree tree = coordinate_bisection_tree(m.coordinates());
  std::vector<int> four(32, 4);
  EXPECT_EQ(map_on_tree(g, tree, 3, four, &m.hop_table()), map_on_tree(g, tree, 3, four, &m.hop_table()));
  HopTable wrong = HopTable::from_matrix(std::vector<uint16_t>(25, 1), 5);
  EXPECT_THROW(map_on_tree(g, tree, 3, four, &wrong), Error);
  EXPECT_THROW(map_on_tree(g, tree, 3, std::vector<int>(32, 3), &m.hop_table()), Error);  // 96 places for 128 vertices
}

TEST(ExternalSplit, OrientsTowardsPlacedPartnersAndKeepsSizes) {
  // A path 0-1-2-3-4-5 split 3 + 3; vertex 0 talks heavily to a partner placed
  // near child 1, vertex 5 to one near child 0: the halves must swap sides.
  CommGraphBuilder b(6);
  for (int v = 0; v + 1 < 6; ++v) b.add(v, v + 1, 1);
  CommGraph g = b.build();
  SplitCosts costs;
  costs.parts = 2;
  costs.distance = {0, 1, 1, 0};
  costs.external.assign(12, 0);
  costs.external[0 * 2 + 0] = 100;  // vertex 0 in child 0: 100 bytes x distance
  costs.external[5 * 2 + 1] = 100;
  std::vector<int> part = {0, 0, 0, 1, 1, 1};
  EXPECT_DOUBLE_EQ(split_cost(g, costs, part), 201);
  refine_split(g, costs, part);
  EXPECT_EQ(part, (std::vector<int>{1, 1, 1, 0, 0, 0}));
  EXPECT_DOUBLE_EQ(split_cost(g, costs, part), 1);
}

TEST(ExternalSplit, RefinementNeverRaisesTheCostAndKeepsSizes) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 20; ++trial) {
    CommGraph g = test::random_graph(60, 200, static_cast<unsigned>(trial));
    std::vector<int> sizes = {20, 20, 10, 10};
    SplitCosts costs;
    costs.parts = 4;
    costs.distance = {0, 2, 4, 4, 2, 0, 4, 4, 4, 4, 0, 2, 4, 4, 2, 0};
    std::uniform_real_distribution<double> ext(0, 500);
    for (int i = 0; i < 60 * 4; ++i) costs.external.push_back(ext(rng));
    std::vector<int> part = partition_exact(g, sizes, 1);
    double before = split_cost(g, costs, part);
    refine_split(g, costs, part);
    EXPECT_LE(split_cost(g, costs, part), before + 1e-6);
    for (int p = 0; p < 4; ++p) EXPECT_EQ(std::count(part.begin(), part.end(), p), sizes[static_cast<size_t>(p)]);
  }
}

}  // namespace
}  // namespace canopy::map

namespace canopy::map {
namespace {

// A 7-point stencil on an x * y * z grid, each process numbered by its bx * by * bz
// block first (the blocks in lexicographic order), as a partitioner would number them.
CommGraph stencil_numbered_in_blocks(int x, int y, int z, int bx, int by, int bz) {
  int blocks_x = x / bx, blocks_y = y / by, block = bx * by * bz;
  auto id = [&](int i, int j, int k) {
    return ((k / bz * blocks_y + j / by) * blocks_x + i / bx) * block + (k % bz * by + j % by) * bx + i % bx;
  };
  CommGraphBuilder b(x * y * z);
  for (int k = 0; k < z; ++k)
    for (int j = 0; j < y; ++j)
      for (int i = 0; i < x; ++i) {
        if (i + 1 < x) b.add(id(i, j, k), id(i + 1, j, k), 1);
        if (j + 1 < y) b.add(id(i, j, k), id(i, j + 1, k), 1);
        if (k + 1 < z) b.add(id(i, j, k), id(i, j, k + 1), 1);
      }
  return b.build();
}

// What auto minimizes: hop-bytes plus the busiest host's off-node bytes, each
// relative to those of the tree's groups.
double auto_measure(const Problem &p, const std::vector<int> &slots, const std::vector<int> &tree_slots) {
  auto load = [&](const std::vector<int> &slot_of) {
    std::vector<double> off_node = off_node_bytes(p.graph, p.machine, p.machine.hosts_of(slot_of));
    return std::pair<double, double>{evaluate(p, slot_of).hop_bytes, *std::max_element(off_node.begin(), off_node.end())};
  };
  auto [hop_bytes, busiest] = load(slots);
  auto [tree_hop_bytes, tree_busiest] = load(tree_slots);
  return hop_bytes / tree_hop_bytes + busiest / tree_busiest;
}

TEST(Grouping, AutoKeepsTheBestOfTreeFlatAndRuns) {
  auto topo = test::fat_tree(4, 4, 2);
  for (bool blocks : {false, true}) {
    // Lexicographic numbering: runs of 8 ranks are lines of the grid, which cut 192 edges against the
    // blocks' 112, so auto does not try them; numbered in blocks, the runs are the blocks.
    CommGraph graph = blocks ? stencil_numbered_in_blocks(8, 4, 4, 2, 2, 2) : test::stencil_3d(8, 4, 4);
    Problem p{std::move(graph), Machine(topo, test::all_hosts(*topo, 3), 8)};
    std::map<GroupChoice, MapResult> results;
    for (GroupChoice groups : {GroupChoice::Auto, GroupChoice::Tree, GroupChoice::Flat, GroupChoice::Runs}) {
      MapOptions o;
      o.groups = groups;
      o.refine = false;  // the grouping's own result
      results[groups] = map_processes(p, o);
    }
    auto relative = [&](GroupChoice groups) {
      return auto_measure(p, results[groups].slot_of_process, results[GroupChoice::Tree].slot_of_process);
    };
    EXPECT_EQ(results[GroupChoice::Tree].groups, "tree");
    EXPECT_EQ(results[GroupChoice::Flat].groups, "flat");
    EXPECT_EQ(results[GroupChoice::Runs].groups, "runs");
    for (int v = 0; v < 128; ++v) {  // runs: ranks 8k..8k+7 share a host
      EXPECT_EQ(results[GroupChoice::Runs].slot_of_process[static_cast<size_t>(v)] / 8,
                results[GroupChoice::Runs].slot_of_process[static_cast<size_t>(v / 8 * 8)] / 8);
    }
    double best = std::min(relative(GroupChoice::Tree), relative(GroupChoice::Flat));
    if (blocks) best = std::min(best, relative(GroupChoice::Runs));
    EXPECT_DOUBLE_EQ(relative(GroupChoice::Auto), best) << (blocks ? "blocks" : "lexicographic");
    if (!blocks) {
      EXPECT_NE(results[GroupChoice::Auto].groups, "runs");
    }
  }
  EXPECT_EQ(group_choice("auto"), GroupChoice::Auto);
  EXPECT_EQ(group_choice("runs"), GroupChoice::Runs);
  EXPECT_THROW(group_choice("both"), Error);
}

// auto gives up a few hop-bytes for a less loaded busiest host: on random graphs
// its grouping's measure is never above the tree's or flat's, and on some of
// them it is not the grouping with the fewest hop-bytes (hop-bytes alone, the
// rule before, would always take that one and fails this test).
TEST(Grouping, AutoTradesAFewHopBytesForALessLoadedHost) {
  auto topo = test::fat_tree(6, 5, 3);
  int traded = 0;
  for (unsigned seed = 1; seed <= 30; ++seed) {
    int ppn = 4 + static_cast<int>(seed % 5);
    Problem p{test::random_graph(30 * ppn, 90 * ppn, seed), Machine(topo, test::all_hosts(*topo, seed), ppn)};
    std::map<GroupChoice, std::vector<int>> slots;
    for (GroupChoice groups : {GroupChoice::Auto, GroupChoice::Tree, GroupChoice::Flat}) {
      MapOptions o;
      o.groups = groups;
      o.refine = false;
      slots[groups] = map_processes(p, o).slot_of_process;
    }
    auto measure = [&](GroupChoice groups) { return auto_measure(p, slots[groups], slots[GroupChoice::Tree]); };
    auto hop_bytes = [&](GroupChoice groups) { return evaluate(p, slots[groups]).hop_bytes; };
    EXPECT_LE(measure(GroupChoice::Auto), std::min(measure(GroupChoice::Tree), measure(GroupChoice::Flat)) + 1e-12)
        << "seed " << seed;
    traded += hop_bytes(GroupChoice::Auto) > std::min(hop_bytes(GroupChoice::Tree), hop_bytes(GroupChoice::Flat));
  }
  EXPECT_GT(traded, 0);  // 10 of the 30
}

// Above kBothGroupingsUpTo vertices auto samples windows of consecutive ranks and
// takes runs without the tree walk when they cut as little there as METIS does and
// the windows keep most of their bytes. 4,096 processes, 16 per host:
// - numbered in 4x2x2 blocks, the runs are the blocks: runs, the same mapping as --groups runs
//   (without the sample auto keeps the tree's groups here, which tie with the runs);
// - numbered lexicographically, the runs are lines (2.5 times METIS's cut in a window): the tree;
// - rank r talking only to r + 2048: no window sees its bytes (both cuts are 0): the tree, which
//   puts the pairs on one host each.
TEST(Grouping, AutoTakesRunsAloneWhenSamplesShowTheNumberingIsLocal) {
  const int n = 4096;
  auto topo = test::fat_tree(16, 16, 4);
  CommGraphBuilder pairs(n);
  for (int v = 0; v < n / 2; ++v) pairs.add(v, v + n / 2, 1);
  struct Case {
    const char *name;
    CommGraph graph;
    bool local;
  };
  Case cases[] = {{"blocks", stencil_numbered_in_blocks(16, 16, 16, 4, 2, 2), true},
                  {"lexicographic", test::stencil_3d(16, 16, 16), false},
                  {"distant pairs", pairs.build(), false}};
  ASSERT_GT(n, kBothGroupingsUpTo);
  for (Case &c : cases) {
    Problem p{std::move(c.graph), Machine(topo, test::all_hosts(*topo, 2), 16)};
    auto map_with = [&](GroupChoice groups) {
      MapOptions o;
      o.groups = groups;
      o.refine = false;
      return map_processes(p, o);
    };
    MapResult chosen = map_with(GroupChoice::Auto), runs = map_with(GroupChoice::Runs);
    EXPECT_EQ(chosen.groups, c.local ? "runs" : "tree") << c.name;
    if (c.local) {
      EXPECT_EQ(chosen.slot_of_process, runs.slot_of_process) << c.name;
    } else {
      EXPECT_LT(evaluate(p, chosen.slot_of_process).hop_bytes, 0.8 * evaluate(p, runs.slot_of_process).hop_bytes) << c.name;
    }
  }
}

}  // namespace
}  // namespace canopy::map

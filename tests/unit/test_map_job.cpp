// Mapping a running job (map::map_job, what canopy_topomap and the reordering
// MPI_Dist_graph_create compute on rank 0): slots are where the ranks sit now,
// the answer is a new rank per old rank, and ranks keep their order when the
// mapping gains nothing; hosts may hold unequal numbers of ranks.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <fstream>
#include <numeric>
#include <random>

#include "common/error.h"
#include "common/params.h"
#include "map/job_mapping.h"
#include "map/mapping.h"
#include "map_test_machines.h"

namespace canopy::map {
namespace {

const std::string kTree = std::string("slurm:") + CANOPY_TEST_DATA + "/slurm/tree.conf";

// A PX x PY x PZ stencil (not periodic), rank = x + PX (y + PY z), 1 byte per edge.
CommGraph stencil(int px, int py, int pz) {
  CommGraphBuilder b(px * py * pz);
  for (int z = 0; z < pz; ++z)
    for (int y = 0; y < py; ++y)
      for (int x = 0; x < px; ++x) {
        int r = x + px * (y + py * z);
        if (x + 1 < px) b.add(r, r + 1, 1);
        if (y + 1 < py) b.add(r, r + px, 1);
        if (z + 1 < pz) b.add(r, r + px * py, 1);
      }
  return b.build();
}

// The checkerboard placement of a 2x2x2 grid on two hosts: every edge between hosts.
std::vector<std::string> checkerboard(const std::string &a, const std::string &b) {
  std::vector<std::string> hosts;
  for (int r = 0; r < 8; ++r) hosts.push_back(((r & 1) + (r >> 1 & 1) + (r >> 2)) % 2 ? b : a);
  return hosts;
}

// Edges between hosts when vertex v is played by the old rank that got new rank v.
int edges_between_hosts(const CommGraph &g, const std::vector<std::string> &host_of_rank,
                        const std::vector<int> &new_rank) {
  std::vector<int> owner(new_rank.size());
  for (size_t r = 0; r < new_rank.size(); ++r) owner[static_cast<size_t>(new_rank[r])] = static_cast<int>(r);
  int cut = 0;
  for (int v = 0; v < g.num_vertices(); ++v)
    for (int e = static_cast<int>(g.offsets()[v]); e < g.offsets()[v + 1]; ++e)
      cut += v < g.neighbors()[e] && host_of_rank[owner[v]] != host_of_rank[owner[g.neighbors()[e]]];
  return cut;
}

bool is_permutation(std::vector<int> ranks) {
  std::sort(ranks.begin(), ranks.end());
  for (size_t i = 0; i < ranks.size(); ++i)
    if (ranks[i] != static_cast<int>(i)) return false;
  return true;
}

TEST(JobMapping, SingleSwitchModelPutsEveryHostTwoLinksApart) {
  topo::Topology t = single_switch_model({"a", "b", "c"});
  EXPECT_EQ(t.hosts().size(), 3u);
  EXPECT_EQ(t.switches().size(), 1u);
  std::vector<std::string> many;
  for (int i = 0; i < 300; ++i) many.push_back("n" + std::to_string(i));
  topo::Topology big = single_switch_model(many);  // over one switch's ports: two leaves and a spine
  EXPECT_EQ(big.hosts().size(), 300u);
  EXPECT_EQ(big.switches().size(), 3u);
  EXPECT_GE(big.find_host("n299"), 0);
  // A name no fabric holds (a Slurm hostlist's brackets) is refused as such, not later as "not in the fabric".
  try {
    single_switch_model({"a", "b[1]"});
    ADD_FAILURE() << "no error";
  } catch (const Error &e) {
    EXPECT_EQ(e.status(), CANOPY_ERR_INVALID_ARG);
    EXPECT_NE(std::string(e.what()).find("host 'b[1]' cannot join the single-switch model: name contains '['"),
              std::string::npos);
  }
}

TEST(JobMapping, CheckerboardOnTwoLeafSwitchesBecomesTwoHalves) {
  std::vector<std::string> hosts = checkerboard("node001", "node005");
  CommGraph g = stencil(2, 2, 2);
  EXPECT_EQ(edges_between_hosts(g, hosts, {0, 1, 2, 3, 4, 5, 6, 7}), 12);
  for (const char *algorithm : {"rt", "greedy"}) {
    JobMapping m = map_job({hosts, g, kTree, "", algorithm, {}});
    EXPECT_TRUE(m.mapped) << algorithm << ": " << m.summary;
    EXPECT_TRUE(is_permutation(m.new_rank));
    EXPECT_EQ(edges_between_hosts(g, hosts, m.new_rank), 4) << algorithm;  // the optimum: two 2x2 halves
  }
  JobMapping single = map_job({hosts, g, "", "", "rt", {}});  // no fabric: the single-switch model
  EXPECT_TRUE(single.mapped);
  EXPECT_EQ(edges_between_hosts(g, hosts, single.new_rank), 4);
  EXPECT_NE(single.summary.find("single-switch model"), std::string::npos) << single.summary;
}

TEST(JobMapping, GoodPlacementsKeepTheOrderAndUnevenHostsAreMapped) {
  std::vector<std::string> halves{"a", "a", "a", "a", "b", "b", "b", "b"};  // z = 0 on a, z = 1 on b
  JobMapping m = map_job({halves, stencil(2, 2, 2), "", "", "rt", {}});
  EXPECT_FALSE(m.mapped);
  EXPECT_EQ(m.new_rank, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_NE(m.summary.find("no better than the current placement"), std::string::npos) << m.summary;

  // Three ranks on a, five on b. Ranks 0, 3 and 5 on a are no neighbours of each other: 9 edges
  // cross (2 links each). Any three of the cube's points that form a path cut 5.
  std::vector<std::string> uneven{"a", "b", "b", "a", "b", "a", "b", "b"};
  m = map_job({uneven, stencil(2, 2, 2), "", "", "rt", {}});
  EXPECT_TRUE(m.mapped) << m.summary;
  EXPECT_NE(m.summary.find("8 ranks on 2 hosts with 3-5 slots"), std::string::npos) << m.summary;
  EXPECT_NE(m.summary.find("hop-bytes 18 -> 10"), std::string::npos) << m.summary;
  std::vector<int> sorted = m.new_rank;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
}

TEST(JobMapping, IntraNodeMappingKeepsPartnersOnOneSocket) {
  // One host, 4 ranks on 2 sockets (ranks 0, 1 on the first): the heavy pairs 0-2 and 1-3 cross.
  CommGraphBuilder b(4);
  b.add(0, 2, 100);
  b.add(1, 3, 100);
  b.add(0, 1, 1);
  CommGraph g = b.build();
  JobMapping m = map_job({{"h", "h", "h", "h"}, g, "", "pack:2 core:2 pu:1", "rt", {}});
  ASSERT_TRUE(m.mapped) << m.summary;
  // The processes on one socket (old ranks 0, 1 and 2, 3) now play partner vertices.
  EXPECT_EQ(std::min(m.new_rank[0], m.new_rank[1]) % 2, std::max(m.new_rank[0], m.new_rank[1]) % 2);
  EXPECT_NE(m.summary.find("cross-socket bytes 200 -> 1"), std::string::npos) << m.summary;  // only 0-1 crosses
  // A node with fewer cores than ranks: no intra-node mapping, said so, nothing gained.
  JobMapping small = map_job({{"h", "h", "h", "h"}, g, "", "pack:1 core:2 pu:1", "rt", {}});
  EXPECT_FALSE(small.mapped);
  EXPECT_NE(small.summary.find("no intra-node mapping"), std::string::npos) << small.summary;
}

TEST(JobMapping, IntraNodeMappingTakesTheCoresTheRanksAreBoundTo) {
  // One host of 2 sockets x 2 cores, 4 ranks; the heavy pairs 0-1 and 2-3.
  CommGraphBuilder b(4);
  b.add(0, 1, 100);
  b.add(2, 3, 100);
  CommGraph g = b.build();
  const std::string node = "pack:2 core:2 pu:1";
  std::vector<std::string> one_host(4, "h");
  // Local rank i on core i (no cores given): the pairs already share a socket.
  JobMapping convention = map_job({one_host, g, "", node, "rt", {}});
  EXPECT_FALSE(convention.mapped);
  EXPECT_NE(convention.summary.find("cross-socket bytes 0 -> 0"), std::string::npos) << convention.summary;
  // Bound across the sockets (ranks 0, 2 on the first, 1, 3 on the second): both pairs cross,
  // and the mapping gives each pair one socket.
  JobMapping bound = map_job({one_host, g, "", node, "rt", {0, 2, 1, 3}});
  ASSERT_TRUE(bound.mapped) << bound.summary;
  EXPECT_NE(bound.summary.find("cross-socket bytes 200 -> 0"), std::string::npos) << bound.summary;
  // Which cores cannot be told: no intra-node mapping, and the summary says why.
  struct Case {
    std::vector<std::string> hosts;
    std::vector<int> cores;
    const char *why;
  };
  for (const Case &c : {Case{one_host, {0, 2, -1, 3}, "rank 2 is not bound to one core"},
                        Case{one_host, {0, 1, 1, 3}, "ranks share a core, and rank 0 is not bound to one PU"},
                        Case{one_host, {0, 1, 2, 7}, "core 7 is not in the node"},
                        Case{{"a", "a", "b", "b"}, {0, 1, 0, 2}, "the hosts bind their ranks differently"}}) {
    JobMapping m = map_job({c.hosts, g, "", node, "rt", c.cores});
    EXPECT_NE(m.summary.find(std::string("no intra-node mapping (") + c.why), std::string::npos) << m.summary;
    EXPECT_EQ(m.summary.find("cross-socket"), std::string::npos) << m.summary;
  }
  EXPECT_THROW(map_job({one_host, g, "", node, "rt", {0, 1}}), Error);  // cores for 2 of 4 ranks
  EXPECT_THROW(map_job({one_host, g, "", node, "rt", {0, 1, 2, 3}, 0, 0, 0, {0, 1}}), Error);  // PUs for 2 of 4
}

// Two ranks per core, each bound to its own PU (mpirun --use-hwthread-cpus --bind-to hwthread):
// the intra-node mapping runs on the PUs.
TEST(JobMapping, IntraNodeMappingOnThePUsWhereRanksShareCores) {
  // One host of 2 sockets x 2 cores x 2 PUs, 8 ranks; the heavy pairs 0-1, 2-3, 4-5, 6-7.
  CommGraphBuilder b(8);
  for (int v = 0; v < 8; v += 2) b.add(v, v + 1, 100);
  CommGraph g = b.build();
  const std::string node = "pack:2 core:2 pu:2";
  std::vector<std::string> one_host(8, "h");
  // Rank r on PU pu[r]: every pair across the sockets.
  std::vector<int> pu{0, 4, 1, 5, 2, 6, 3, 7}, core;
  for (int p : pu) core.push_back(p / 2);
  JobMapping m = map_job({one_host, g, "", node, "rt", core, 0, 0, 0, pu});
  ASSERT_TRUE(m.mapped) << m.summary;
  EXPECT_NE(m.summary.find("cross-socket bytes 400 -> 0"), std::string::npos) << m.summary;
  // Each pair now on the two PUs of one core: the process taking new rank v sits on pu[process].
  std::vector<int> pu_of_new(8);
  for (size_t process = 0; process < 8; ++process) pu_of_new[static_cast<size_t>(m.new_rank[process])] = pu[process];
  for (size_t v = 0; v < 8; v += 2) EXPECT_EQ(pu_of_new[v] / 2, pu_of_new[v + 1] / 2) << "pair " << v;
  // The synthetic convention with more ranks than cores: local rank i on PU i, so the
  // pairs 0-2 and 1-3 cross the sockets.
  CommGraphBuilder across(4);
  across.add(0, 2, 100);
  across.add(1, 3, 100);
  JobMapping convention = map_job({{"h", "h", "h", "h"}, across.build(), "", "pack:2 core:1 pu:2", "rt", {}});
  EXPECT_TRUE(convention.mapped) << convention.summary;
  EXPECT_NE(convention.summary.find("cross-socket bytes 200 -> 0"), std::string::npos) << convention.summary;
}

TEST(JobMapping, IntraNodeMappingOnThePackagesWhereRanksAreBoundToThem) {
  // One host of 2 sockets x 2 cores, 8 ranks bound to a socket each (no core: core and PU -1),
  // as Open MPI binds more than two ranks by default; the heavy pairs 0-1, 2-3, 4-5, 6-7 all
  // across the sockets.
  CommGraphBuilder b(8);
  for (int v = 0; v < 8; v += 2) b.add(v, v + 1, 100);
  std::vector<std::string> one_host(8, "h");
  std::vector<int> unbound(8, -1), package{0, 1, 0, 1, 0, 1, 0, 1};
  JobMapping m = map_job({one_host, b.build(), "", "pack:2 core:2 pu:1", "rt", unbound, 0, 0, 0, unbound, package});
  ASSERT_TRUE(m.mapped) << m.summary;
  EXPECT_NE(m.summary.find("8 ranks on 1 hosts x 8 slots (on packages)"), std::string::npos) << m.summary;
  EXPECT_NE(m.summary.find("cross-socket bytes 400 -> 0"), std::string::npos) << m.summary;
  // Each pair on one package: the process taking new rank v sits on package[process].
  std::vector<int> package_of_new(8);
  for (size_t process = 0; process < 8; ++process)
    package_of_new[static_cast<size_t>(m.new_rank[process])] = package[process];
  for (size_t v = 0; v < 8; v += 2) EXPECT_EQ(package_of_new[v], package_of_new[v + 1]) << "pair " << v;
  // A rank bound across the packages (or not at all): no intra-node mapping, and the summary says why.
  package[5] = -1;
  JobMapping unplaced = map_job({one_host, b.build(), "", "pack:2 core:2 pu:1", "rt", unbound, 0, 0, 0, unbound, package});
  EXPECT_NE(unplaced.summary.find("no intra-node mapping (rank 0 is not bound to one core; rank 5 is not bound to one "
                                  "package)"),
            std::string::npos)
      << unplaced.summary;
}

// The hop-bytes after mapping, from the summary's "hop-bytes BEFORE -> AFTER".
double hop_bytes_after(const JobMapping &m) {
  size_t at = m.summary.find("hop-bytes ");
  at = at == std::string::npos ? at : m.summary.find("-> ", at);
  return at == std::string::npos ? -1 : std::stod(m.summary.substr(at + 3));
}

// test::torus_text of @p dims written to a file named after @p name; returns its
// path and the host names shuffled (a scattered allocation).
std::pair<std::string, std::vector<std::string>> torus_file(const std::string &name, const std::vector<int> &dims) {
  std::string path = testing::TempDir() + "job_" + name + ".torus";
  std::ofstream(path) << test::torus_text(dims);
  std::vector<std::string> hosts;
  int total = 1;
  for (int d : dims) total *= d;
  for (int i = 0; i < total; ++i) hosts.push_back("t" + std::to_string(i));
  std::shuffle(hosts.begin(), hosts.end(), std::mt19937(3));
  return {path, hosts};
}

// An unstructured mesh: n random points, denser towards one edge of the unit
// cube, each joined to its k nearest by 100 bytes.
CommGraph graded_mesh(int n, int k, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<std::array<double, 3>> p(static_cast<size_t>(n));
  for (auto &q : p) {
    double a = u(rng), b = u(rng);
    q = {a * a, b * b, u(rng)};
  }
  CommGraphBuilder b(n);
  for (int i = 0; i < n; ++i) {
    std::vector<std::pair<double, int>> d;
    for (int j = 0; j < n; ++j) {
      double sum = 0;
      for (int c = 0; c < 3; ++c) sum += std::pow(p[static_cast<size_t>(i)][c] - p[static_cast<size_t>(j)][c], 2);
      if (j != i) d.push_back({sum, j});
    }
    std::partial_sort(d.begin(), d.begin() + k, d.end());
    for (int j = 0; j < k; ++j) b.add(i, d[static_cast<size_t>(j)].second, 100);
  }
  return b.build();
}

// MPI task mapping moves the host groups and the processes as canopy map does
// (map_anneal_moves, map_analytic_iterations, the latter by default,
// map_anneal_process_moves): each lowers what the walk and the refinement's
// process swaps leave where it pays, and the summary says so. Annealing: a
// random graph of 2 ranks per host on a 4x4x5 torus (more hosts than the tabu
// search takes on, which would leave annealing little to find). Analytic
// placement: an unstructured mesh of one rank per host on an 8x8x8 torus.
TEST(JobMapping, MovesTheHostGroupsOnRequest) {
  auto [small, small_hosts] = torus_file("small", {4, 4, 5});
  std::vector<std::string> two_per_host;
  for (const std::string &h : small_hosts) two_per_host.push_back(h), two_per_host.push_back(h);
  CommGraph random = test::random_graph(160, 480, 7);
  auto [large, large_hosts] = torus_file("large", {8, 8, 8});
  CommGraph mesh = graded_mesh(512, 6, 5);
  struct Case {
    std::vector<std::string> hosts;
    CommGraph graph;
    std::string fabric;
    int64_t anneal_moves;
    int64_t analytic_iterations;
    int64_t anneal_process_moves;
    const char *says;
  };
  for (const Case &c : {Case{two_per_host, random, small, 2000, 0, 0, "host groups annealed"},
                        Case{large_hosts, mesh, large, 0, 10, 0, "host groups placed analytically"},
                        Case{two_per_host, random, small, 0, 0, 20000, "processes annealed"}}) {
    JobMapping plain = map_job({c.hosts, c.graph, c.fabric, "", "rt", {}, 0, 0});
    JobMapping moved =
        map_job({c.hosts, c.graph, c.fabric, "", "rt", {}, c.anneal_moves, c.analytic_iterations, c.anneal_process_moves});
    ASSERT_TRUE(plain.mapped && moved.mapped) << plain.summary << "\n" << moved.summary;
    EXPECT_TRUE(is_permutation(moved.new_rank));
    EXPECT_LT(hop_bytes_after(moved), hop_bytes_after(plain)) << plain.summary << "\n" << moved.summary;
    EXPECT_NE(moved.summary.find(c.says), std::string::npos) << moved.summary;
    EXPECT_EQ(plain.summary.find("host groups"), std::string::npos) << plain.summary;
  }
  // On at most 64 hosts the tabu search places the groups, with the refinement: the
  // random graph on a 4x4x4 torus, where annealing found more before it.
  auto [cube, cube_hosts] = torus_file("cube", {4, 4, 4});
  std::vector<std::string> two_per_cube_host;
  for (const std::string &h : cube_hosts) two_per_cube_host.push_back(h), two_per_cube_host.push_back(h);
  JobMapping searched = map_job({two_per_cube_host, test::random_graph(128, 384, 7), cube, "", "rt", {}, 0, 0});
  EXPECT_NE(searched.summary.find("host groups placed by tabu search"), std::string::npos) << searched.summary;
  // Analytic placement is on by default, as the parameter's default says.
  EXPECT_EQ(param_int("map_analytic_iterations"), kDefaultAnalyticIterations);
  JobMapping by_default = map_job({large_hosts, mesh, large, "", "rt", {}});
  EXPECT_EQ(by_default.new_rank, map_job({large_hosts, mesh, large, "", "rt", {}, 0, kDefaultAnalyticIterations}).new_rank);
  EXPECT_NE(by_default.summary.find("host groups placed analytically"), std::string::npos) << by_default.summary;
  // Without coordinates (the single-switch model) it does not apply, so the summary does not mention it.
  JobMapping none = map_job({checkerboard("a", "b"), stencil(2, 2, 2), "", "", "rt", {}, 0, 10});
  EXPECT_TRUE(none.mapped) << none.summary;
  EXPECT_EQ(none.summary.find("analytic"), std::string::npos) << none.summary;
}

TEST(JobMapping, BadInputsAreErrors) {
  std::vector<std::string> hosts = checkerboard("node001", "nowhere");
  auto status = [](const JobMapRequest &r) {
    try {
      map_job(r);
    } catch (const Error &e) {
      return e.status();
    }
    return CANOPY_SUCCESS;
  };
  EXPECT_EQ(status({hosts, stencil(2, 2, 2), kTree, "", "rt", {}}), CANOPY_ERR_NOT_FOUND);
  EXPECT_EQ(status({checkerboard("node001", "node005"), stencil(2, 2, 2), kTree, "", "rb", {}}), CANOPY_ERR_INVALID_ARG);
  EXPECT_EQ(status({checkerboard("a", "b"), stencil(2, 2, 2), "", "", "magic", {}}), CANOPY_ERR_INVALID_ARG);
  EXPECT_NE(status({checkerboard("a", "b"), stencil(2, 2, 2), "/no/such/fabric", "", "rt", {}}), CANOPY_SUCCESS);
  EXPECT_EQ(status({{"a", "b"}, stencil(2, 2, 2), "", "", "rt", {}}), CANOPY_ERR_INVALID_ARG);  // 2 hosts for 8 vertices
  EXPECT_EQ(status({checkerboard("a", "b"), stencil(2, 2, 2), "", "", "rt", {}, -1}), CANOPY_ERR_INVALID_ARG);
  EXPECT_EQ(status({checkerboard("a", "b"), stencil(2, 2, 2), "", "", "rt", {}, 0, -1}), CANOPY_ERR_INVALID_ARG);
  EXPECT_EQ(status({checkerboard("a", "b"), stencil(2, 2, 2), "", "", "rt", {}, 0, kMostAnalyticIterations + 1}),
            CANOPY_ERR_INVALID_ARG);
  EXPECT_EQ(status({checkerboard("a", "b"), stencil(2, 2, 2), "", "", "rt", {}, 0, int64_t{1} << 32}), CANOPY_ERR_INVALID_ARG);
}

}  // namespace
}  // namespace canopy::map

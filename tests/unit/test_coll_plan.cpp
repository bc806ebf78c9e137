// The collectives' MPI-free logic: catalogue, selection rules and overrides,
// tuning files, host maps, synthetic socket layouts and leader groups.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>

#include "coll/plan/catalog.h"
#include "coll/plan/config.h"
#include "coll/plan/layout.h"
#include "coll/plan/leader_order.h"
#include "coll/plan/selection.h"
#include "common/error.h"
#include "common/file_io.h"
#include "common/params.h"

using namespace canopy;
using namespace canopy::coll;

namespace {

struct EnvGuard {
  std::string name;
  EnvGuard(const char *n, const char *value) : name(n) { setenv(n, value, 1); }
  ~EnvGuard() { unsetenv(name.c_str()); }
};

// What a communicator built now would choose.
Selection select(Collective coll, const SelectionInput &in) { return CollConfig::from_params().select(coll, in); }

std::string config_error() {
  try {
    CollConfig::from_params();
  } catch (const Error &e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST(CollCatalog, EveryAlgorithmParameterIsRegistered) {
  for (const AlgorithmInfo &info : algorithm_catalog())
    for (const char *param : info.params) EXPECT_NO_THROW(param_lookup(param)) << info.name << " reads " << param;
  EXPECT_NE(find_algorithm(Collective::Bcast, "knomial"), nullptr);
  EXPECT_EQ(find_algorithm(Collective::Barrier, "knomial"), nullptr);
}

TEST(CollSelection, BuiltInRulesFollowTheHierarchy) {
  EXPECT_EQ(select(Collective::Bcast, {8, 1, 8, 100}).algorithm, "shm");
  EXPECT_EQ(select(Collective::Bcast, {8, 2, 4, 100}).algorithm, "two_level");
  EXPECT_EQ(select(Collective::Bcast, {8, 8, 1, 100}).algorithm, "knomial");
  EXPECT_EQ(select(Collective::Bcast, {8, 8, 1, 1 << 20}).algorithm, "scatter_ring_allgather");
  EXPECT_EQ(select(Collective::Allgather, {8, 2, 4, 64}).algorithm, "multi_leader_p2p");
  EXPECT_EQ(select(Collective::Allgather, {8, 8, 1, 1 << 20}).algorithm, "ring");
  EXPECT_EQ(select(Collective::Barrier, {8, 2, 4, 0}).algorithm, "shm");
  EXPECT_EQ(select(Collective::Barrier, {8, 8, 1, 0}).algorithm, "dissemination");
}

TEST(CollSelection, RootedAndAlltoallRulesFollowTheHierarchy) {
  for (Collective coll : {Collective::Scatter, Collective::Gather}) {
    EXPECT_EQ(select(coll, {16, 1, 16, 4096}).algorithm, "shm");     // one node, 64 KiB in all
    EXPECT_EQ(select(coll, {16, 1, 16, 1 << 20}).algorithm, "linear");
    EXPECT_EQ(select(coll, {16, 4, 4, 4096}).algorithm, "two_level");
    EXPECT_EQ(select(coll, {16, 16, 1, 4096}).algorithm, "binomial");  // one rank per node
    EXPECT_EQ(select(coll, {16, 4, 4, 1 << 20}).algorithm, "linear");
  }
  EXPECT_EQ(select(Collective::Alltoall, {8, 1, 8, 1024}).algorithm, "shm");
  EXPECT_EQ(select(Collective::Alltoall, {8, 1, 8, 65536}).algorithm, "pairwise");
  EXPECT_EQ(select(Collective::Alltoall, {32, 4, 8, 64}).algorithm, "hierarchical");
  EXPECT_EQ(select(Collective::Alltoall, {32, 32, 1, 64}).algorithm, "bruck");
  EXPECT_EQ(select(Collective::Alltoall, {4, 4, 1, 64}).algorithm, "pairwise");  // too few ranks for Bruck
  EXPECT_EQ(select(Collective::Alltoall, {32, 4, 8, 4096}).algorithm, "pairwise");
}

TEST(CollSelection, EveryBuiltInRuleNamesACatalogueAlgorithmAndTheLastMatchesAll) {
  for (Collective coll : all_collectives()) {
    const std::vector<Rule> &rules = builtin_rules(coll);
    ASSERT_FALSE(rules.empty()) << collective_name(coll);
    for (const Rule &rule : rules) EXPECT_NE(find_algorithm(coll, rule.algorithm), nullptr) << rule.algorithm;
    EXPECT_TRUE(rules.back().matches({1 << 20, 1 << 10, 1 << 10, size_t{1} << 31})) << collective_name(coll);
  }
}

// Measured on one node with 2 and 16 ranks under Open MPI (docs/benchmarks.md): Canopy's
// algorithm where it was faster, the library's own ("mpi") where not; other MPIs and several
// nodes keep the papers' rules.
TEST(CollSelection, OneNodeUnderOpenMpiTakesTheFasterOfCanopyAndTheLibrary) {
  auto under = [](Collective coll, SelectionInput in, const char *library) {
    in.library = library;
    return select(coll, in).algorithm;
  };
  EXPECT_EQ(under(Collective::Bcast, {2, 1, 2, 64}, "open_mpi"), "shm");
  EXPECT_EQ(under(Collective::Bcast, {2, 1, 2, 65536}, "open_mpi"), "mpi");
  EXPECT_EQ(under(Collective::Bcast, {16, 1, 16, 65536}, "open_mpi"), "shm");
  EXPECT_EQ(under(Collective::Allgather, {2, 1, 2, 64}, "open_mpi"), "multi_leader_shm");
  EXPECT_EQ(under(Collective::Allgather, {2, 1, 2, 8192}, "open_mpi"), "mpi");
  EXPECT_EQ(under(Collective::Barrier, {2, 1, 2, 0}, "open_mpi"), "shm");
  EXPECT_EQ(under(Collective::Scatter, {2, 1, 2, 4096}, "open_mpi"), "shm");
  EXPECT_EQ(under(Collective::Scatter, {2, 1, 2, 1 << 20}, "open_mpi"), "mpi");
  EXPECT_EQ(under(Collective::Reduce, {2, 1, 2, 8}, "open_mpi"), "mpi");
  EXPECT_EQ(under(Collective::Allreduce, {2, 1, 2, 8}, "open_mpi"), "shm");
  EXPECT_EQ(under(Collective::Allreduce, {2, 1, 2, 4096}, "open_mpi"), "shm");
  EXPECT_EQ(under(Collective::Allreduce, {2, 1, 2, 65536}, "open_mpi"), "recursive_doubling");
  EXPECT_EQ(under(Collective::Allreduce, {2, 1, 2, 1 << 20}, "open_mpi"), "ring");
  EXPECT_EQ(under(Collective::Allreduce, {2, 2, 1, 8}, "open_mpi"), "recursive_doubling");  // two nodes
  // 16 ranks on one node (measured there; the rules serve 3 ranks and more).
  EXPECT_EQ(under(Collective::Allgather, {16, 1, 16, 8}, "open_mpi"), "multi_leader_shm");
  EXPECT_EQ(under(Collective::Allgather, {16, 1, 16, 1024}, "open_mpi"), "multi_leader_shm");
  EXPECT_EQ(under(Collective::Allgather, {16, 1, 16, 1 << 20}, "open_mpi"), "mpi");
  EXPECT_EQ(under(Collective::Scatter, {16, 1, 16, 1024}, "open_mpi"), "linear");
  EXPECT_EQ(under(Collective::Gather, {16, 1, 16, 64}, "open_mpi"), "linear");
  EXPECT_EQ(under(Collective::Gather, {16, 1, 16, 16384}, "open_mpi"), "shm");
  EXPECT_EQ(under(Collective::Gather, {16, 1, 16, 16385}, "open_mpi"), "mpi");
  EXPECT_EQ(under(Collective::Scatter, {16, 1, 16, 8}, "open_mpi"), "shm");
  EXPECT_EQ(under(Collective::Reduce, {16, 1, 16, 1 << 20}, "open_mpi"), "binomial");
  EXPECT_EQ(under(Collective::Allreduce, {16, 1, 16, 8}, "open_mpi"), "shm");
  EXPECT_EQ(under(Collective::Allreduce, {16, 1, 16, 2048}, "open_mpi"), "mpi");
  EXPECT_EQ(under(Collective::Allreduce, {16, 1, 16, 8192}, "open_mpi"), "shm");
  EXPECT_EQ(under(Collective::Alltoall, {16, 1, 16, 64}, "open_mpi"), "shm");
  EXPECT_EQ(under(Collective::Barrier, {16, 1, 16, 0}, "open_mpi"), "shm");
  EXPECT_EQ(under(Collective::Allgather, {3, 1, 3, 1024}, "open_mpi"), "multi_leader_shm");
  EXPECT_EQ(under(Collective::Allgather, {32, 2, 16, 1024}, "open_mpi"), "multi_leader_shm");  // two nodes: the paper's
  // Measured under Open MPI only: another MPI keeps Canopy's algorithms.
  EXPECT_EQ(under(Collective::Reduce, {2, 1, 2, 8}, "mpich"), "shm");
  EXPECT_EQ(under(Collective::Bcast, {2, 1, 2, 65536}, "mpich"), "shm");
  EXPECT_EQ(under(Collective::Allgather, {16, 1, 16, 1024}, "mpich"), "recursive_doubling");
}

TEST(CollSelection, TuningRulesMayNameTheLibrary) {
  std::string path = ::testing::TempDir() + "canopy_tuning_library.json";
  write_file_atomic(path, R"({"bcast": [{"library": "mpich", "bytes": [0, 100], "algorithm": "mpi"}]})");
  EnvGuard env("CANOPY_COLL_TUNING_FILE", path.c_str());
  CollConfig config = CollConfig::from_params();
  SelectionInput in{4, 1, 4, 8, "mpich"};
  EXPECT_EQ(config.select(Collective::Bcast, in).algorithm, "mpi");
  in.library = "open_mpi";
  EXPECT_EQ(config.select(Collective::Bcast, in).algorithm, "shm");
}

// Reductions: shm in one node up to 64 KiB, two_level over nodes of several ranks, else by
// size at 2 KiB.
TEST(CollSelection, ReductionRulesFollowHierarchyAndSize) {
  EXPECT_EQ(select(Collective::Allreduce, {8, 1, 8, 65535}).algorithm, "shm");
  EXPECT_EQ(select(Collective::Allreduce, {8, 1, 8, 65536}).algorithm, "reduce_scatter_allgather");
  EXPECT_EQ(select(Collective::Allreduce, {8, 2, 4, 8}).algorithm, "two_level");
  EXPECT_EQ(select(Collective::Allreduce, {8, 8, 1, 2047}).algorithm, "recursive_doubling");
  EXPECT_EQ(select(Collective::Allreduce, {8, 8, 1, 2048}).algorithm, "reduce_scatter_allgather");
  EXPECT_EQ(select(Collective::Reduce, {1, 1, 1, 100}).algorithm, "binomial");
  EXPECT_EQ(select(Collective::Reduce, {6, 1, 6, 100}).algorithm, "shm");
  EXPECT_EQ(select(Collective::Reduce, {6, 1, 6, 1 << 20}).algorithm, "reduce_scatter_gather");
  EXPECT_EQ(select(Collective::Reduce, {6, 3, 2, 1 << 20}).algorithm, "two_level");
  EXPECT_EQ(select(Collective::Reduce, {6, 6, 1, 8}).algorithm, "binomial");
  EXPECT_EQ(select(Collective::Reduce, {6, 6, 1, 1 << 20}).algorithm, "reduce_scatter_gather");
  for (Collective c : {Collective::Reduce, Collective::Allreduce})
    for (const Rule &rule : builtin_rules(c)) EXPECT_NE(find_algorithm(c, rule.algorithm), nullptr) << rule.algorithm;
}

TEST(CollSelection, ReductionOverridesAndTuningRules) {
  {
    EnvGuard env("CANOPY_ALLREDUCE_ALGORITHM", "ring");
    EXPECT_EQ(select(Collective::Allreduce, {8, 1, 8, 100}).algorithm, "ring");
    EXPECT_EQ(select(Collective::Reduce, {8, 1, 8, 100}).algorithm, "shm");
  }
  {
    EnvGuard env("CANOPY_REDUCE_ALGORITHM", "ring");  // a name of Allreduce only
    EXPECT_NE(config_error().find("binomial, reduce_scatter_gather, shm, two_level"), std::string::npos)
        << config_error();
  }
  std::string path = ::testing::TempDir() + "canopy_reduce_tuning.json";
  write_file_atomic(path, R"({"reduce": [{"bytes": [0, 64], "algorithm": "reduce_scatter_gather"}],
                              "allreduce": [{"nodes": [2, null], "algorithm": "ring"}]})");
  EnvGuard env("CANOPY_COLL_TUNING_FILE", path.c_str());
  EXPECT_EQ(select(Collective::Reduce, {8, 2, 4, 64}).algorithm, "reduce_scatter_gather");
  EXPECT_EQ(select(Collective::Reduce, {8, 2, 4, 65}).algorithm, "two_level");
  EXPECT_EQ(select(Collective::Allreduce, {8, 2, 4, 8}).algorithm, "ring");
}

TEST(CollConfig, ReductionInterAlgorithmsAreResolved) {
  CollConfig defaults = CollConfig::from_params();
  EXPECT_EQ(defaults.reduce_inter_algorithm, "binomial");
  EXPECT_EQ(defaults.allreduce_inter_algorithm, "recursive_doubling");
  EnvGuard env("CANOPY_COLL_ALLREDUCE_INTER_ALGORITHM", "ring");
  EXPECT_EQ(CollConfig::from_params().allreduce_inter_algorithm, "ring");
}

TEST(CollSelection, EnvironmentOverrideWinsAndIsChecked) {
  {
    EnvGuard env("CANOPY_BCAST_ALGORITHM", "chain");
    Selection s = select(Collective::Bcast, {8, 1, 8, 100});
    EXPECT_EQ(s.algorithm, "chain");
    EXPECT_NE(s.reason.find("bcast_algorithm"), std::string::npos);
  }
  EnvGuard bad("CANOPY_BCAST_ALGORITHM", "nonesuch");
  try {
    select(Collective::Bcast, {8, 1, 8, 100});
    FAIL() << "no error";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("binomial, knomial"), std::string::npos) << e.what();
  }
}

TEST(CollConfig, ParametersAreCheckedWhenResolved) {
  EXPECT_EQ(config_error(), "no error");
  {
    EnvGuard env("CANOPY_COLL_BCAST_KNOMIAL_RADIX", "1");
    EXPECT_NE(config_error().find("CANOPY_COLL_BCAST_KNOMIAL_RADIX: coll_bcast_knomial_radix must be 2..64"), std::string::npos) << config_error();
  }
  {
    EnvGuard env("CANOPY_COLL_SHM_MODE", "fast");
    EXPECT_NE(config_error().find("'fast' is not one_stage or pipelined"), std::string::npos) << config_error();
  }
  {
    EnvGuard bytes("CANOPY_COLL_SHM_BUFFER_BYTES", "1073741824"), buffers("CANOPY_COLL_SHM_BUFFERS", "4");
    EXPECT_NE(config_error().find("at most 2 GiB"), std::string::npos) << config_error();
  }
  EnvGuard env("CANOPY_COLL_SHM_BUFFERS", "3");
  EXPECT_EQ(CollConfig::from_params().shm_buffers, 3);
}

TEST(CollSelection, TuningFileRulesComeBeforeBuiltIns) {
  std::string path = ::testing::TempDir() + "canopy_tuning.json";
  write_file_atomic(path, R"({"bcast": [{"nodes": [2, null], "bytes": [0, 1000], "algorithm": "binomial"}]})");
  EnvGuard env("CANOPY_COLL_TUNING_FILE", path.c_str());
  Selection s = select(Collective::Bcast, {8, 2, 4, 100});
  EXPECT_EQ(s.algorithm, "binomial");
  EXPECT_NE(s.reason.find("rule 1"), std::string::npos);
  EXPECT_EQ(select(Collective::Bcast, {8, 2, 4, 5000}).algorithm, "two_level");
}

TEST(CollSelection, TuningFileCoversTheNewCollectives) {
  std::string path = ::testing::TempDir() + "canopy_tuning_rooted.json";
  write_file_atomic(path, R"({"scatter": [{"bytes": [0, 100], "algorithm": "linear"}],
                             "alltoall": [{"comm_size": [2, 64], "algorithm": "bruck"}]})");
  EnvGuard env("CANOPY_COLL_TUNING_FILE", path.c_str());
  EXPECT_EQ(select(Collective::Scatter, {8, 1, 8, 64}).algorithm, "linear");
  EXPECT_EQ(select(Collective::Gather, {8, 1, 8, 64}).algorithm, "shm");  // the scatter rule is not the gather's
  EXPECT_EQ(select(Collective::Alltoall, {8, 1, 8, 64}).algorithm, "bruck");
  EnvGuard forced("CANOPY_GATHER_ALGORITHM", "binomial");
  EXPECT_EQ(select(Collective::Gather, {8, 1, 8, 64}).algorithm, "binomial");
  write_file_atomic(path, R"({"gather": [{"algorithm": "pairwise"}]})");
  EXPECT_NE(config_error().find("'pairwise' is not a gather algorithm (binomial, linear, shm, two_level, mpi)"),
            std::string::npos)
      << config_error();
  write_file_atomic(path, "{\"gather\": [\n  {\"algorithm\": \"linear\",}\n]}");
  EXPECT_NE(config_error().find(path + ":2: not valid JSON"), std::string::npos) << config_error();
}

TEST(CollSelection, BadTuningRulesNameTheRule) {
  auto error_of = [](const char *text) {
    try {
      parse_tuning_rules(nlohmann::json::parse(text), Collective::Bcast, "t.json");
    } catch (const Error &e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error_of(R"({"bcast": [{"algorithm": "ring"}]})").find("t.json: bcast rule 1"), std::string::npos);
  EXPECT_NE(error_of(R"({"bcast": [{"bytes": [5, 1], "algorithm": "chain"}]})").find("empty"), std::string::npos);
  EXPECT_NE(error_of(R"({"bcast": [{"colour": 1, "algorithm": "chain"}]})").find("colour"), std::string::npos);
  EXPECT_NE(error_of(R"({"bcast": {}})").find("list"), std::string::npos);
}

// canopy bench --write-tuning: a measured size's fastest algorithm holds up to the next size,
// equal neighbours share a rule, and the largest size ends the last one.
TEST(CollTuning, MeasuredRulesCoverTheMeasuredSizes) {
  SelectionInput shape{32, 2, 16, 0, "open_mpi"};
  std::vector<Rule> rules = measured_rules(
      shape, {{1, "shm"}, {2, "shm"}, {4, "mpi"}, {8, "shm"}, {16, "shm"}, {32, "shm"}}, true);
  ASSERT_EQ(rules.size(), 3u);
  EXPECT_EQ(rules[0].algorithm, "shm");
  EXPECT_EQ(rules[0].bytes.min, 1);
  EXPECT_EQ(rules[0].bytes.max, 3);
  EXPECT_EQ(rules[1].algorithm, "mpi");
  EXPECT_EQ(rules[1].bytes.min, 4);
  EXPECT_EQ(rules[1].bytes.max, 7);
  EXPECT_EQ(rules[2].bytes.min, 8);
  EXPECT_EQ(rules[2].bytes.max, 32);
  for (const Rule &r : rules) {
    EXPECT_TRUE(r.matches({32, 2, 16, static_cast<size_t>(r.bytes.min), "open_mpi"}));
    EXPECT_FALSE(r.matches({32, 2, 16, static_cast<size_t>(r.bytes.min), "mpich"}));
    EXPECT_FALSE(r.matches({32, 2, 8, static_cast<size_t>(r.bytes.min), "open_mpi"}));
    EXPECT_FALSE(r.matches({64, 2, 16, static_cast<size_t>(r.bytes.min), "open_mpi"}));
  }
  EXPECT_FALSE(rules[2].matches({32, 2, 16, 33, "open_mpi"}));  // not measured: the rules after decide
  std::vector<Rule> barrier = measured_rules(shape, {{0, "dissemination"}}, false);
  ASSERT_EQ(barrier.size(), 1u);
  EXPECT_TRUE(barrier[0].matches({32, 2, 16, 0, "open_mpi"}));
  EXPECT_EQ(rule_json(barrier[0]).dump(),
            R"({"comm_size":[32,32],"nodes":[2,2],"ranks_per_node":[16,16],"library":"open_mpi","algorithm":"dissemination"})");
}

TEST(CollTuning, MergingReplacesTheShapeAndKeepsTheRest) {
  SelectionInput shape{4, 1, 4, 0, "open_mpi"};
  std::vector<Rule> rules = measured_rules(shape, {{1, "shm"}, {2, "mpi"}}, true);
  nlohmann::json doc = nlohmann::json::parse(R"({
    "comment": "mine",
    "bcast": [{"comm_size": [4, 4], "nodes": [1, 1], "ranks_per_node": [4, 4], "library": "open_mpi", "algorithm": "chain"},
              {"comm_size": [4, 4], "nodes": [1, 1], "ranks_per_node": [4, 4], "algorithm": "knomial"},
              {"nodes": [2, null], "bytes": [0, 1024], "algorithm": "binomial"}],
    "allgather": [{"algorithm": "ring"}]})");
  std::string text = merge_tuning_rules(doc, Collective::Bcast, rules, "t.json");
  nlohmann::json merged = nlohmann::json::parse(text);
  EXPECT_EQ(merged["comment"], "mine");
  EXPECT_EQ(merged["allgather"], doc["allgather"]);
  std::vector<Rule> bcast = parse_tuning_rules(merged, Collective::Bcast, "t.json");
  ASSERT_EQ(bcast.size(), 4u);  // the two measured, then the other MPI's and the other shape's
  EXPECT_EQ(bcast[0].algorithm, "shm");
  EXPECT_EQ(bcast[1].algorithm, "mpi");
  EXPECT_EQ(bcast[2].algorithm, "knomial");
  EXPECT_EQ(bcast[3].algorithm, "binomial");
  EXPECT_EQ(merged["bcast"][3], doc["bcast"][2]);  // a kept rule reads as it was written
  EXPECT_NE(text.find("\n    {\"comm_size\":[4,4],"), std::string::npos) << text;  // a rule per line
  // Measuring again replaces the measured rules; a new file holds the collective alone.
  std::vector<Rule> again = measured_rules(shape, {{1, "binomial"}}, true);
  EXPECT_EQ(parse_tuning_rules(nlohmann::json::parse(merge_tuning_rules(merged, Collective::Bcast, again, "t.json")),
                               Collective::Bcast, "t.json")
                .size(),
            3u);
  nlohmann::json fresh = nlohmann::json::parse(merge_tuning_rules(nlohmann::json::object(), Collective::Bcast, again, "t.json"));
  EXPECT_EQ(fresh.size(), 1u);
  EXPECT_EQ(fresh["bcast"][0]["algorithm"], "binomial");
  // Rules that do not parse are an error, not lost.
  EXPECT_THROW(merge_tuning_rules(nlohmann::json::parse(R"({"allgather": [{"algorithm": "nosuch"}]})"),
                                  Collective::Bcast, again, "t.json"),
               Error);
}

TEST(CollLeaderOrder, TreeParentsFollowTheBcastAlgorithms) {
  EXPECT_EQ(bcast_tree_parents("binomial", 8, 4), (std::vector<int>{-1, 0, 0, 2, 0, 4, 4, 6}));
  EXPECT_EQ(bcast_tree_parents("scatter_ring_allgather", 5, 4), (std::vector<int>{-1, 0, 0, 2, 0}));
  EXPECT_EQ(bcast_tree_parents("knomial", 9, 4), (std::vector<int>{-1, 0, 0, 0, 0, 4, 4, 4, 0}));
  EXPECT_EQ(bcast_tree_parents("chain", 4, 4), (std::vector<int>{-1, 0, 1, 2}));
}

// Two switches of four leaders each, listed alternately (a scattered allocation): 1 between
// leaders of one switch, 3 across. The root's binomial subtree of four positions (4-7) should
// stay on the root's switch, depth first; identity crosses switches on 4 of the 7 tree edges.
TEST(CollLeaderOrder, CriticalPositionsTakeTheNearestLeaders) {
  const int n = 8;
  std::vector<float> delay(n * n, 3);
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b)
      if (a == b) delay[a * n + b] = 0;
      else if (a % 2 == b % 2) delay[a * n + b] = 1;
  DelaysFrom delays = [&](int from, std::vector<float> &row) {
    row.assign(delay.begin() + from * n, delay.begin() + (from + 1) * n);
  };
  std::vector<int> parent = bcast_tree_parents("binomial", n, 4);
  auto crossings = [&](const std::vector<int> &leader) {
    int crossing = 0;
    for (int p = 1; p < n; ++p) crossing += leader[p] % 2 != leader[parent[p]] % 2;
    return crossing;
  };
  std::vector<int> identity = order_leaders(parent, 0, delays, LeaderOrder::None);
  EXPECT_EQ(identity, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(crossings(identity), 4);
  // Depth first: positions 4, 6, 7, 5, 2, 3, 1.
  std::vector<int> dft = order_leaders(parent, 0, delays, LeaderOrder::DepthFirst);
  EXPECT_EQ(dft, (std::vector<int>{0, 7, 3, 5, 2, 1, 4, 6}));
  EXPECT_EQ(crossings(dft), 3);
  // Breadth first: positions 4, 2, 1, 6, 5, 3, 7.
  std::vector<int> bft = order_leaders(parent, 0, delays, LeaderOrder::BreadthFirst);
  EXPECT_EQ(bft, (std::vector<int>{0, 6, 4, 5, 2, 3, 1, 7}));
  EXPECT_EQ(crossings(bft), 3);  // the root's three children on its switch
  // Another root keeps position 0; without an order the tree rotates from it.
  EXPECT_EQ(order_leaders(parent, 5, delays, LeaderOrder::DepthFirst)[0], 5);
  EXPECT_EQ(order_leaders(parent, 5, delays, LeaderOrder::None), (std::vector<int>{5, 6, 7, 0, 1, 2, 3, 4}));
  // Every order is a permutation.
  for (LeaderOrder how : {LeaderOrder::DepthFirst, LeaderOrder::BreadthFirst})
    for (int root = 0; root < n; ++root) {
      std::vector<int> order = order_leaders(parent, root, delays, how);
      std::sort(order.begin(), order.end());
      EXPECT_EQ(order, identity);
    }
}

// A message's delays: hops x latency + bytes / rate; within 5% of the least they tie and the
// scheduler's order (the lowest leader index) wins, so a large message on a fabric of one speed
// keeps the leaders as listed while a small one goes to the nearest.
TEST(CollLeaderOrder, LargeMessagesOnOneSpeedKeepTheSchedulersOrder) {
  EXPECT_EQ(delay_size_class(1), 1u);
  EXPECT_EQ(delay_size_class(1000), 1024u);
  EXPECT_EQ(delay_size_class(65536), 65536u);
  // Leaders 0, 2 on one switch (2 links apart), 1, 3 on another (3 links from 0 and 2), 8 Gb/s.
  LeaderLinks links{{0, 3, 2, 3, 3, 0, 3, 2, 2, 3, 0, 3, 3, 2, 3, 0}, std::vector<float>(16, 1 / 8.0f), {}};
  DelaysFrom small = message_delays(links, 0.1, 1024);
  std::vector<float> row(4);
  small(0, row);
  EXPECT_FLOAT_EQ(row[1], 0.3f + 1.024f);
  EXPECT_FLOAT_EQ(row[2], 0.2f + 1.024f);
  EXPECT_FLOAT_EQ(row[0], 1.024f);
  std::vector<int> parent = bcast_tree_parents("binomial", 4, 4);  // positions 2 (child 3), then 1
  EXPECT_EQ(order_leaders(parent, 0, small, LeaderOrder::DepthFirst), (std::vector<int>{0, 3, 2, 1}));
  DelaysFrom large = message_delays(links, 0.1, 65536);  // 65.5 us: 0.1 us more is 0.15%
  EXPECT_EQ(order_leaders(parent, 0, large, LeaderOrder::DepthFirst), (std::vector<int>{0, 3, 1, 2}));
  // A slower link is never a tie: leader 1 at a quarter of the rate comes last.
  for (int a = 0; a < 4; ++a) links.inverse_gbps[a * 4 + 1] = links.inverse_gbps[1 * 4 + a] = 1 / 2.0f;
  EXPECT_EQ(order_leaders(parent, 0, message_delays(links, 0.1, 65536), LeaderOrder::DepthFirst),
            (std::vector<int>{0, 1, 2, 3}));
}

// Without topo_server, the paper's speed-aware delays (IV-B2): between two leaders, the slower
// HCA's rate. From a fast leader the fast ones come first; from a slow one every leader ties
// (the slower rate is its own), and the scheduler's order fills the positions.
TEST(CollLeaderOrder, HcaRatesSendFromFastLeadersToFastOnesFirst) {
  EXPECT_FALSE(LeaderLinks::from_rates({16, 16, 16}));  // one rate: every delay would tie
  LeaderLinks links = *LeaderLinks::from_rates({8, 16, 8, 16});  // 4X SDR and 4X DDR, as ibsim's hosts
  EXPECT_TRUE(links.hops.empty() && links.inverse_gbps.empty());  // n numbers, not n x n
  DelaysFrom delays = message_delays(links, 0.1, 1024);  // 8.192 kbit, no hops
  std::vector<float> row(4);
  delays(1, row);
  EXPECT_EQ(row, (std::vector<float>{8.192f / 8, 8.192f / 16, 8.192f / 8, 8.192f / 16}));
  delays(0, row);
  EXPECT_EQ(row, std::vector<float>(4, 8.192f / 8));
  std::vector<int> binomial = bcast_tree_parents("binomial", 4, 4);  // positions 2 (child 3), then 1
  // (tests/mpi/bcast_hca_rates.sh expects these orders from a real job.)
  const std::vector<std::vector<int>> bft = {{0, 2, 1, 3}, {1, 0, 3, 2}, {2, 1, 0, 3}, {3, 0, 1, 2}};
  for (int root = 0; root < 4; ++root)
    EXPECT_EQ(order_leaders(binomial, root, delays, LeaderOrder::BreadthFirst), bft[root]) << root;
  // Eight leaders, one slow (leader 5): from a fast root it takes the position visited last, a
  // leaf (position -> leader below).
  std::vector<double> gbps(8, 32);
  gbps[5] = 8;
  LeaderLinks eight = *LeaderLinks::from_rates(gbps);
  std::vector<int> order = order_leaders(bcast_tree_parents("binomial", 8, 4), 0, message_delays(eight, 0.1, 65536),
                                         LeaderOrder::BreadthFirst);  // positions 4, 2, 1, 6, 5, 3, 7
  EXPECT_EQ(order, (std::vector<int>{0, 3, 2, 7, 1, 6, 4, 5}));
}

TEST(CollLeaderOrder, TheParameterIsChecked) {
  {
    EnvGuard env("CANOPY_COLL_BCAST_LEADER_ORDER", "bft");
    EXPECT_EQ(CollConfig::from_params().bcast_leader_order, LeaderOrder::BreadthFirst);
  }
  EnvGuard env("CANOPY_COLL_BCAST_LEADER_ORDER", "sideways");
  EXPECT_NE(config_error().find("CANOPY_COLL_BCAST_LEADER_ORDER: 'sideways' is not none, dft or bft"), std::string::npos)
      << config_error();
}

TEST(CollLayout, HostMapExpandsCountsAndReportsLines) {
  std::vector<std::string> hosts = parse_hostmap("# two nodes\nalpha:2\n\nbeta   # one\n", "m");
  EXPECT_EQ(hosts, (std::vector<std::string>{"alpha", "alpha", "beta"}));
  auto error_of = [](const char *text) {
    try {
      parse_hostmap(text, "m");
    } catch (const Error &e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error_of("a\nb:x\n").find("m:2:"), std::string::npos);
  EXPECT_NE(error_of("a\nb:0\n").find("m:2:"), std::string::npos);
  EXPECT_NE(error_of("a b\n").find("m:1:"), std::string::npos);
  EXPECT_NE(error_of("# nothing\n").find("no host"), std::string::npos);
}

TEST(CollLayout, SyntheticDomainsWrapAroundTheCores) {
  EXPECT_EQ(synthetic_domains("pack:2 core:2 pu:1", 6, LeaderDomain::Package), (std::vector<int>{0, 0, 1, 1, 0, 0}));
  EXPECT_EQ(synthetic_domains("core:4 pu:2", 3, LeaderDomain::Package), (std::vector<int>{0, 0, 0}));
  EXPECT_THROW(synthetic_domains("bogus:2", 2, LeaderDomain::Package), Error);
  // Two packages of two NUMA nodes each (AMD NPS2): four domains by NUMA node, two by package.
  const char *nps2 = "pack:2 numa:2 core:2 pu:1";
  EXPECT_EQ(synthetic_domains(nps2, 8, LeaderDomain::Numa), (std::vector<int>{0, 0, 1, 1, 2, 2, 3, 3}));
  EXPECT_EQ(synthetic_domains(nps2, 8, LeaderDomain::Package), (std::vector<int>{0, 0, 0, 0, 1, 1, 1, 1}));
}

TEST(CollLayout, LeaderGroupsPerSocketOrByCount) {
  std::vector<int> sockets = {1, 0, 1, 0, 0};
  EXPECT_EQ(leader_groups(sockets, 0), (std::vector<int>{1, 0, 1, 0, 0}));
  EXPECT_EQ(leader_groups(sockets, 1), (std::vector<int>{0, 0, 0, 0, 0}));
  // Two groups in (socket, rank) order: ranks 1, 3, 4 | 0, 2... cut at 5*g/2.
  EXPECT_EQ(leader_groups(sockets, 2), (std::vector<int>{1, 0, 1, 0, 0}));
  EXPECT_EQ(leader_groups(sockets, 9), (std::vector<int>{3, 0, 4, 1, 2}));
  EXPECT_EQ(leader_groups({}, 2), std::vector<int>{});
}

// Table 1 of the multi-leader paper: p2p multi-leader for small blocks, shared-memory
// multi-leader for medium ones, the conventional ring for large ones; flat on one node or
// with one rank per node.
TEST(CollSelection, AllgatherFollowsTheMultiLeaderTable) {
  EXPECT_EQ(select(Collective::Allgather, {64, 4, 16, 1}).algorithm, "multi_leader_p2p");
  EXPECT_EQ(select(Collective::Allgather, {64, 4, 16, 1023}).algorithm, "multi_leader_p2p");
  EXPECT_EQ(select(Collective::Allgather, {64, 4, 16, 1024}).algorithm, "multi_leader_shm");
  EXPECT_EQ(select(Collective::Allgather, {64, 4, 16, 16383}).algorithm, "multi_leader_shm");
  EXPECT_EQ(select(Collective::Allgather, {64, 4, 16, 16384}).algorithm, "ring");
  EXPECT_EQ(select(Collective::Allgather, {16, 1, 16, 64}).algorithm, "recursive_doubling");
  EXPECT_EQ(select(Collective::Allgather, {16, 16, 1, 4096}).algorithm, "recursive_doubling");
  EXPECT_EQ(select(Collective::Allgather, {16, 16, 1, 1 << 20}).algorithm, "ring");
}

TEST(CollConfig, MultiLeaderParameters) {
  CollConfig defaults = CollConfig::from_params();
  EXPECT_EQ(defaults.leaders_per_node, 0);  // one leader per socket
  EXPECT_EQ(defaults.leader_domain, LeaderDomain::Package);
  EXPECT_EQ(defaults.allgather_intra, GroupAggregation::RecursiveDoubling);
  {
    EnvGuard env("CANOPY_COLL_LEADER_DOMAIN", "numa");
    EXPECT_EQ(CollConfig::from_params().leader_domain, LeaderDomain::Numa);
  }
  {
    EnvGuard env("CANOPY_COLL_LEADER_DOMAIN", "socket");
    EXPECT_NE(config_error().find("CANOPY_COLL_LEADER_DOMAIN: 'socket' is not package or numa"), std::string::npos)
        << config_error();
  }
  {
    EnvGuard env("CANOPY_COLL_ALLGATHER_INTRA_ALGORITHM", "gather");
    EXPECT_EQ(CollConfig::from_params().allgather_intra, GroupAggregation::Gather);
  }
  {
    EnvGuard env("CANOPY_COLL_ALLGATHER_INTRA_ALGORITHM", "bruck");
    EXPECT_NE(config_error().find("CANOPY_COLL_ALLGATHER_INTRA_ALGORITHM: 'bruck'"), std::string::npos) << config_error();
  }
  EnvGuard env("CANOPY_COLL_LEADERS_PER_NODE", "-1");
  EXPECT_NE(config_error().find("CANOPY_COLL_LEADERS_PER_NODE: coll_leaders_per_node must be 0.."), std::string::npos) << config_error();
}

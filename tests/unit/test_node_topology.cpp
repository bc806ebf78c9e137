// The node level from hwloc: synthetic descriptions, XML round trips, this
// machine, and errors.
#include <gtest/gtest.h>
#include <hwloc.h>

#include <chrono>
#include <sched.h>

#include "common/error.h"
#include "common/file_io.h"
#include "topo/node_topology.h"

using namespace canopy;
using canopy::topo::NodeTopology;
using canopy::topo::CpuLevel;

namespace {
canopy_status_t status_of(const std::string &spec, std::string *message = nullptr) {
  canopy_status_t status = guard([&] { NodeTopology::load(spec); });
  if (message) *message = canopy_last_error();
  return status;
}
}  // namespace

TEST(NodeTopology, SyntheticTwoPackages) {
  NodeTopology node = NodeTopology::load("pack:2 core:4 pu:2");
  EXPECT_EQ(node.num_packages(), 2);
  EXPECT_EQ(node.num_cores(), 8);
  EXPECT_EQ(node.num_pus(), 16);
  EXPECT_GE(node.num_numa_nodes(), 1);
  EXPECT_STREQ(node.kind(), "synthetic");
  EXPECT_EQ(node.level_names(), (std::vector<std::string>{"Machine", "Package", "Core", "PU"}));
  EXPECT_EQ(node.cpu_distance(CpuLevel::Core, 3, 3), 0);
  EXPECT_EQ(node.cpu_distance(CpuLevel::Core, 0, 3), 1);  // same package
  EXPECT_EQ(node.cpu_distance(CpuLevel::Core, 0, 4), 2);  // different packages
  EXPECT_LT(node.cpu_distance(CpuLevel::Core, 4, 7), node.cpu_distance(CpuLevel::Core, 3, 4));
  EXPECT_EQ(node.core_packages(), (std::vector<int>{0, 0, 0, 0, 1, 1, 1, 1}));
  EXPECT_EQ(guard([&] { node.cpu_distance(CpuLevel::Core, 0, 8); }), CANOPY_ERR_INVALID_ARG);
  EXPECT_EQ(guard([&] { node.cpu_package(CpuLevel::Core, -1); }), CANOPY_ERR_INVALID_ARG);
  // The same at the level of the PUs, two per core.
  EXPECT_EQ(node.num_cpus(CpuLevel::PU), 16);
  EXPECT_EQ(node.num_cpus(CpuLevel::Core), 8);
  EXPECT_EQ(node.core_pus(1), (std::vector<int>{2, 3}));
  EXPECT_EQ(node.cpu_distance(CpuLevel::PU, 2, 2), 0);
  EXPECT_EQ(node.cpu_distance(CpuLevel::PU, 2, 3), 1);  // same core
  EXPECT_EQ(node.cpu_distance(CpuLevel::PU, 0, 7), 2);  // same package
  EXPECT_EQ(node.cpu_distance(CpuLevel::PU, 0, 8), 3);
  EXPECT_EQ(node.cpu_package(CpuLevel::PU, 7), 0);
  // Packages as a level of their own: a package is its own package.
  EXPECT_EQ(node.num_cpus(CpuLevel::Package), 2);
  EXPECT_EQ(node.cpu_package(CpuLevel::Package, 1), 1);
  EXPECT_EQ(node.cpu_distance(CpuLevel::Package, 0, 0), 0);
  EXPECT_EQ(node.cpu_distance(CpuLevel::Package, 0, 1), 1);
  EXPECT_EQ(node.cpu_package(CpuLevel::PU, 8), 1);
  EXPECT_EQ(guard([&] { node.cpu_distance(CpuLevel::PU, 0, 16); }), CANOPY_ERR_INVALID_ARG);
  // Without Core objects the PUs are the cores.
  NodeTopology bare = NodeTopology::load("pack:2 pu:3");
  EXPECT_EQ(bare.num_cpus(CpuLevel::Core), 6);
  EXPECT_EQ(bare.core_pus(4), (std::vector<int>{4}));
}

TEST(NodeTopology, NumaAndCacheLevels) {
  NodeTopology node = NodeTopology::load("numa:2 pack:1 l3:1 core:8 pu:2");
  EXPECT_EQ(node.num_numa_nodes(), 2);
  EXPECT_EQ(node.num_cores(), 16);
  EXPECT_EQ(node.num_pus(), 32);
  std::vector<std::string> levels = node.level_names();
  EXPECT_NE(std::find(levels.begin(), levels.end(), "L3Cache"), levels.end());
  EXPECT_EQ(node.core_numa(0), 0);
  EXPECT_EQ(node.core_numa(15), 1);
  EXPECT_EQ(node.cpu_distance(CpuLevel::Core, 0, 7), 1);   // same L3
  EXPECT_EQ(node.cpu_distance(CpuLevel::Core, 0, 8), 3);   // up through L3 and package to the machine

  nlohmann::json j = node.to_json();
  EXPECT_EQ(j["spec"], "numa:2 pack:1 l3:1 core:8 pu:2");
  EXPECT_EQ(j["cores"], 16);
  EXPECT_EQ(j["numa_nodes"], 2);
  ASSERT_EQ(j["levels"].size(), levels.size());
  EXPECT_EQ(j["levels"][0]["type"], "Machine");
  EXPECT_EQ(j["levels"].back()["type"], "PU");
  EXPECT_EQ(j["levels"].back()["arity_max"], 0);
  for (const auto &level : j["levels"])
    if (level["type"] == "L3Cache") {
      EXPECT_EQ(level["count"], 2);
      EXPECT_EQ(level["arity_min"], 8);
      EXPECT_EQ(level["arity_max"], 8);
    }
  EXPECT_EQ(j["core_numa"].size(), 16u);
}

// Where hwloc finds no Core objects (some platforms and VMs, hwloc's own
// 8intel64-4n2t-memattrs.xml), the PUs stand for them, as in Open MPI.
TEST(NodeTopology, PusStandForMissingCores) {
  NodeTopology node = NodeTopology::load("numa:2 pu:4");
  EXPECT_TRUE(node.pus_as_cores());
  EXPECT_EQ(node.num_cores(), 8);
  EXPECT_EQ(node.cpu_distance(CpuLevel::Core, 0, 3), 1);  // same NUMA node's group
  EXPECT_EQ(node.cpu_distance(CpuLevel::Core, 0, 4), 2);
  EXPECT_EQ(node.core_numa(7), 1);
  EXPECT_EQ(node.core_packages(), std::vector<int>(8, -1));
  EXPECT_EQ(node.to_json()["core_type"], "PU");
  NodeTopology packed = NodeTopology::load("pack:2 pu:2");
  EXPECT_EQ(packed.core_packages(), (std::vector<int>{0, 0, 1, 1}));
  EXPECT_EQ(guard([&] { packed.cpu_package(CpuLevel::Core, 4); }), CANOPY_ERR_INVALID_ARG);
  NodeTopology cores = NodeTopology::load("pack:1 core:2 pu:2");
  EXPECT_FALSE(cores.pus_as_cores());
  EXPECT_EQ(cores.num_cores(), 2);
  EXPECT_EQ(cores.to_json()["core_type"], "Core");
}

// A cgroup-restricted node (allowed_cpuset narrower than cpuset): only the allowed
// cores exist, numbered 0.. in order, the logical indexes Open MPI's rankfile uses.
TEST(NodeTopology, DisallowedCoresAreLeftOut) {
  hwloc_topology_t source;
  ASSERT_EQ(hwloc_topology_init(&source), 0);
  ASSERT_EQ(hwloc_topology_set_flags(source, HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED), 0);
  ASSERT_EQ(hwloc_topology_set_synthetic(source, "pack:2 core:4 pu:2"), 0);
  ASSERT_EQ(hwloc_topology_load(source), 0);
  hwloc_bitmap_t allowed = hwloc_bitmap_alloc();
  hwloc_bitmap_sscanf(allowed, "0x00003c3c");  // cores 1, 2 of each package
  ASSERT_EQ(hwloc_topology_allow(source, allowed, nullptr, HWLOC_ALLOW_FLAG_CUSTOM), 0);
  hwloc_bitmap_free(allowed);
  std::string path = ::testing::TempDir() + "canopy_restricted.xml";
  ASSERT_EQ(hwloc_topology_export_xml(source, path.c_str(), 0), 0);
  hwloc_topology_destroy(source);

  NodeTopology node = NodeTopology::load(path);
  EXPECT_EQ(node.num_cores(), 4);
  EXPECT_EQ(node.num_pus(), 8);
  EXPECT_EQ(node.core_packages(), (std::vector<int>{0, 0, 1, 1}));
}

TEST(NodeTopology, XmlRoundTrip) {
  hwloc_topology_t source;
  ASSERT_EQ(hwloc_topology_init(&source), 0);
  ASSERT_EQ(hwloc_topology_set_synthetic(source, "pack:2 l3:1 core:3 pu:2"), 0);
  ASSERT_EQ(hwloc_topology_load(source), 0);
  std::string path = ::testing::TempDir() + "canopy_node.xml";
  ASSERT_EQ(hwloc_topology_export_xml(source, path.c_str(), 0), 0);
  hwloc_topology_destroy(source);

  NodeTopology node = NodeTopology::load(path);
  EXPECT_STREQ(node.kind(), "xml");
  EXPECT_EQ(node.num_packages(), 2);
  EXPECT_EQ(node.num_cores(), 6);
  EXPECT_EQ(node.num_pus(), 12);
  EXPECT_EQ(node.cpu_distance(CpuLevel::Core, 0, 3), 3);
  EXPECT_EQ(node.to_json()["kind"], "xml");
}

TEST(NodeTopology, InvalidInputs) {
  std::string message;
  EXPECT_EQ(status_of("pack:2 foo:3", &message), CANOPY_ERR_PARSE);
  EXPECT_NE(message.find("unknown object type at 'foo:3'"), std::string::npos) << message;
  EXPECT_EQ(status_of("pack:2 core pu:2", &message), CANOPY_ERR_PARSE);
  EXPECT_NE(message.find("no ':'"), std::string::npos) << message;
  EXPECT_EQ(status_of("pack:x pu:2", &message), CANOPY_ERR_PARSE);
  EXPECT_EQ(status_of("pack:-1 core:2 pu:1", &message), CANOPY_ERR_PARSE);  // not 2^64 - 1 objects
  EXPECT_NE(message.find("no number of objects at 'pack:-1'"), std::string::npos) << message;
  EXPECT_EQ(status_of("pack:2 core:4", &message), CANOPY_ERR_PARSE);  // no PU level
  EXPECT_EQ(status_of("garbage", &message), CANOPY_ERR_PARSE);
  EXPECT_EQ(status_of("pack:2 foo:8\ncore:2 pu:1", &message), CANOPY_ERR_PARSE);  // one line, newline shown as '?'
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  EXPECT_NE(message.find("'pack:2 foo:8?core:2 pu:1'"), std::string::npos) << message;

  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(status_of("pack:1024 core:1024 pu:1024", &message), CANOPY_ERR_PARSE);
  EXPECT_NE(message.find("more than 8192"), std::string::npos) << message;
  // A flat level hwloc would take minutes to build (and 'pack:1024 core:1024 pu:1' never finishes).
  EXPECT_EQ(status_of("core:16384 pu:1", &message), CANOPY_ERR_PARSE);
  EXPECT_EQ(status_of("pack:1024 core:1024 pu:1", &message), CANOPY_ERR_PARSE);
  EXPECT_EQ(status_of("pack:2 core:8x pu:1", &message), CANOPY_ERR_PARSE);
  EXPECT_NE(message.find("not a number at 'core:8x'"), std::string::npos) << message;
  EXPECT_EQ(status_of("pack:2 core:0x4 pu:2(indexes=0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15)"), CANOPY_SUCCESS);
  EXPECT_EQ(status_of("pack:0x100000 pu:2"), CANOPY_ERR_PARSE);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));

  EXPECT_EQ(status_of("/nonexistent/canopy.xml", &message), CANOPY_ERR_IO);
  std::string bad = ::testing::TempDir() + "canopy_bad.xml";
  write_file_atomic(bad, "<topology><object type=\"Nonsense\">");
  EXPECT_EQ(status_of(bad, &message), CANOPY_ERR_PARSE);
  EXPECT_NE(message.find(bad), std::string::npos);
}

// The core under this process's binding (what MPI task mapping gathers from every rank), and
// its NUMA node (the collectives' leader groups with coll_leader_domain=numa).
TEST(NodeTopology, BoundCoreFollowsTheBinding) {
  cpu_set_t saved;
  ASSERT_EQ(sched_getaffinity(0, sizeof saved, &saved), 0);
  std::vector<int> cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &saved)) cpus.push_back(cpu);
  ASSERT_FALSE(cpus.empty());
  auto bind_to = [](int cpu) {
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    return sched_setaffinity(0, sizeof one, &one) == 0;
  };
  NodeTopology live = NodeTopology::load("live");
  ASSERT_TRUE(bind_to(cpus.front()));
  int first = live.bound_cpu(CpuLevel::Core), first_numa = live.bound_numa(), first_pu = live.bound_cpu(CpuLevel::PU);
  ASSERT_TRUE(bind_to(cpus.back()));
  int last = live.bound_cpu(CpuLevel::Core), last_numa = live.bound_numa();
  ASSERT_EQ(sched_setaffinity(0, sizeof saved, &saved), 0);
  EXPECT_EQ(first_numa, live.core_numa(first));
  EXPECT_EQ(last_numa, live.core_numa(last));
  EXPECT_GE(first, 0);
  std::vector<int> first_core_pus = live.core_pus(first);
  EXPECT_NE(std::find(first_core_pus.begin(), first_core_pus.end(), first_pu), first_core_pus.end());
  EXPECT_LT(last, live.num_cores());
  if (cpus.size() > 1 && live.num_cores() == live.num_pus()) {  // one PU per core: two CPUs, two cores
    EXPECT_NE(first, last);
    EXPECT_EQ(live.bound_cpu(CpuLevel::Core), -1);  // bound to several cores
  }
}

TEST(NodeTopology, LiveMachineAndMoves) {
  NodeTopology live = NodeTopology::load("live");
  EXPECT_GE(live.num_pus(), 1);
  EXPECT_STREQ(live.kind(), "live");
  std::vector<std::string> levels = live.level_names();
  ASSERT_FALSE(levels.empty());
  EXPECT_EQ(levels.front(), "Machine");
  EXPECT_EQ(levels.back(), "PU");

  NodeTopology moved = std::move(live);
  EXPECT_GE(moved.num_pus(), 1);
  NodeTopology other = NodeTopology::load("");
  EXPECT_EQ(other.spec(), "live");
  other = NodeTopology::load("pack:1 core:2 pu:1");
  EXPECT_EQ(other.num_cores(), 2);
  other = std::move(moved);
  EXPECT_STREQ(other.kind(), "live");
}

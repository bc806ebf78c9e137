// Slurm topology.conf: trees, fat-trees with several uplinks, port numbering,
// rates, and every malformed case reported at the right file:line.
#include <gtest/gtest.h>

#include <set>

#include "common/params.h"
#include "loader_test_helpers.h"
#include "topo/loaders/loaders.h"
#include "topo/source.h"

using namespace canopy;
using namespace canopy::topo;
using canopy::test::bfs_hops;
using canopy::test::test_data;

namespace {
Topology load(const std::string &text) { return load_slurm_topology(text, "topology.conf"); }
std::string failure(const std::string &text) {
  return canopy::test::parse_failure([&] { load(text); });
}
int find_switch(const Topology &topo, const std::string &name) {
  for (int s : topo.switches())
    if (topo.node(s).name == name) return s;
  return -1;
}
}  // namespace

TEST(SlurmTopology, TwoLevelTree) {
  Topology topo = load_slurm_topology(test_data("slurm/tree.conf"), "tree.conf");
  EXPECT_EQ(topo.switches().size(), 4u);
  EXPECT_EQ(topo.hosts().size(), 11u);
  EXPECT_EQ(topo.links().size(), 11u + 3u);
  EXPECT_EQ(topo.source(), "slurm:tree.conf");
  EXPECT_FALSE(topo.has_forwarding_tables());

  int leaf0 = find_switch(topo, "leaf0"), spine = find_switch(topo, "spine");
  ASSERT_EQ(leaf0, 0);
  EXPECT_EQ(topo.node(leaf0).guid, 0x5100000000000000ULL);
  EXPECT_EQ(topo.node(spine).guid, 0x5100000000000003ULL);
  EXPECT_EQ(topo.node(leaf0).level, 1);
  EXPECT_EQ(topo.node(spine).level, 2);

  int login = topo.find_host("login1");
  ASSERT_GE(login, 0);
  EXPECT_EQ(topo.node(login).description, "login1");
  EXPECT_EQ(topo.node(topo.find_host("node001")).guid, 0x4800000000000000ULL);
  EXPECT_EQ(topo.node(login).guid, 0x480000000000000aULL);

  // leaf0: hosts on ports 1-4, the uplink after them; the spine's ports follow Switches= order.
  const Node &l0 = topo.node(leaf0);
  ASSERT_EQ(l0.num_ports(), 5);
  EXPECT_EQ(topo.node(l0.ports[1].peer_node).name, "node001");
  EXPECT_EQ(l0.ports[5].peer_node, spine);
  EXPECT_EQ(l0.ports[5].peer_port, 1);
  EXPECT_EQ(topo.node(spine).ports[3].peer_node, find_switch(topo, "leaf2"));

  // LinkSpeed applies to the links on its line; elsewhere topo_default_gbps.
  EXPECT_EQ(l0.ports[1].rate, plain_rate(25));
  EXPECT_EQ(l0.ports[5].rate, plain_rate(200));
  EXPECT_EQ(topo.node(find_switch(topo, "leaf1")).ports[1].rate, plain_rate(param_double("topo_default_gbps")));

  std::vector<int> hops = bfs_hops(topo, topo.find_host("node001"));
  EXPECT_EQ(hops[topo.find_host("node004")], 2);
  EXPECT_EQ(hops[topo.find_host("node005")], 4);
  EXPECT_EQ(hops[login], 4);
}

// Without a slurm: prefix the file is told by its SwitchName= key, not taken for
// ibnetdiscover output (whose records start "Switch" and a blank).
TEST(SlurmTopology, RecognisedWithoutAPrefix) {
  for (const char *file : {"slurm/tree.conf", "slurm/fat_tree.conf"})
    EXPECT_EQ(load_topology(std::string(CANOPY_TEST_DATA) + "/" + file).switches().size(),
              load_slurm_topology(test_data(file), file).switches().size())
        << file;
}

TEST(SlurmTopology, FatTreeWithSeveralUplinksAndContinuation) {
  Topology topo = load_slurm_topology(test_data("slurm/fat_tree.conf"), "fat_tree.conf");
  EXPECT_EQ(topo.hosts().size(), 12u);
  EXPECT_EQ(topo.switches().size(), 6u);
  EXPECT_EQ(topo.links().size(), 12u + 6u + 2u);
  const Node &leaf2 = topo.node(find_switch(topo, "leaf2"));
  ASSERT_EQ(leaf2.num_ports(), 6);  // cn09-cn12, then uplinks to spine0 and spine1 in file order
  EXPECT_EQ(leaf2.ports[5].peer_node, find_switch(topo, "spine0"));
  EXPECT_EQ(leaf2.ports[6].peer_node, find_switch(topo, "spine1"));
  EXPECT_EQ(topo.node(find_switch(topo, "core")).level, 3);
  std::vector<int> hops = bfs_hops(topo, topo.find_host("cn01"));
  EXPECT_EQ(hops[topo.find_host("cn12")], 4);
  for (const Link &link : topo.links()) EXPECT_NE(link.node_a, link.node_b);
}

TEST(SlurmTopology, ErrorsNameTheRightLine) {
  struct Case {
    const char *text, *where, *what;
  };
  const Case cases[] = {
      {"SwitchName=s0 Nodes=a\nSwitchName=s1 Foo=bar\n", "topology.conf:2:", "unknown key 'Foo'"},
      {"SwitchName=s0 Nodes=a\n\nSwitchName=s0 Nodes=b\n", "topology.conf:3:", "already defined at line 1"},
      {"SwitchName=s0 Nodes=a\nSwitchName=top Switches=s[0-1]\n", ":2:", "child switch 's1' of 'top' is never defined"},
      {"SwitchName=s0 Nodes=a,b\nSwitchName=s1 Nodes=c,b\n", ":2:", "node 'b' is already attached to switch 's0' (line 1)"},
      {"SwitchName=s0 Nodes=a,a\n", ":1:", "node 'a' is already attached"},
      {"SwitchName=s0 Switches=s0\n", ":1:", "switch cycle: s0 -> s0"},
      {"# c\nSwitchName=s0 Nodes=n[3-1]\n", ":2:", "descending range"},
      {"SwitchName=s0 Nodes=n[1-\n", ":1:", "never closed"},
      {"", "topology.conf:1:", "no SwitchName= lines"},
      {"# only a comment\n\n   \n", "topology.conf:1:", "no SwitchName= lines"},
      {"Nodes=a\n", ":1:", "no SwitchName="},
      {"SwitchName=s0 Nodes=a Switches=s1\nSwitchName=s1 Nodes=b\n", ":1:", "both Nodes= and Switches="},
      {"SwitchName=s0 Nodes= SwitchName=x\n", ":1:", "cannot contain '='"},
      {"SwitchName=s0 Nodes=\"a\n", ":1:", "unterminated quote"},
      {"SwitchName=s0 Nodes=a Nodes=b\n", ":1:", "given twice"},
      {"SwitchName=s0 Nodes=a LinkSpeed=0\n", ":1:", "LinkSpeed=0 is not a positive number"},
      {"SwitchName=s0 Nodes=a LinkSpeed=fast\n", ":1:", "not a positive number"},
      {"SwitchName=s0 Nodes=n[1-255]\n", ":1:", "at most 254 ports"},
      {"SwitchName=s0 Nodes=a\nSwitchName=t Switches=s0,s0\n", ":2:", "lists child switch 's0' twice"},
      {"SwitchName=s0 Nodes=a\nSwitchName=\"a b\" Nodes=c\n", ":2:", "SwitchName 'a b'"},
      {"SwitchName=s0 \\\n  Nodes=a \\\n  Bogus=1\n", ":1:", "unknown key 'Bogus'"},
      {"\x01\xff garbage\n", ":1:", "expected Key=Value"},
      {"SwitchName\n", ":1:", "expected Key=Value"},
  };
  for (const Case &c : cases) {
    std::string message = failure(c.text);
    EXPECT_NE(message.find(c.where), std::string::npos) << c.text << " -> " << message;
    EXPECT_NE(message.find(c.what), std::string::npos) << c.text << " -> " << message;
  }
}

TEST(SlurmTopology, CyclesAndPortLimitsIncludingUplinks) {
  std::string message = failure(test_data("slurm/cycle.conf"));
  EXPECT_NE(message.find("topology.conf:5: switch cycle: s1 -> s2 -> s3 -> s1"), std::string::npos) << message;
  // 254 hosts fit, but not with an uplink on top.
  EXPECT_NO_THROW(load("SwitchName=leaf Nodes=n[1-254]\n"));
  message = failure("SwitchName=leaf Nodes=n[1-254]\nSwitchName=top Switches=leaf\n");
  EXPECT_NE(message.find(":1: switch 'leaf' needs 255 ports"), std::string::npos) << message;
  message = failure("SwitchName=s Nodes=n[1-99999999999]\n");
  EXPECT_NE(message.find("1000000"), std::string::npos) << message;
}

TEST(SlurmTopology, KeysAreCaseInsensitive) {
  Topology topo = load("SWITCHNAME=s0 NODES=a,b LINKSPEED=7\nswitchName=s1 sWitches=s0 linkspeed=8.5\n");
  EXPECT_EQ(topo.node(0).ports[1].rate, plain_rate(7));
  EXPECT_EQ(topo.node(1).ports[1].rate, plain_rate(8.5));
  EXPECT_EQ(topo.node(0).ports[3].peer_node, 1);
}

TEST(SlurmTopology, EmptySwitchesAndOddSpacing) {
  Topology topo = load("  SwitchName=lonely   \r\nSwitchName=s1 Nodes=x  # trailing comment\n");
  EXPECT_EQ(topo.switches().size(), 2u);
  EXPECT_EQ(topo.node(0).num_ports(), 0);
  EXPECT_EQ(topo.hosts().size(), 1u);
  std::set<uint64_t> guids;
  for (const Node &n : topo.nodes()) guids.insert(n.guid);
  EXPECT_EQ(guids.size(), topo.nodes().size());
}

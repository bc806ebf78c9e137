// OpenSM's opensm-subnet.lst: nodes, links, LIDs, rates, and a file:line error
// for each way the file can be broken.
#include <cstdio>

#include "loader_test_util.h"

using namespace canopy;
using namespace canopy::topo;
using canopy::test::expect_parse_error;
using canopy::test::read_data;

namespace {

/** One "{ ... }" node record as OpenSM prints it. */
std::string record(const char *type, int ports, uint64_t node_guid, uint64_t port_guid, const char *desc, int lid,
                   int port) {
  char buffer[512];
  std::snprintf(buffer, sizeof buffer,
                "{ %s Ports:%02X SystemGUID:%016llx NodeGUID:%016llx PortGUID:%016llx VenID:000002C9 DevID:CB20 "
                "Rev:000000A0 {%s} LID:%04X PN:%02X }",
                type, ports, static_cast<unsigned long long>(node_guid), static_cast<unsigned long long>(node_guid),
                static_cast<unsigned long long>(port_guid), desc, lid, port);
  return buffer;
}

/** Both directions of a link between a host's port 1 and a 36-port switch. */
std::string host_link(const char *host_desc, const char *phy, const char *spd, int switch_port = 0x1F) {
  std::string host = record("CA-SM", 1, 0xe41d2d030012ab40, 0xe41d2d030012ab41, host_desc, 0xA1, 1);
  std::string sw =
      record("SW", 0x24, 0x7cfe900300a5c2e0, 0x7cfe900300a5c2e0, "MF0;leaf01:MSB7800/U1", 0xB0, switch_port);
  std::string state = std::string(" PHY=") + phy + " LOG=ACT SPD=" + spd + "\n";
  return host + " " + sw + state + sw + " " + host + state;
}

Topology load(const std::string &text) { return load_subnet_lst(text, "subnet.lst"); }

}  // namespace

TEST(SubnetLst, LoadsNodesLinksAndLids) {
  Topology t = load_subnet_lst(read_data("subnet_lst/two_switches.lst"), "two_switches.lst");
  EXPECT_EQ(t.nodes().size(), 6u);
  EXPECT_EQ(t.hosts().size(), 4u);
  EXPECT_EQ(t.switches().size(), 2u);
  EXPECT_EQ(t.links().size(), 6u);  // twelve lines: each link from both ends
  EXPECT_EQ(t.source(), "subnet-lst:two_switches.lst");  // errors name the fabric with it

  int h1 = t.find_host("H1");
  int s1 = t.find_guid(0x200000);
  int s2 = t.find_guid(0x200001);
  ASSERT_GE(h1, 0);
  ASSERT_GE(s1, 0);
  ASSERT_GE(s2, 0);
  EXPECT_EQ(t.node(h1).lid, 2u);
  EXPECT_EQ(t.node(h1).num_ports(), 2);
  EXPECT_EQ(t.node(h1).ports[1].guid, 0x100001u);
  EXPECT_EQ(t.node(h1).ports[1].peer_node, s1);
  EXPECT_EQ(t.node(h1).ports[1].peer_port, 1);
  EXPECT_FALSE(t.node(h1).ports[2].connected());
  EXPECT_EQ(t.node(h1).ports[1].rate, ib_rate(4, LinkSpeed::SDR));

  EXPECT_TRUE(t.node(s1).is_switch());
  EXPECT_EQ(t.node(s1).name, "S1");
  EXPECT_EQ(t.node(s1).num_ports(), 8);
  EXPECT_EQ(t.node(s1).lid, 1u);
  EXPECT_EQ(t.node(s1).level, 1);
  EXPECT_EQ(t.node(s1).ports[3].peer_node, s2);
  EXPECT_EQ(t.node(s1).ports[4].peer_port, 4);
  EXPECT_EQ(t.node(s1).ports[3].rate, ib_rate(4, LinkSpeed::QDR));

  EXPECT_EQ(t.find_lid(4), std::make_pair(s2, 0));
  EXPECT_EQ(t.find_lid(5), std::make_pair(t.find_host("H3"), 1));
  EXPECT_EQ(t.find_guid(0x10000a), t.find_host("H4"));
}

TEST(SubnetLst, HexFieldsDescriptionsWithSpacesAndBracesAndSmOnAHost) {
  Topology t = load(host_link("node01 HCA-1 {mlx5_0}", "4x", "25"));
  int host = t.find_host("node01");
  ASSERT_GE(host, 0);
  EXPECT_EQ(t.node(host).description, "node01 HCA-1 {mlx5_0}");
  EXPECT_EQ(t.node(host).lid, 0xA1u);
  int sw = t.find_guid(0x7cfe900300a5c2e0);
  ASSERT_GE(sw, 0);
  EXPECT_EQ(t.node(sw).num_ports(), 36);  // Ports:24 is hexadecimal
  EXPECT_EQ(t.node(sw).lid, 0xB0u);
  EXPECT_EQ(t.node(sw).description, "MF0;leaf01:MSB7800/U1");
  EXPECT_EQ(t.node(host).ports[1].peer_port, 31);  // PN:1F
  EXPECT_EQ(t.node(host).ports[1].rate, ib_rate(4, LinkSpeed::EDR));
}

TEST(SubnetLst, WidthsAndSignallingRates) {
  struct Case {
    const char *phy, *spd;
    LinkRate rate;
  };
  const Case cases[] = {
      {"1x", "2.5", ib_rate(1, LinkSpeed::SDR)},   {"4x", "5", ib_rate(4, LinkSpeed::DDR)},
      {"4x", "10", ib_rate(4, LinkSpeed::QDR)},    {"4x", "FDR10", ib_rate(4, LinkSpeed::FDR10)},
      {"4x", "14", ib_rate(4, LinkSpeed::FDR)},    {"12x", "25", ib_rate(12, LinkSpeed::EDR)},
      {"2x", "50", ib_rate(2, LinkSpeed::HDR)},    {"8x", "100", ib_rate(8, LinkSpeed::NDR)},
      {"4x", "??", ib_rate(4, LinkSpeed::Unknown)}, {"??", "??", ib_rate(0, LinkSpeed::Unknown)},
  };
  for (const Case &c : cases) {
    Topology t = load(host_link("h", c.phy, c.spd));
    ASSERT_EQ(t.links().size(), 1u);
    EXPECT_EQ(t.links()[0].rate, c.rate) << c.phy << " " << c.spd;
  }
}

TEST(SubnetLst, EmptyFileIsAnError) {
  expect_parse_error([] { load(""); }, "subnet.lst:1: ", "no links found");
  expect_parse_error([] { load("\n  \n\t\n"); }, "subnet.lst:1: ", "no links found");
}

TEST(SubnetLst, TruncatedFiles) {
  std::string full = read_data("subnet_lst/two_switches.lst");
  // Cut in the middle of the last line.
  std::string cut = full.substr(0, full.size() - 120);
  expect_parse_error([&] { load(cut); }, "subnet.lst:12: ", "expected");
  // Cut at a line boundary: the last link is left with one direction (line 8).
  std::string last_line_lost = full.substr(0, full.rfind('\n', full.size() - 2) + 1);
  expect_parse_error([&] { load(last_line_lost); }, "subnet.lst:8: ",
                     "'S1' port 4 - 'S2' port 4 is listed from one end only");
}

TEST(SubnetLst, MalformedLinesNameTheirLine) {
  std::string good = host_link("h", "4x", "25");
  std::string first = good.substr(0, good.find('\n'));
  auto replaced = [&](const std::string &from, const std::string &to) {
    std::string line = first;
    line.replace(line.find(from), from.size(), to);
    return good + line + "\n";  // the bad line is line 3
  };
  struct Case {
    std::string text, fragment;
  };
  const Case cases[] = {
      {replaced("{ CA-SM", "[ CA-SM"), "expected '{' to open a node record"},
      {replaced("CA-SM", "HCA"), "unknown node type 'HCA'"},
      {replaced("Ports:01", "Ports:0G"), "expected Ports:<hex>, found 'Ports:0G'"},
      {replaced("Ports:01", "Ports:00"), "has 0 ports"},
      {replaced("NodeGUID:", "NodeGuid:"), "expected NodeGUID:<hex>"},
      {good + first.substr(0, first.find("} LID:")) + "\n", "expected '{description} LID:'"},
      // The description runs to the first "} LID:", here the switch's.
      {replaced("{h} LID", "{h LID"), "node 0xe41d2d030012ab40 has no port 31 (it has 1)"},
      {replaced("LID:00A1 PN:01", "LID:00A1 PN:02"), "has no port 2 (it has 1)"},
      {replaced("LID:00A1", "LID:C001"), "above the unicast range"},
      {replaced("PN:01 }", "PN:01"), "expected '}' to close the record"},
      {replaced(" SPD=25", ""), "no PHY= width or no SPD= speed"},
      {replaced("PHY=4x", "PHY=3x"), "unknown link width PHY='3x'"},
      {replaced("SPD=25", "SPD=7"), "unknown lane speed SPD='7'"},
      {replaced("SPD=25", "SPD=25 junk"), "expected KEY=VALUE after the node records, found 'junk'"},
      {replaced("LID:00A1", "LID:00A2"), "LID of node 0xe41d2d030012ab40 port 1 differs"},
      {replaced("{ CA-SM Ports:01", "{ SW Ports:01"), "different type or port count"},
      {replaced("PN:1F", "PN:1E"), "conflicts with an earlier link"},
      {good + first + "\n", "is listed twice from this side (first on line 1)"},
      {good + std::string("\x7f\x00\xff{ \x01", 6) + "\n", "expected '{' to open a node record"},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.fragment);
    expect_parse_error([&] { load(c.text); }, "subnet.lst:3: ", c.fragment);
  }
}

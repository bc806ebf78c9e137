// ibnetdiscover loaders: default output (incl. -g grouping, ibsim net files) and -p.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>

#include "common/error.h"
#include "common/file_io.h"
#include "common/text.h"
#include "topo/loaders/loaders.h"

using namespace canopy;
using namespace canopy::topo;

namespace {

using Loader = Topology (*)(std::string_view, const std::string &);

std::string data_file(const std::string &name) {
  return read_file(std::string(CANOPY_TEST_DATA) + "/ibnetdiscover/" + name);
}

int node_described(const Topology &topo, std::string_view description) {
  for (size_t i = 0; i < topo.nodes().size(); ++i)
    if (topo.nodes()[i].description == description) return static_cast<int>(i);
  return -1;
}

// The node and port at the other end of (node, port).
std::pair<int, int> peer_of(const Topology &topo, int node, int port) {
  const Port &p = topo.node(node).ports.at(static_cast<size_t>(port));
  return {p.peer_node, p.peer_port};
}

// Loading @p text as "bad.txt" fails with CANOPY_ERR_PARSE, a message that starts
// "bad.txt:<line>: " and contains @p fragment.
::testing::AssertionResult FailsAt(Loader load, std::string_view text, size_t line, std::string_view fragment) {
  canopy_status_t status = guard([&] { (void)load(text, "bad.txt"); });
  if (status == CANOPY_SUCCESS) return ::testing::AssertionFailure() << "loaded without error";
  std::string message = canopy_last_error();
  if (status != CANOPY_ERR_PARSE)
    return ::testing::AssertionFailure() << canopy_status_string(status) << ": " << message;
  std::string prefix = "bad.txt:" + std::to_string(line) + ": ";
  if (message.compare(0, prefix.size(), prefix) != 0)
    return ::testing::AssertionFailure() << "expected prefix '" << prefix << "', got: " << message;
  if (message.find(fragment) == std::string::npos)
    return ::testing::AssertionFailure() << "expected '" << fragment << "' in: " << message;
  return ::testing::AssertionSuccess() << message;
}

// @p text up to and including the first @p marker, plus @p extra characters.
std::string cut_after(const std::string &text, std::string_view marker, size_t extra = 0) {
  size_t at = text.find(marker);
  EXPECT_NE(at, std::string::npos) << marker;
  return text.substr(0, at + marker.size() + extra);
}

size_t line_of(const std::string &text, std::string_view marker) {
  size_t at = text.find(marker);
  EXPECT_NE(at, std::string::npos) << marker;
  size_t line = 1;
  for (size_t i = 0; i < at; ++i) line += text[i] == '\n';
  return line;
}

}  // namespace

// ---------------------------------------------------------------- default format

TEST(Ibnetdiscover, TwoSwitchFourHostFabric) {
  Topology topo = load_ibnetdiscover(data_file("fabric_2sw4h.txt"), "fabric_2sw4h.txt");
  EXPECT_EQ(topo.source(), "ibnetdiscover:fabric_2sw4h.txt");
  ASSERT_EQ(topo.nodes().size(), 6u);
  ASSERT_EQ(topo.hosts().size(), 4u);
  ASSERT_EQ(topo.switches().size(), 2u);
  EXPECT_EQ(topo.links().size(), 6u);  // 4 host links + 2 switch links, each printed twice

  int s1 = topo.find_guid(0x200000), s2 = topo.find_guid(0x200001);
  ASSERT_GE(s1, 0);
  ASSERT_GE(s2, 0);
  const Node &sw2 = topo.node(s2);
  EXPECT_TRUE(sw2.is_switch());
  EXPECT_EQ(sw2.name, "S2");
  EXPECT_EQ(sw2.num_ports(), 8);
  EXPECT_EQ(sw2.lid, 3u);
  EXPECT_EQ(sw2.ports[0].lid, 3u);
  EXPECT_EQ(sw2.ports[5].guid, 0x200001u);
  EXPECT_EQ(sw2.level, 1);
  EXPECT_EQ(topo.node(s1).level, 1);
  EXPECT_EQ(topo.find_lid(3), std::make_pair(s2, 0));

  int h4 = topo.find_host("H4");
  ASSERT_GE(h4, 0);
  const Node &host = topo.node(h4);
  EXPECT_EQ(host.guid, 0x100009u);
  EXPECT_EQ(host.num_ports(), 2);
  EXPECT_EQ(host.ports[1].guid, 0x10000au);
  EXPECT_EQ(host.ports[1].lid, 6u);
  EXPECT_EQ(host.lid, 6u);
  EXPECT_FALSE(host.ports[2].connected());
  EXPECT_EQ(peer_of(topo, h4, 1), std::make_pair(s2, 2));
  EXPECT_EQ(peer_of(topo, s2, 2), std::make_pair(h4, 1));
  EXPECT_EQ(topo.find_guid(0x10000a), h4);
  EXPECT_EQ(topo.find_lid(6), std::make_pair(h4, 1));
  EXPECT_EQ(topo.find_host("0x0000000000100009"), h4);

  EXPECT_EQ(peer_of(topo, s1, 3), std::make_pair(s2, 3));
  EXPECT_EQ(peer_of(topo, s1, 5), std::make_pair(s2, 5));
  EXPECT_FALSE(topo.node(s1).ports[4].connected());
  for (const Link &link : topo.links()) {
    EXPECT_EQ(link.rate, ib_rate(4, LinkSpeed::SDR));
    EXPECT_DOUBLE_EQ(link.rate.gbps, 8.0);
  }
}

TEST(Ibnetdiscover, ChassisGroupingHeaders) {
  Topology topo = load_ibnetdiscover(data_file("chassis_grouped.txt"), "grouped.txt");
  EXPECT_EQ(topo.switches().size(), 4u);
  EXPECT_EQ(topo.hosts().size(), 4u);
  EXPECT_EQ(topo.links().size(), 7u);
  int spine = topo.find_guid(0x8f10400410015);
  int line2 = topo.find_guid(0x8f1040041001a);
  int edge = topo.find_guid(0x5442ba00003080);
  ASSERT_GE(spine, 0);
  ASSERT_GE(line2, 0);
  ASSERT_GE(edge, 0);
  EXPECT_EQ(topo.node(spine).name, "ISR9288/ISR9096 Voltaire sFB-12");
  EXPECT_EQ(topo.node(spine).lid, 3u);
  EXPECT_EQ(topo.node(spine).level, 2);
  EXPECT_EQ(topo.node(line2).level, 1);
  EXPECT_EQ(topo.node(edge).level, 1);
  // "[24][ext 12]" and "[24][ext 12]" on the peer side name switch port 24.
  EXPECT_EQ(peer_of(topo, line2, 24), std::make_pair(edge, 1));
  int node03 = topo.find_host("node03");
  ASSERT_GE(node03, 0);
  EXPECT_EQ(topo.node(node03).description, "node03 HCA-1");
  EXPECT_EQ(peer_of(topo, node03, 1), std::make_pair(line2, 1));
  EXPECT_EQ(topo.node(node03).ports[1].lid, 12u);
  int node04 = topo.find_host("node04");
  ASSERT_GE(node04, 0);
  EXPECT_EQ(topo.node(node04).ports[1].rate.gbps, 8.0);
  EXPECT_EQ(topo.node(spine).ports[13].rate.gbps, 16.0);
}

TEST(Ibnetdiscover, MixedSpeedsAndWidths) {
  Topology topo = load_ibnetdiscover(data_file("mixed_rates.txt"), "mixed.txt");
  EXPECT_EQ(topo.hosts().size(), 9u);
  EXPECT_EQ(topo.switches().size(), 3u);
  ASSERT_EQ(topo.nodes().size(), 13u);  // + the router
  const std::pair<const char *, double> expected[] = {
      {"h001", 8},  {"h002", 16},  {"h003", 32},  {"h004", 2},
      {"h005", 4 * 13.636}, {"h006", 100}, {"h007", 200}, {"h008", 400}};
  for (const auto &[name, gbps] : expected) {
    int h = topo.find_host(name);
    ASSERT_GE(h, 0) << name;
    EXPECT_EQ(topo.node(h).name, name);
    EXPECT_EQ(topo.node(h).description, std::string(name) + " HCA-1");
    EXPECT_NEAR(topo.node(h).ports[1].rate.gbps, gbps, 1e-9) << name;
  }
  EXPECT_NEAR(topo.node(topo.find_host("h005")).ports[1].rate.gbps, 54.5, 0.1);
  EXPECT_EQ(topo.node(topo.find_host("h004")).ports[1].rate, ib_rate(1, LinkSpeed::SDR));
  EXPECT_EQ(topo.node(topo.find_host("h008")).ports[1].rate.speed, LinkSpeed::NDR);

  int spine = node_described(topo, "spine01 QM8700");
  int leaf1 = node_described(topo, "leaf01 QM8700");
  int leaf2 = node_described(topo, "leaf02 QM8700");
  ASSERT_GE(spine, 0);
  EXPECT_EQ(topo.node(spine).level, 2);
  EXPECT_EQ(topo.node(leaf1).level, 1);
  EXPECT_EQ(topo.node(leaf2).level, 1);
  const Node &sp = topo.node(spine);
  EXPECT_EQ(sp.ports[1].rate, ib_rate(12, LinkSpeed::QDR));
  EXPECT_DOUBLE_EQ(sp.ports[1].rate.gbps, 96.0);
  EXPECT_DOUBLE_EQ(sp.ports[2].rate.gbps, 100.0);  // "4xEDR s=5 w=2 v=4 e=2" (--full)
  EXPECT_EQ(sp.ports[3].rate, ib_rate(4, LinkSpeed::FDR10));
  EXPECT_DOUBLE_EQ(sp.ports[4].rate.gbps, 400.0);  // "4xNDR (Extended speed)"
  EXPECT_EQ(peer_of(topo, leaf2, 36), std::make_pair(spine, 4));
}

TEST(Ibnetdiscover, RouterAndDualPortHca) {
  Topology topo = load_ibnetdiscover(data_file("mixed_rates.txt"), "mixed.txt");
  int router = topo.find_guid(0x400000);
  ASSERT_GE(router, 0);
  const Node &rt = topo.node(router);
  EXPECT_EQ(rt.type, NodeType::Router);
  EXPECT_EQ(rt.name, "router01");
  EXPECT_EQ(rt.ports[1].guid, 0x400001u);
  EXPECT_EQ(rt.ports[1].lid, 20u);
  EXPECT_EQ(peer_of(topo, router, 1), std::make_pair(node_described(topo, "spine01 QM8700"), 10));
  EXPECT_EQ(topo.node(node_described(topo, "spine01 QM8700")).level, 2);  // routers are not hosts

  int h9 = topo.find_host("h009");
  ASSERT_GE(h9, 0);
  const Node &hca = topo.node(h9);
  EXPECT_EQ(hca.num_ports(), 2);
  EXPECT_EQ(hca.ports[1].guid, 0x500091u);
  EXPECT_EQ(hca.ports[2].guid, 0x500092u);
  EXPECT_EQ(hca.ports[2].lid, 21u);
  EXPECT_EQ(hca.lid, 19u);
  EXPECT_EQ(peer_of(topo, h9, 2), std::make_pair(node_described(topo, "leaf02 QM8700"), 5));
  EXPECT_EQ(topo.find_guid(0x500092), h9);
}

TEST(Ibnetdiscover, IbsimNetFileStyle) {
  // ibsim net files: "Hca", no GUID lines, no port GUIDs on CA lines, peers
  // referenced before their records, CRLF line ends, spaces instead of tabs.
  const char *text =
      "Switch 4 \"S-000000000000abcd\"  # \"sw1\" enhanced port 0 lid 7 lmc 0\r\n"
      "[1] \"H-0000000000001000\"[1](1001)  # \"host-a mlx5_0\" lid 9 4xQDR\r\n"
      "[2] \"H-0000000000002000\"[2]  # \"host-b\" lid 10 4xDDR\r\n"
      "\r\n"
      "Hca 2 \"H-0000000000001000\"  # \"host-a mlx5_0\"\r\n"
      "[1] \"S-000000000000abcd\"[1]\r\n"
      "Hca 2 \"H-0000000000002000\"\r\n"
      "[2] \"S-000000000000abcd\"[2] # lid 10 lmc 0 \"sw1\" lid 7 4xDDR\r\n";
  Topology topo = load_ibnetdiscover(text, "net");
  ASSERT_EQ(topo.hosts().size(), 2u);
  int a = topo.find_host("host-a");
  int b = topo.find_host("H-0000000000002000");  // no description: the id names it
  ASSERT_GE(a, 0);
  ASSERT_GE(b, 0);
  EXPECT_EQ(topo.node(a).guid, 0x1000u);
  EXPECT_EQ(topo.node(a).ports[1].guid, 0x1001u);  // from the switch's line
  EXPECT_EQ(topo.node(a).ports[1].lid, 9u);
  EXPECT_DOUBLE_EQ(topo.node(a).ports[1].rate.gbps, 32.0);
  EXPECT_EQ(topo.node(b).ports[2].lid, 10u);
  EXPECT_DOUBLE_EQ(topo.node(b).ports[2].rate.gbps, 16.0);
  int sw = topo.find_guid(0xabcd);
  EXPECT_EQ(topo.node(sw).lid, 7u);
  EXPECT_EQ(peer_of(topo, sw, 2), std::make_pair(b, 2));
}

TEST(Ibnetdiscover, GuidLinesAndUnknownRates) {
  const char *text =
      "switchguid=0x77(77)\n"
      "Switch 2 \"custom-switch-id\" # \"edge\" base port 0 lid 1 lmc 0\n"
      "[1] \"S-0000000000000088\"[1] # \"other\" lid 2 4x???\n"
      "[2] \"S-0000000000000088\"[2]\n"
      "Switch 3 \"S-0000000000000088\" # \"other\" base port 0 lid 2 lmc 0\n"
      "[1] \"custom-switch-id\"[1] # \"edge\" lid 1 ??SDR\n"
      "rtguid=0x99\n"
      "Rt 1 \"R-0000000000000099\" # \"rt\"\n"
      "[1](9a) \"S-0000000000000088\"[3] # lid 4 lmc 0 \"other\" lid 2 12xXDR\n";
  Topology topo = load_ibnetdiscover(text, "t");
  int edge = topo.find_guid(0x77);
  ASSERT_GE(edge, 0);
  EXPECT_EQ(topo.node(edge).name, "edge");
  // The first end printed decides: "4x???" is a 4x link of unknown speed.
  EXPECT_EQ(topo.node(edge).ports[1].rate, (LinkRate{4, LinkSpeed::Unknown, 0}));
  EXPECT_EQ(topo.node(edge).ports[2].rate, LinkRate{});  // no rate printed
  int rt = topo.find_guid(0x99);
  EXPECT_EQ(topo.node(rt).ports[1].rate, (LinkRate{12, LinkSpeed::Unknown, 0}));
  EXPECT_EQ(topo.node(rt).ports[1].lid, 4u);
  EXPECT_EQ(topo.switches().size(), 2u);
  EXPECT_TRUE(topo.hosts().empty());
}

TEST(Ibnetdiscover, SampleFromOneRecordReferencesUndefinedPeers) {
  // Just the S2 and H4 records of the ibsim capture: S2 names H3 and S1, which are not in it.
  std::string full = data_file("fabric_2sw4h.txt");
  std::string text = "#\n" + full.substr(full.find("vendid=0x0\ndevid=0x0\nsysimgguid=0x200001"));
  text.erase(text.find("\nvendid=0x0\ndevid=0x0\nsysimgguid=0x100000"),
             text.find("\nvendid=0x0\ndevid=0x0\nsysimgguid=0x100009") -
                 text.find("\nvendid=0x0\ndevid=0x0\nsysimgguid=0x100000"));
  EXPECT_TRUE(FailsAt(load_ibnetdiscover, text, 7, "peer 'H-0000000000100006' is not defined"));
}

// ---------------------------------------------------------------- default format: errors

TEST(IbnetdiscoverErrors, EmptyAndCommentOnlyInput) {
  EXPECT_TRUE(FailsAt(load_ibnetdiscover, "", 1, "no nodes found"));
  EXPECT_TRUE(FailsAt(load_ibnetdiscover, "\n\n", 2, "no nodes found"));
  EXPECT_TRUE(FailsAt(load_ibnetdiscover, "#\n# Topology file: generated on x\n#\n", 3, "no nodes found"));
  EXPECT_TRUE(FailsAt(load_ibnetdiscover, "vendid=0x2c9\ndevid=0x1\ncaguid=0x5\n", 3, "no nodes found"));
}

TEST(IbnetdiscoverErrors, UnknownRecord) {
  std::string text = data_file("fabric_2sw4h.txt");
  text.insert(text.find("vendid=0x0\ndevid=0x0\nsysimgguid=0x200001"), "Foo 12 \"x\"\n");
  EXPECT_TRUE(FailsAt(load_ibnetdiscover, text, 16, "unknown record 'Foo'"));
  EXPECT_TRUE(FailsAt(load_ibnetdiscover, "#\nswitch 8 \"S-1\"\n", 2, "unknown record 'switch'"));
  EXPECT_TRUE(FailsAt(load_ibnetdiscover, "nodeguid=0x5\n", 1, "unknown record 'nodeguid='"));
}

TEST(IbnetdiscoverErrors, TruncatedFile) {
  const std::string full = data_file("fabric_2sw4h.txt");
  // Cut between records: the hosts referenced by the switches are never defined.
  std::string text = cut_after(full, "[3]\t\"S-0000000000200001\"[3]\t\t# \"S2\" lid 3 4xSDR\n");
  EXPECT_TRUE(FailsAt(load_ibnetdiscover, text, 11, "peer 'H-0000000000100000' is not defined"));
  text = cut_after(full, "sysimgguid=0x100006\n");
  EXPECT_TRUE(FailsAt(load_ibnetdiscover, text, 21, "peer 'H-0000000000100006' is not defined"));

  // Cut inside lines.
  const char *h4_port = "[2]\t\"H-0000000000100009\"[1](10000a)";
  size_t h4_line = line_of(full, h4_port);
  EXPECT_EQ(h4_line, 22u);
  EXPECT_TRUE(FailsAt(load_ibnetdiscover, cut_after(full, "[2]\t\"H-0000000000100009"), h4_line, "unterminated quote"));
  EXPECT_TRUE(FailsAt(load_ibnetdiscover, cut_after(full, "[2]\t\"H-0000000000100009\"["), h4_line,
                      "truncated line: expected [peer port]"));
  EXPECT_TRUE(FailsAt(load_ibnetdiscover, cut_after(full, "[2]\t\"H-0000000000100009\"[1](1000"), h4_line,
                      "unterminated '('"));
  EXPECT_TRUE(FailsAt(load_ibnetdiscover, cut_after(full, "[2]\t"), h4_line - 10, "expected the quoted peer id"));
  EXPECT_TRUE(FailsAt(load_ibnetdiscover, cut_after(full, h4_port, 6), h4_line, "unterminated quote"));
  EXPECT_TRUE(FailsAt(load_ibnetdiscover, cut_after(full, h4_port, 13), h4_line, "missing LID after 'lid'"));
  EXPECT_TRUE(FailsAt(load_ibnetdiscover, cut_after(full, "Switch\t8 \"S-00000000002000"), 10, "unterminated quote"));
  EXPECT_TRUE(FailsAt(load_ibnetdiscover, cut_after(full, "Switch\t8"), 10, "expected a quoted node id"));
  EXPECT_TRUE(FailsAt(load_ibnetdiscover, cut_after(full, "# \"S2\" base port 0 lid"), 20, "missing LID"));
  EXPECT_TRUE(FailsAt(load_ibnetdiscover, cut_after(full, "[1](10000a) \t\"S-0000000000200001\"[2]\t\t# lid 6 lmc 0 \"S"),
                      52, "unterminated quote in node description"));
  EXPECT_TRUE(FailsAt(load_ibnetdiscover, cut_after(full, "switchguid=0x"), 9, "bad GUID '0x'"));
}

TEST(IbnetdiscoverErrors, BadPortNumbers) {
  const char *head = "Switch 8 \"S-0000000000000001\" # \"sw\" base port 0 lid 1 lmc 0\n";
  const char *host = "Ca 1 \"H-0000000000000002\" # \"h\"\n[1](3) \"S-0000000000000001\"[1]\n";
  auto with = [&](const std::string &port_line) { return std::string(head) + port_line + "\n" + host; };
  EXPECT_TRUE(FailsAt(load_ibnetdiscover, with("[9] \"H-0000000000000002\"[1]"), 2, "port 9 out of range"));
  EXPECT_TRUE(FailsAt(load_ibnetdiscover, with("[0] \"H-0000000000000002\"[1]"), 2, "bad port number '0'"));
  EXPECT_TRUE(FailsAt(load_ibnetdiscover, with("[x] \"H-0000000000000002\"[1]"), 2, "bad port number 'x'"));
  EXPECT_TRUE(FailsAt(load_ibnetdiscover, with("[-1] \"H-0000000000000002\"[1]"), 2, "bad port number"));
  EXPECT_TRUE(FailsAt(load_ibnetdiscover, with("[1] \"H-0000000000000002\"[300]"), 2, "bad port number '300'"));
  EXPECT_TRUE(FailsAt(load_ibnetdiscover, with("[1] \"H-0000000000000002\"[2]"), 2, "port 2 does not exist"));
  EXPECT_TRUE(FailsAt(load_ibnetdiscover, with("[99999999999999999999999] \"H-0000000000000002\"[1]"), 2,
                      "bad port number"));
}

TEST(IbnetdiscoverErrors, DuplicateAndConflictingLinks) {
  const char *s1 = "Switch 8 \"S-0000000000000001\" # \"s1\" base port 0 lid 1 lmc 0\n";
  const char *s2 = "Switch 8 \"S-0000000000000002\" # \"s2\" base port 0 lid 2 lmc 0\n";
  // The same port listed twice in one record, identically or not.
  std::string text = std::string(s1) + "[3] \"S-0000000000000002\"[3]\n[3] \"S-0000000000000002\"[3]\n" + s2;
  EXPECT_TRUE(FailsAt(load_ibnetdiscover, text, 3, "port 3 is listed twice (first at line 2)"));
  // The two ends disagree: s1 port 3 -> s2 port 3, but s2 port 3 -> s1 port 4.
  text = std::string(s1) + "[3] \"S-0000000000000002\"[3]\n" + s2 + "[3] \"S-0000000000000001\"[4]\n";
  EXPECT_TRUE(FailsAt(load_ibnetdiscover, text, 4, "conflicts with an earlier link"));
  // Two ports claim the same peer port.
  text = std::string(s1) + "[3] \"S-0000000000000002\"[3]\n[4] \"S-0000000000000002\"[3]\n" + s2;
  EXPECT_TRUE(FailsAt(load_ibnetdiscover, text, 3, "conflicts with an earlier link"));
  // A port wired to itself.
  text = std::string(s1) + "[3] \"S-0000000000000001\"[3]\n";
  EXPECT_TRUE(FailsAt(load_ibnetdiscover, text, 2, "loops back"));
  // The same node twice.
  text = std::string(s1) + s2 + s1;
  EXPECT_TRUE(FailsAt(load_ibnetdiscover, text, 3, "node 'S-0000000000000001' is defined twice (first at line 1)"));
}

TEST(IbnetdiscoverErrors, UndefinedPeer) {
  std::string text = data_file("fabric_2sw4h.txt");
  size_t at = text.find("\"H-0000000000100009\"[1](10000a)");
  text.replace(at, 20, "\"H-00000000001000ff\"");
  EXPECT_TRUE(FailsAt(load_ibnetdiscover, text, 22, "peer 'H-00000000001000ff' is not defined in this file"));
}

TEST(IbnetdiscoverErrors, MalformedHeaders) {
  const char *port = "\n[1] \"S-0000000000000001\"[1]\n";
  auto with = [&](const std::string &header) { return "# x\n" + header + port; };
  EXPECT_TRUE(FailsAt(load_ibnetdiscover, with("Switch"), 2, "missing port count"));
  EXPECT_TRUE(FailsAt(load_ibnetdiscover, with("Switch 8 S-0000000000000001"), 2, "expected a quoted node id"));
  EXPECT_TRUE(FailsAt(load_ibnetdiscover, with("Switch eight \"S-0000000000000001\""), 2, "bad port count 'eight'"));
  EXPECT_TRUE(FailsAt(load_ibnetdiscover, with("Switch 0 \"S-0000000000000001\""), 2, "bad port count '0'"));
  EXPECT_TRUE(FailsAt(load_ibnetdiscover, with("Switch 255 \"S-0000000000000001\""), 2, "bad port count '255'"));
  EXPECT_TRUE(FailsAt(load_ibnetdiscover, with("Ca 2 \"\" # \"h\""), 2, "empty node id"));
  EXPECT_TRUE(FailsAt(load_ibnetdiscover, with("Ca 2 \"H-0000000000000001\" junk"), 2, "unexpected text 'junk'"));
  EXPECT_TRUE(FailsAt(load_ibnetdiscover, with("Ca 2 \"H-0000000000000001\" # h1 HCA-1"), 2, "must be quoted"));
  EXPECT_TRUE(FailsAt(load_ibnetdiscover, with("Ca 2 \"H-0000000000000001\" # \"h1"), 2, "unterminated quote"));
}

TEST(IbnetdiscoverErrors, BadGuidsAndLids) {
  const char *tail = "[1] \"S-0000000000000001\"[1]\n";
  EXPECT_TRUE(FailsAt(load_ibnetdiscover, std::string("Ca 2 \"H-00000000000000zz\"\n") + tail, 1, "bad GUID"));
  EXPECT_TRUE(FailsAt(load_ibnetdiscover, std::string("Ca 2 \"myhost\"\n") + tail, 1, "bad GUID"));
  EXPECT_TRUE(FailsAt(load_ibnetdiscover, std::string("Ca 2 \"H-10000000000000000\"\n") + tail, 1, "bad GUID"));
  EXPECT_TRUE(FailsAt(load_ibnetdiscover, "vendid=0x1\ncaguid=0xnothex\nCa 1 \"H-1\"\n", 2, "bad GUID '0xnothex'"));
  EXPECT_TRUE(FailsAt(load_ibnetdiscover, "Ca 1 \"H-1\"\n[1](12g4) \"S-1\"[1]\n", 2, "bad GUID '12g4'"));
  EXPECT_TRUE(FailsAt(load_ibnetdiscover, "Switch 1 \"S-1\" # \"s\" base port 0 lid 65536 lmc 0\n", 1,
                      "bad LID '65536'"));
  EXPECT_TRUE(FailsAt(load_ibnetdiscover, "Ca 1 \"H-1\"\n[1](2) \"S-1\"[1] # lid x lmc 0 \"s\" lid 1 4xSDR\n", 2,
                      "bad LID 'x'"));
  EXPECT_TRUE(FailsAt(load_ibnetdiscover, "Ca 1 \"H-1\"\n[1](2) \"S-1\"[1] junk\n", 2, "unexpected text 'junk'"));
}

TEST(IbnetdiscoverErrors, PortLineOutsideRecord) {
  EXPECT_TRUE(FailsAt(load_ibnetdiscover, "#\n[1] \"S-1\"[1]\n", 2, "port line outside a record"));
  // Metadata ends a record: a port line after it belongs to no node.
  std::string text = "Switch 8 \"S-1\" # \"s\" base port 0 lid 1 lmc 0\nvendid=0x2c9\n[1] \"S-1\"[2]\n";
  EXPECT_TRUE(FailsAt(load_ibnetdiscover, text, 3, "port line outside a record"));
}

TEST(IbnetdiscoverErrors, GarbageBytes) {
  const std::string elf("\x7f" "ELF\x02\x01\x01\0\0\0\0\0\0\0\0\0\x03\0>\0\x01\0\0\0", 24);
  EXPECT_TRUE(FailsAt(load_ibnetdiscover, elf, 1, "unknown record '?ELF????"));
  std::string text = data_file("fabric_2sw4h.txt");
  text.insert(text.find("Switch\t8 \"S-0000000000200001\""), std::string("\0\xff\xfe[\x01\n", 6));
  EXPECT_TRUE(FailsAt(load_ibnetdiscover, text, 20, "unknown record"));

  std::mt19937 random(12345);
  for (int round = 0; round < 300; ++round) {
    std::string bytes(1 + random() % 400, '\0');
    for (char &c : bytes) c = static_cast<char>(random() % 7 == 0 ? '\n' : random() % 256);
    canopy_status_t status = guard([&] { (void)load_ibnetdiscover(bytes, "bad.txt"); });
    EXPECT_EQ(status, CANOPY_ERR_PARSE);
    EXPECT_EQ(std::string(canopy_last_error()).rfind("bad.txt:", 0), 0u) << canopy_last_error();
  }
}

namespace {

// ~60k lines, shaped like `ibnetdiscover` on an 8,192-host two-level fat tree.
std::string make_fat_tree_text(int leaves, int hosts_per_leaf, int uplinks, int spines) {
  std::string text = "#\n# Topology file: generated for the loader benchmark\n#\n";
  char line[256];
  auto add = [&](const char *format, auto... args) {
    std::snprintf(line, sizeof line, format, args...);
    text += line;
  };
  const unsigned long long spine_base = 0x100000, leaf_base = 0x200000, host_base = 0x10000000;
  int leaves_per_group = leaves / (spines / uplinks);
  int first_host_lid = 1 + spines + leaves;
  for (int s = 0; s < spines; ++s) {
    add("\nvendid=0x2c9\ndevid=0xd2f0\nsysimgguid=0x%llx\nswitchguid=0x%llx(%llx)\n", spine_base + s,
        spine_base + s, spine_base + s);
    add("Switch\t%d \"S-%016llx\"\t\t# \"spine%03d\" enhanced port 0 lid %d lmc 0\n", leaves_per_group,
        spine_base + s, s, 1 + s);
    int group = s / uplinks, u = s % uplinks;
    for (int p = 1; p <= leaves_per_group; ++p) {
      int l = group * leaves_per_group + p - 1;
      add("[%d]\t\"S-%016llx\"[%d]\t\t# \"leaf%03d\" lid %d 4xEDR\n", p, leaf_base + l, hosts_per_leaf + 1 + u, l,
          1 + spines + l);
    }
  }
  for (int l = 0; l < leaves; ++l) {
    add("\nvendid=0x2c9\ndevid=0xd2f0\nsysimgguid=0x%llx\nswitchguid=0x%llx(%llx)\n", leaf_base + l, leaf_base + l,
        leaf_base + l);
    add("Switch\t%d \"S-%016llx\"\t\t# \"leaf%03d\" enhanced port 0 lid %d lmc 0\n", hosts_per_leaf + uplinks,
        leaf_base + l, l, 1 + spines + l);
    for (int p = 1; p <= hosts_per_leaf; ++p) {
      int h = l * hosts_per_leaf + p - 1;
      add("[%d]\t\"H-%016llx\"[1](%llx) \t\t# \"n%05d HCA-1\" lid %d 4xEDR\n", p, host_base + 2 * h,
          host_base + 2 * h + 1, h, first_host_lid + h);
    }
    for (int u = 0; u < uplinks; ++u) {
      int s = (l / leaves_per_group) * uplinks + u;
      add("[%d]\t\"S-%016llx\"[%d]\t\t# \"spine%03d\" lid %d 4xEDR\n", hosts_per_leaf + 1 + u, spine_base + s,
          l % leaves_per_group + 1, s, 1 + s);
    }
  }
  for (int h = 0; h < leaves * hosts_per_leaf; ++h) {
    int l = h / hosts_per_leaf;
    add("\nvendid=0x2c9\ndevid=0x101b\nsysimgguid=0x%llx\ncaguid=0x%llx\n", host_base + 2 * h, host_base + 2 * h);
    add("Ca\t1 \"H-%016llx\"\t\t# \"n%05d HCA-1\"\n", host_base + 2 * h, h);
    add("[1](%llx) \t\"S-%016llx\"[%d]\t\t# lid %d lmc 0 \"leaf%03d\" lid %d 4xEDR\n", host_base + 2 * h + 1,
        leaf_base + l, h % hosts_per_leaf + 1, first_host_lid + h, l, 1 + spines + l);
  }
  return text;
}

}  // namespace

TEST(Ibnetdiscover, LargeFabricParsesQuickly) {
  std::string text = make_fat_tree_text(256, 32, 8, 32);
  auto start = std::chrono::steady_clock::now();
  Topology topo = load_ibnetdiscover(text, "big.txt");
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  size_t lines = static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
  std::printf("[          ] %zu lines, %zu nodes in %.1f ms\n", lines, topo.nodes().size(), seconds * 1e3);
  EXPECT_EQ(topo.hosts().size(), 8192u);
  EXPECT_EQ(topo.switches().size(), 288u);
  EXPECT_EQ(topo.links().size(), 8192u + 256u * 8u);
  EXPECT_EQ(topo.node(topo.find_host("n08191")).lid, 1u + 32u + 256u + 8191u);
  EXPECT_EQ(topo.node(topo.find_guid(0x100000)).level, 2);
#ifdef __OPTIMIZE__
  // The target is well under 0.2 s; the bound here only catches accidental
  // quadratic behaviour without flaking on a busy machine. Unoptimised
  // sanitizer builds are 100x slower and only check correctness.
  EXPECT_LT(seconds, 2.0);
#endif
}

// ---------------------------------------------------------------- -p (ports report)

TEST(IbnetdiscoverPorts, TwoSwitchFourHostFabric) {
  Topology topo = load_ibnetdiscover_ports(data_file("fabric_2sw4h_ports.txt"), "ports.txt");
  EXPECT_EQ(topo.source(), "ibnetdiscover-ports:ports.txt");
  ASSERT_EQ(topo.hosts().size(), 4u);
  ASSERT_EQ(topo.switches().size(), 2u);
  EXPECT_EQ(topo.links().size(), 6u);
  int s2 = topo.find_guid(0x200001);
  ASSERT_GE(s2, 0);
  EXPECT_EQ(topo.node(s2).num_ports(), 8);
  EXPECT_EQ(topo.node(s2).lid, 3u);
  EXPECT_EQ(topo.node(s2).ports[0].lid, 3u);
  EXPECT_EQ(topo.node(s2).ports[7].guid, 0x200001u);
  EXPECT_EQ(topo.node(s2).name, "S2");
  EXPECT_EQ(topo.node(s2).level, 1);
  int h4 = topo.find_host("H4");
  ASSERT_GE(h4, 0);
  EXPECT_EQ(topo.node(h4).guid, 0x10000au);  // a CA is keyed by its port GUID
  EXPECT_EQ(topo.node(h4).ports[1].guid, 0x10000au);
  EXPECT_EQ(topo.node(h4).ports[1].lid, 6u);
  EXPECT_EQ(topo.node(h4).lid, 6u);
  EXPECT_EQ(peer_of(topo, h4, 1), std::make_pair(s2, 2));
  EXPECT_DOUBLE_EQ(topo.node(h4).ports[1].rate.gbps, 8.0);

  // Same fabric as the default-format capture: same hosts, cabling and rates.
  Topology full = load_ibnetdiscover(data_file("fabric_2sw4h.txt"), "full.txt");
  for (int h : full.hosts()) {
    const Node &a = full.node(h);
    int other = topo.find_host(a.name);
    ASSERT_GE(other, 0) << a.name;
    const Node &b = topo.node(other);
    EXPECT_EQ(b.lid, a.lid);
    const Port &pa = a.ports[1], &pb = b.ports[1];
    EXPECT_EQ(pb.guid, pa.guid);
    EXPECT_EQ(topo.node(pb.peer_node).guid, full.node(pa.peer_node).guid);
    EXPECT_EQ(pb.peer_port, pa.peer_port);
    EXPECT_EQ(pb.rate, pa.rate);
  }
}

TEST(IbnetdiscoverPorts, SampleLinesAndPortCounts) {
  const char *text =
      "CA     6  1 0x000000000010000a 4x SDR - SW     3  2 0x0000000000200001 ( 'H4' - 'S2' )\n"
      "SW     3  8 0x0000000000200001 4x SDR                                    'S2'\n"
      "SW     3  5 0x0000000000200001 4x SDR - SW     1  5 0x0000000000200000 ( 'S2' - 'S1' )\n";
  Topology topo = load_ibnetdiscover_ports(text, "p.txt");
  ASSERT_EQ(topo.nodes().size(), 3u);
  int s1 = topo.find_guid(0x200000), s2 = topo.find_guid(0x200001);
  EXPECT_EQ(topo.node(s2).num_ports(), 8);  // the highest port number seen
  EXPECT_EQ(topo.node(s1).num_ports(), 5);  // only seen as a peer
  EXPECT_EQ(topo.node(s1).lid, 1u);
  EXPECT_EQ(topo.node(s1).name, "S1");
  EXPECT_EQ(peer_of(topo, s1, 5), std::make_pair(s2, 5));
  EXPECT_EQ(topo.node(s1).level, 2);
  EXPECT_FALSE(topo.node(s2).ports[8].connected());
}

TEST(IbnetdiscoverPorts, SpeedsWidthsAndUnknownSpeeds) {
  const char *text =
      "# comment lines and blank lines are skipped\n"
      "\n"
      "CA    11  1 0x0000000000000011 4x QDR - SW     1  1 0x0000000000000001 ( 'n1 HCA-1' - 'sw' )\n"
      "CA    12  1 0x0000000000000012 4x FDR - SW     1  2 0x0000000000000001 ( 'n2 HCA-1' - 'sw' )\n"
      "CA    13  1 0x0000000000000013 4x HDR (Extended speed) - SW 1 3 0x0000000000000001 ( 'n3' - 'sw' )\n"
      "CA    14  1 0x0000000000000014 12x EDR - SW     1  4 0x0000000000000001 ( 'n4' - 'sw' )\n"
      "CA    15  1 0x0000000000000015 4x ??? - SW     1  5 0x0000000000000001 ( 'n5' - 'sw' )\n"
      "CA    16  1 0x0000000000000016 ?? XDR - SW     1  6 0x0000000000000001 ( 'n6' - 'sw' )\n"
      "CA    17  1 0x0000000000000017 1x SDR - SW     1  7 0x0000000000000001 ( 'n7 - with dash' - 'sw' )\n"
      "RT    18  2 0x0000000000000018 4x NDR - SW     1  8 0x0000000000000001 ( 'rt' - 'sw' )\n";
  Topology topo = load_ibnetdiscover_ports(text, "p.txt");
  auto rate = [&](const char *host) { return topo.node(topo.find_host(host)).ports[1].rate; };
  EXPECT_DOUBLE_EQ(rate("n1").gbps, 32.0);
  EXPECT_NEAR(rate("n2").gbps, 54.5, 0.1);
  EXPECT_DOUBLE_EQ(rate("n3").gbps, 200.0);
  EXPECT_DOUBLE_EQ(rate("n4").gbps, 300.0);
  EXPECT_EQ(rate("n5"), (LinkRate{4, LinkSpeed::Unknown, 0}));
  EXPECT_EQ(rate("n6"), LinkRate{});
  EXPECT_DOUBLE_EQ(rate("n7").gbps, 2.0);
  EXPECT_EQ(topo.node(topo.find_host("n7")).description, "n7 - with dash");
  int rt = topo.find_guid(0x18);
  ASSERT_GE(rt, 0);
  EXPECT_EQ(topo.node(rt).type, NodeType::Router);
  EXPECT_EQ(topo.node(rt).num_ports(), 2);
  EXPECT_EQ(topo.node(rt).ports[2].lid, 18u);
  EXPECT_DOUBLE_EQ(topo.node(rt).ports[2].rate.gbps, 400.0);
  EXPECT_EQ(topo.node(topo.find_guid(1)).num_ports(), 8);
}

TEST(IbnetdiscoverPorts, DualPortHcaBecomesTwoNodes) {
  // -p gives no node GUID for CAs: each port GUID is a node of its own.
  const char *text =
      "CA    11  1 0x0000000000000011 4x EDR - SW     1  1 0x0000000000000001 ( 'n1 HCA-1' - 'sw' )\n"
      "CA    12  2 0x0000000000000012 4x EDR - SW     1  2 0x0000000000000001 ( 'n1 HCA-1' - 'sw' )\n";
  Topology topo = load_ibnetdiscover_ports(text, "p.txt");
  ASSERT_EQ(topo.hosts().size(), 2u);
  const Node &second = topo.node(topo.find_guid(0x12));
  EXPECT_EQ(second.num_ports(), 2);
  EXPECT_FALSE(second.ports[1].connected());
  EXPECT_EQ(second.ports[2].lid, 12u);
}

TEST(IbnetdiscoverPortsErrors, EmptyAndCommentOnlyInput) {
  EXPECT_TRUE(FailsAt(load_ibnetdiscover_ports, "", 1, "no nodes found"));
  EXPECT_TRUE(FailsAt(load_ibnetdiscover_ports, "# a\n\n# b\n", 3, "no nodes found"));
}

TEST(IbnetdiscoverPortsErrors, TruncatedLinesAndFile) {
  const std::string full = data_file("fabric_2sw4h_ports.txt");
  const char *line5 = "SW     3  8 0x0000000000200001 4x SDR";
  ASSERT_EQ(line_of(full, line5), 5u);
  EXPECT_TRUE(FailsAt(load_ibnetdiscover_ports, cut_after(full, line5), 5, "truncated line"));
  EXPECT_TRUE(FailsAt(load_ibnetdiscover_ports, cut_after(full, line5, 10), 5, "truncated line"));
  EXPECT_TRUE(FailsAt(load_ibnetdiscover_ports, cut_after(full, "SW     3  8 0x00000000002"), 5, "truncated line"));
  const char *line1 = "CA     6  1 0x000000000010000a 4x SDR - SW     3  2 0x0000000000200001";
  EXPECT_TRUE(FailsAt(load_ibnetdiscover_ports, cut_after(full, line1), 1, "truncated line"));
  EXPECT_TRUE(FailsAt(load_ibnetdiscover_ports, cut_after(full, line1, 6), 1, "missing ')'"));
  EXPECT_TRUE(FailsAt(load_ibnetdiscover_ports, cut_after(full, line1, 14), 1, "missing ')'"));
  EXPECT_TRUE(FailsAt(load_ibnetdiscover_ports, cut_after(full, "- SW     3  2"), 1, "truncated line"));
  // Cut between lines: what is there is a valid, smaller fabric.
  EXPECT_EQ(guard([&] { (void)load_ibnetdiscover_ports(cut_after(full, "'S2' - 'H3' )\n"), "p"); }), CANOPY_SUCCESS);
}

TEST(IbnetdiscoverPortsErrors, BadFields) {
  const char *peer = " 4x SDR - SW 1 1 0x0000000000000001 ( 'h' - 's' )\n";
  auto line = [&](const std::string &own) { return "# x\n" + own + peer; };
  EXPECT_TRUE(FailsAt(load_ibnetdiscover_ports, line("HCA 2 1 0x0000000000000002"), 2, "unknown node type 'HCA'"));
  EXPECT_TRUE(FailsAt(load_ibnetdiscover_ports, line("XX 2 1 0x0000000000000002"), 2, "unknown node type 'XX'"));
  EXPECT_TRUE(FailsAt(load_ibnetdiscover_ports, line("CA x 1 0x0000000000000002"), 2, "bad LID 'x'"));
  EXPECT_TRUE(FailsAt(load_ibnetdiscover_ports, line("CA 70000 1 0x0000000000000002"), 2, "bad LID '70000'"));
  EXPECT_TRUE(FailsAt(load_ibnetdiscover_ports, line("CA 2 0 0x0000000000000002"), 2, "bad port number '0'"));
  EXPECT_TRUE(FailsAt(load_ibnetdiscover_ports, line("CA 2 255 0x0000000000000002"), 2, "bad port number '255'"));
  EXPECT_TRUE(FailsAt(load_ibnetdiscover_ports, line("CA 2 1 0x00000000000000zz"), 2, "bad GUID"));
  EXPECT_TRUE(FailsAt(load_ibnetdiscover_ports, line("CA 2 1 0x10000000000000000"), 2, "bad GUID"));
  EXPECT_TRUE(FailsAt(load_ibnetdiscover_ports, "CA 2 1 0x2 4x SDR - SW 1 1 0x1 'h' - 's'\n", 1,
                      "expected ( 'description' - 'peer description' )"));
  EXPECT_TRUE(FailsAt(load_ibnetdiscover_ports, "CA 2 1 0x2 4x SDR - SW 1 1 0x1 ( h - s )\n", 1,
                      "malformed descriptions"));
  EXPECT_TRUE(FailsAt(load_ibnetdiscover_ports, "SW 2 1 0x2 4x SDR 'sw\n", 1, "unterminated quote"));
}

TEST(IbnetdiscoverPortsErrors, ConflictingLinksAndTypes) {
  std::string text =
      "CA 2 1 0x2 4x SDR - SW 1 1 0x1 ( 'h' - 's' )\n"
      "SW 1 1 0x1 4x SDR - CA 2 1 0x2 ( 's' - 'h' )\n"
      "SW 1 1 0x1 4x SDR - CA 3 1 0x3 ( 's' - 'h2' )\n";
  EXPECT_TRUE(FailsAt(load_ibnetdiscover_ports, text, 3, "conflicts with an earlier link"));
  text = "CA 2 1 0x2 4x SDR - SW 1 1 0x1 ( 'h' - 's' )\nSW 1 2 0x1 4x SDR - SW 5 2 0x2 ( 's' - 'h' )\n";
  EXPECT_TRUE(FailsAt(load_ibnetdiscover_ports, text, 2, "GUID 0x0000000000000002 is a SW here but a CA at line 1"));
  text = "SW 1 3 0x1 4x SDR - SW 1 3 0x1 ( 's' - 's' )\n";
  EXPECT_TRUE(FailsAt(load_ibnetdiscover_ports, text, 1, "loops back"));
}

TEST(IbnetdiscoverPortsErrors, GarbageBytes) {
  const std::string elf("\x7f" "ELF\x02\x01\x01\0\0\0\0\0\0\0\0\0\x03\0>\0", 20);
  EXPECT_TRUE(FailsAt(load_ibnetdiscover_ports, elf, 1, "unknown node type"));
  std::mt19937 random(54321);
  for (int round = 0; round < 300; ++round) {
    std::string bytes(1 + random() % 400, '\0');
    for (char &c : bytes) c = static_cast<char>(random() % 7 == 0 ? '\n' : random() % 256);
    canopy_status_t status = guard([&] { (void)load_ibnetdiscover_ports(bytes, "bad.txt"); });
    EXPECT_EQ(status, CANOPY_ERR_PARSE);
    EXPECT_EQ(std::string(canopy_last_error()).rfind("bad.txt:", 0), 0u) << canopy_last_error();
  }
}

// Hosts with the very same description (unconfigured HCAs) cannot be told apart
// by it: each is named by its GUID and the description finds none, where before
// it found whichever came first. A node's two HCAs share only the name, which
// finds the first.
TEST(Topology, HostsWithTheSameDescriptionAreNamedByTheirGuid) {
  using namespace canopy::topo;
  Topology t;
  int sw = t.add_node(NodeType::Switch, 0x10, "sw", 4);
  const std::string unconfigured = "MT4099 ConnectX3 Mellanox Technologies";
  int a = t.add_node(NodeType::Host, 0x21, unconfigured, 1), b = t.add_node(NodeType::Host, 0x22, unconfigured, 1);
  int c = t.add_node(NodeType::Host, 0x23, "node017 HCA-1", 1), d = t.add_node(NodeType::Host, 0x24, "node017 HCA-2", 1);
  for (int h : {a, b, c, d}) t.connect(h, 1, sw, h - a + 1, ib_rate(4, LinkSpeed::QDR));
  t.finalize();
  EXPECT_EQ(t.node(a).name, canopy::guid_string(0x21));
  EXPECT_EQ(t.node(b).name, canopy::guid_string(0x22));
  EXPECT_EQ(t.find_host(unconfigured), -1);
  EXPECT_EQ(t.find_host("MT4099"), -1);
  EXPECT_EQ(t.find_host(canopy::guid_string(0x22)), b);
  EXPECT_EQ(t.node(c).name, "node017");
  EXPECT_EQ(t.find_host("node017"), c);
  EXPECT_EQ(t.find_host("node017 HCA-2"), d);
}

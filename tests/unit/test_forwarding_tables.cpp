// Forwarding tables from ibroute dumps (single and concatenated) and from
// OpenSM's opensm-lfts.dump, on the two-switch sample fabric; errors with
// file:line; and the parallel parse giving the same answers as the serial one.
#include "topo/loaders/forwarding_tables.h"

#include <atomic>
#include <cstdio>
#include <stdexcept>

#include "common/text.h"
#include "loader_test_util.h"

using namespace canopy;
using namespace canopy::topo;
using canopy::test::expect_parse_error;
using canopy::test::read_data;
using canopy::test::two_switch_fabric;

namespace {

constexpr uint8_t kNo = Topology::kNoPort;

// What the sample dumps say: LID -> egress port, LIDs 0..7, for S1 and for S2.
const uint8_t kS1[] = {kNo, 0, 1, 2, 3, 3, 4, kNo};
const uint8_t kS2[] = {kNo, 3, 3, 4, 0, 1, 2, kNo};

void expect_table(const Topology &t, uint64_t switch_guid, const uint8_t (&expected)[8]) {
  int sw = t.find_guid(switch_guid);
  ASSERT_GE(sw, 0);
  for (uint32_t lid = 0; lid < 8; ++lid)
    EXPECT_EQ(t.forwarding_port(sw, lid), expected[lid]) << guid_string(switch_guid) << " LID " << lid;
}

const char *const kS1Header = "Unicast lids [0x0-0x6] of switch Lid 1 guid 0x0000000000200000 (S1):\n";
const char *const kS2Header = "Unicast lids [0x0-0x6] of switch Lid 4 guid 0x0000000000200001 (S2):\n";

void apply_text(Topology &t, const std::string &text) { apply_forwarding_tables(t, text, "lft.txt"); }

}  // namespace

TEST(ForwardingTables, SingleIbrouteDump) {
  Topology t = two_switch_fabric();
  apply_forwarding_tables(t, read_data("lft/ibroute-S1.txt"), "ibroute-S1.txt");
  EXPECT_EQ(t.num_forwarding_tables(), 1);
  expect_table(t, 0x200000, kS1);
  EXPECT_EQ(t.forwarding_port(t.find_guid(0x200001), 2), kNo);
}

TEST(ForwardingTables, ConcatenatedIbrouteDumps) {
  Topology t = two_switch_fabric();
  apply_forwarding_tables(t, read_data("lft/ibroute-all.txt"), "ibroute-all.txt");
  EXPECT_EQ(t.num_forwarding_tables(), 2);
  expect_table(t, 0x200000, kS1);
  expect_table(t, 0x200001, kS2);
}

TEST(ForwardingTables, OpensmLftsDump) {
  Topology t = two_switch_fabric();
  apply_forwarding_tables(t, read_data("lft/opensm-lfts.dump"), "opensm-lfts.dump");
  EXPECT_EQ(t.num_forwarding_tables(), 2);
  expect_table(t, 0x200000, kS1);
  expect_table(t, 0x200001, kS2);
}

TEST(ForwardingTables, OtherIbrouteAndOpensmVariants) {
  // ibroute -n (no destinations), "(unknown node and type)", LMC paths, ibroute -a's
  // port 255 for unrouted LIDs, CRLF line ends, a DR-path switch name, OpenSM's
  // "[0-0x6]" range and "(...)" destinations in an opensm-lfts.dump-style block.
  std::string text =
      "Unicast lids [0x0-0x7] of switch DR path slid 0; dlid 0; 0,1 guid 0x0000000000200000 (S1):\r\n"
      "  Lid  Out   Destination\r\n"
      "       Port     Info \r\n"
      "0x0000 255 : (path #0 - illegal port)\r\n"
      "0x0001 000\r\n"
      "0x0002 001 \r\n"
      "0x0003 002 : (unknown node and type)\r\n"
      "0x0004 003 : (path #2 out of 4: portguid 0x0000000000200001)\r\n"
      "0x0005 003 : (Channel Adapter portguid 0x0000000000100007: 'H3 with (parens): and # signs')\r\n"
      "0x0006\t004\r\n"
      "0x0007 255 : (unknown node and type)\r\n"
      "8 lids dumped \r\n"
      "\n"
      "Unicast lids [0-0x6] of switch Lid 4 guid 0x0000000000200001 ('S2'):\n"
      "0x0001 003 : (Switch portguid 0x0000000000200000: 'S1')\n"
      "0x2 003 # unknown node and type\n"
      "0x0003 004 # Channel Adapter portguid 0x0000000000100004: 'H2'\n"
      "0x0004 000\n"
      "0x0005 001\n"
      "0x0006 002\n"
      "6 lids dumped";  // no newline at the end
  Topology t = two_switch_fabric();
  apply_text(t, text);
  expect_table(t, 0x200000, kS1);
  expect_table(t, 0x200001, kS2);
}

TEST(ForwardingTables, SkipsMulticastTablesMixedIn) {
  std::string text =
      "Multicast mlids [0xc000-0xc3ff] of switch Lid 1 guid 0x0000000000200000 (S1):\n"
      "            0                   1\n"
      "     Ports: 0 1 2 3 4 5 6 7 8\n"
      " MLid\n"
      "0xc000      x x x\n"
      "1 valid mlids dumped \n" +
      read_data("lft/ibroute-S1.txt") +
      "Multicast mlids [0xc000-0xc3ff] of switch Lid 4 guid 0x0000000000200001 (S2):\n"
      "0xc000        x x\n"
      "1 valid mlids dumped \n";
  Topology t = two_switch_fabric();
  apply_text(t, text);
  EXPECT_EQ(t.num_forwarding_tables(), 1);
  expect_table(t, 0x200000, kS1);
}

TEST(ForwardingTables, MalformedDumpsNameFileAndLine) {
  const std::string s1 = kS1Header;
  struct Case {
    std::string text, where, fragment;
  };
  const Case cases[] = {
      {"Unicast lids [0x0-0x6] of switch Lid 9 guid 0x0000000000300000 (X):\n0x0001 001\n6 valid lids dumped\n",
       "lft.txt:1: ", "switch 0x0000000000300000 is not in the fabric"},
      {"Unicast lids [0x0-0x6] of switch Lid 2 guid 0x0000000000100001 (H1):\n", "lft.txt:1: ",
       "0x0000000000100001 is 'H1', not a switch"},
      {s1 + "0x0001 000\n0x0002 009 : (Channel Adapter portguid 0x0000000000100001: 'H1')\n", "lft.txt:3: ",
       "egress port 9 for LID 0x0002 does not exist on switch 0x0000000000200000 (it has 8 ports)"},
      {s1 + "0x0002 001\n0x0003 002\n0x0002 001\n6 valid lids dumped\n", "lft.txt:4: ",
       "LID 0x0002 appears twice in the table of switch 0x0000000000200000"},
      {"Unicast lids [0x0-0xc000] of switch Lid 1 guid 0x0000000000200000 (S1):\n0xc000 001\n", "lft.txt:2: ",
       "LID 0xc000 is above the unicast LID range"},
      {s1 + "0x0007 001\n", "lft.txt:2: ", "LID 0x0007 is outside the range [0x0000-0x0006]"},
      {s1 + "0x0001 000\n0x0002 001\n", "lft.txt:1: ", "ends without its 'lids dumped' line (truncated dump?)"},
      {s1 + "0x0001 000\n" + kS2Header + "0x0001 003\n6 valid lids dumped\n", "lft.txt:1: ",
       "switch 0x0000000000200000 ends without its 'lids dumped' line"},
      {s1 + "0x0001 000\n\x89PNG\r\n\x1a\n", "lft.txt:3: ", "unexpected line in the forwarding table"},
      {std::string("\x00\x01garbage\xff\n", 11), "lft.txt:1: ", "expected a 'Unicast lids [...] of switch"},
      {"", "lft.txt:1: ", "no unicast forwarding table found (empty file?)"},
      {"\n\n", "lft.txt:1: ", "no unicast forwarding table found"},
      {"Unicast lids of switch Lid 1 guid 0x0000000000200000 (S1):\n", "lft.txt:1: ", "malformed table header"},
      {"Unicast lids [0x6-0x0] of switch Lid 1 guid 0x0000000000200000 (S1):\n", "lft.txt:1: ",
       "malformed table header"},
      {"Unicast lids [0x0-0x6] of switch Lid 1 (S1):\n", "lft.txt:1: ", "malformed table header"},
      {s1 + "0x00g2 001\n", "lft.txt:2: ", "malformed forwarding-table entry '0x00g2 001'"},
      {s1 + "0x0002 1x\n", "lft.txt:2: ", "malformed forwarding-table entry"},
      {s1 + "0x0002 0001\n", "lft.txt:2: ", "malformed forwarding-table entry"},
      {s1 + "0x0002\n", "lft.txt:2: ", "malformed forwarding-table entry"},
      {s1 + "0x\n", "lft.txt:2: ", "malformed forwarding-table entry"},
      {s1 + "0x000000002 001\n", "lft.txt:2: ", "malformed forwarding-table entry"},
      {s1 + "0x0002 001\n6 valid lids\n", "lft.txt:3: ", "expected '<N> lids dumped'"},
      {s1 + "6 lids dumped\n\n" + s1 + "6 lids dumped\n", "lft.txt:4: ",
       "second forwarding table for switch 0x0000000000200000 (the first is at line 1)"},
  };
  for (const Case &c : cases) {
    Topology t = two_switch_fabric();
    expect_parse_error([&] { apply_text(t, c.text); }, c.where, c.fragment);
    EXPECT_EQ(t.num_forwarding_tables(), 0);
  }
}

TEST(ForwardingTables, AFailedDumpChangesNothing) {
  Topology t = two_switch_fabric();
  apply_text(t, read_data("lft/ibroute-S1.txt"));
  std::string text = std::string(kS2Header) + "0x0001 003\n6 valid lids dumped\n" + kS1Header + "0x0001 009\n";
  EXPECT_EQ(guard([&] { apply_text(t, text); }), CANOPY_ERR_PARSE);
  EXPECT_EQ(t.num_forwarding_tables(), 1);
  expect_table(t, 0x200000, kS1);
}

namespace {

constexpr int kSwitches = 40;
constexpr uint64_t kFirstGuid = 0x300000;

/** 40 switches with 8 ports each, enough tables to cut into several pieces. */
Topology many_switches() {
  Topology t;
  for (int i = 0; i < kSwitches; ++i) t.add_node(NodeType::Switch, kFirstGuid + i, "S" + std::to_string(i), 8);
  t.finalize();
  return t;
}

std::string many_tables(int lids) {
  std::string text;
  char line[128];
  for (int i = 0; i < kSwitches; ++i) {
    std::snprintf(line, sizeof line, "Unicast lids [0x0-0x%x] of switch Lid %d guid 0x%016llx (S%d):\n", lids, i + 1,
                  static_cast<unsigned long long>(kFirstGuid + i), i);
    text += line;
    for (int lid = 1; lid <= lids; ++lid) {
      std::snprintf(line, sizeof line, "0x%04x %03d : (Channel Adapter portguid 0x%016x: 'h%d')\n", lid,
                    (lid + i) % 9, lid, lid);
      text += line;
    }
    text += std::to_string(lids) + " valid lids dumped \n";
  }
  return text;
}

}  // namespace

TEST(ForwardingTables, ParallelPiecesGiveTheSerialResult) {
  Topology t = many_switches();
  std::string text = many_tables(300);
  std::vector<lft::ParsedTable> serial = lft::parse_tables(t, text, "big.txt");
  std::vector<lft::ParsedTable> parallel = lft::parse_tables_parallel(t, text, "big.txt", 4, 1);
  ASSERT_EQ(serial.size(), static_cast<size_t>(kSwitches));
  ASSERT_EQ(parallel.size(), serial.size());
  for (size_t i = 0; i < serial.size(); ++i) {
    EXPECT_EQ(parallel[i].switch_node, serial[i].switch_node);
    EXPECT_EQ(parallel[i].line, serial[i].line);
    EXPECT_EQ(parallel[i].lid_to_port, serial[i].lid_to_port);
  }
  EXPECT_EQ(serial.back().line, 1 + (kSwitches - 1) * 302u);
  EXPECT_EQ(serial[7].lid_to_port[20], (20 + 7) % 9);
}

TEST(ForwardingTables, APieceWithOnlyMulticastTablesIsFine) {
  Topology t = many_switches();
  std::string text = "Multicast mlids [0xc000-0xc7ff] of switch Lid 1 guid 0x0000000000300000 (S0):\n";
  char line[32];
  for (int mlid = 0xc000; mlid < 0xc800; ++mlid) {
    std::snprintf(line, sizeof line, "0x%04x      x x\n", mlid);
    text += line;
  }
  text += "2048 valid mlids dumped \n" + many_tables(20);
  std::vector<lft::ParsedTable> tables = lft::parse_tables_parallel(t, text, "mixed.txt", 40, 1);
  ASSERT_EQ(tables.size(), static_cast<size_t>(kSwitches));
  EXPECT_EQ(tables[0].line, 2051u);
}

TEST(ForwardingTables, ParallelPiecesReportGlobalLinesAndCrossPieceDuplicates) {
  Topology t = many_switches();
  std::string text = many_tables(300);
  // Corrupt one entry near the end: its line number must count the earlier pieces.
  size_t at = text.rfind("0x0100 ");
  text.replace(at, 10, "0x0100 099");
  size_t line = 1 + static_cast<size_t>(std::count(text.begin(), text.begin() + static_cast<long>(at), '\n'));
  expect_parse_error([&] { lft::parse_tables_parallel(t, text, "big.txt", 4, 1); },
                     "big.txt:" + std::to_string(line) + ": ", "egress port 99");

  // The same switch in the first and the last piece: found when installing.
  std::string twice = many_tables(300);
  std::string first_block = twice.substr(0, twice.find("Unicast lids", 1));
  twice += first_block;
  std::vector<lft::ParsedTable> tables = lft::parse_tables_parallel(t, twice, "big.txt", 4, 1);
  size_t second_line = 1 + static_cast<size_t>(std::count(twice.begin(), twice.end(), '\n')) - 302;
  expect_parse_error([&] { lft::install_tables(t, std::move(tables)); },
                     "big.txt:" + std::to_string(second_line) + ": ",
                     "second forwarding table for switch 0x0000000000300000 (the first is at line 1)");
  EXPECT_EQ(t.num_forwarding_tables(), 0);
}

TEST(ForwardingTables, ParallelForRunsEveryTaskAndRethrowsTheLowestFailure) {
  std::atomic<int> runs{0};
  lft::parallel_for(100, 3, [&](size_t) { ++runs; });
  EXPECT_EQ(runs.load(), 100);
  auto failing = [](size_t i) {
    if (i == 17 || i == 60) throw parse_error("f" + std::to_string(i), 1, "bad");
  };
  for (int attempt = 0; attempt < 5; ++attempt)
    expect_parse_error([&] { lft::parallel_for(100, 4, failing); }, "f17:1: ", "bad");
  lft::parallel_for(0, 4, [](size_t) { throw std::logic_error("never called"); });
}

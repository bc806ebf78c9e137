// libFuzzer target: forwarding-table dumps (ibroute, opensm-lfts.dump) applied
// to a small fixed fabric. Besides "no crash, only canopy::Error", it checks
// that parsing in pieces on several threads agrees with parsing in one go.
// (Results are compared as whole vectors, not LID by LID: loops in the target
// would be instrumented too and swamp the fuzzer with features.)
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.h"
#include "topo/loaders/forwarding_tables.h"

using namespace canopy::topo;

namespace {

/** S1 (GUID 0x200000, LID 1) and S2 (0x200001, LID 4), 8 ports each, joined on
    ports 3 and 4, with two hosts each: the fabric of the sample dumps. */
Topology make_fabric() {
  Topology t;
  int s1 = t.add_node(NodeType::Switch, 0x200000, "S1", 8);
  int s2 = t.add_node(NodeType::Switch, 0x200001, "S2", 8);
  t.node(s1).lid = t.node(s1).ports[0].lid = 1;
  t.node(s2).lid = t.node(s2).ports[0].lid = 4;
  const struct {
    const char *name;
    uint64_t guid;
    uint32_t lid;
    int sw, sw_port;
  } hosts[] = {{"H1", 0x100000, 2, s1, 1}, {"H2", 0x100003, 3, s1, 2},
               {"H3", 0x100006, 5, s2, 1}, {"H4", 0x100009, 6, s2, 2}};
  for (const auto &h : hosts) {
    int n = t.add_node(NodeType::Host, h.guid, h.name, 2);
    t.node(n).ports[1].guid = h.guid + 1;
    t.node(n).ports[1].lid = h.lid;
    t.connect(n, 1, h.sw, h.sw_port, ib_rate(4, LinkSpeed::SDR));
  }
  t.connect(s1, 3, s2, 3, ib_rate(4, LinkSpeed::QDR));
  t.connect(s1, 4, s2, 4, ib_rate(4, LinkSpeed::QDR));
  t.finalize();
  return t;
}

struct Outcome {
  bool ok = false;
  std::vector<int> switches;
  std::vector<std::vector<uint8_t>> tables;
  bool operator==(const Outcome &o) const { return ok == o.ok && switches == o.switches && tables == o.tables; }
};

/** What parsing (in one go or in pieces) and installing make of @p text.
    apply_forwarding_tables() is parse_tables_parallel() + install_tables(), and
    takes the one-go path below 8 MiB. */
Outcome parse(const Topology &fabric, std::string_view text, bool in_pieces) {
  Outcome outcome;
  try {
    std::vector<lft::ParsedTable> parsed = in_pieces ? lft::parse_tables_parallel(fabric, text, "fuzz.txt", 3, 64)
                                                     : lft::parse_tables(fabric, text, "fuzz.txt");
    for (const lft::ParsedTable &table : parsed) {
      outcome.switches.push_back(table.switch_node);
      outcome.tables.push_back(table.lid_to_port);
    }
    Topology topo = fabric;
    lft::install_tables(topo, std::move(parsed));
    outcome.ok = true;
  } catch (const canopy::Error &) {
    outcome = Outcome{};
  }
  return outcome;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const Topology fabric = make_fabric();
  std::string_view text(reinterpret_cast<const char *>(data), size);
  if (!(parse(fabric, text, false) == parse(fabric, text, true))) std::abort();  // pieces disagree with the whole
  return 0;
}

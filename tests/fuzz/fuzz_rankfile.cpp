// libFuzzer target: rankfiles as canopy bind reads them (read_rankfile) on
// arbitrary bytes. Every entry must have a host without blanks or '#', a CPU of
// 0 or more, a rank no other entry has, lines in increasing order; and the
// entries written out again as openmpi_rankfile writes them must read back the same.
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>

#include "loader_fuzz_checks.h"
#include "map/outputs.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  canopy_status_t status = canopy::guard([&] {
    std::vector<canopy::map::RankfileEntry> entries = canopy::map::read_rankfile(text, "fuzz.rankfile");
    std::set<int> ranks;
    size_t line = 0;
    std::string again;
    for (const canopy::map::RankfileEntry &e : entries) {
      if (e.host.empty() || e.host.find_first_of(" \t#") != std::string::npos) canopy::fuzz::finding("bad host '" + e.host + "'");
      if (e.cpu < 0 || e.rank < 0) canopy::fuzz::finding("negative rank or CPU");
      if (!ranks.insert(e.rank).second) canopy::fuzz::finding("a rank twice");
      if (e.line <= line) canopy::fuzz::finding("lines out of order");
      line = e.line;
      again += "rank " + std::to_string(e.rank) + "=" + e.host + " slot=" + std::to_string(e.cpu) + "\n";
    }
    std::vector<canopy::map::RankfileEntry> back = canopy::map::read_rankfile(again, "again.rankfile");
    for (size_t i = 0; i < entries.size(); ++i)
      if (back.size() != entries.size() || back[i].rank != entries[i].rank || back[i].host != entries[i].host ||
          back[i].cpu != entries[i].cpu)
        canopy::fuzz::finding("written out, the entries read back differently");
  });
  canopy::fuzz::expect_success_or_parse_error(status, "fuzz.rankfile:");
  return 0;
}

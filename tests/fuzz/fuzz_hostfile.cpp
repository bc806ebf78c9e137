// libFuzzer target: host files (read_hostfile) and the slots per host canopy map
// takes from them (allocation_slots) on arbitrary bytes. Every entry must have a
// name without blanks or '#', lines in increasing order, and a slot count from
// 0 (none given) to 2^20; the slots of each host must be what was asked for, or
// its line's count.
#include <cstddef>
#include <cstdint>
#include <string>

#include "loader_fuzz_checks.h"
#include "map/machine.h"
#include "topo/loaders/loaders.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  canopy_status_t status = canopy::guard([&] {
    std::vector<canopy::topo::HostfileEntry> entries = canopy::topo::read_hostfile(text, "fuzz.hosts");
    size_t line = 0;
    for (const canopy::topo::HostfileEntry &e : entries) {
      if (e.name.empty() || e.name.find_first_of(" \t#") != std::string::npos) canopy::fuzz::finding("bad name '" + e.name + "'");
      if (e.line <= line) canopy::fuzz::finding("lines out of order");
      if (e.slots < 0 || e.slots > (1 << 20)) canopy::fuzz::finding("slot count out of range");
      line = e.line;
    }
    if (canopy::map::allocation_slots(text, "fuzz.hosts", 4) != std::vector<int>(entries.size(), 4))
      canopy::fuzz::finding("asked slots not kept");
    std::vector<int> slots = canopy::map::allocation_slots(text, "fuzz.hosts", 0);
    for (size_t i = 0; i < entries.size(); ++i)
      if (slots.size() != entries.size() || slots[i] != entries[i].slots) canopy::fuzz::finding("slots differ from a line's count");
  });
  canopy::fuzz::expect_success_or_parse_error(status, "fuzz.hosts:");
  return 0;
}

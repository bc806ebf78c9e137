// Host files: one host per line in allocation order, as MPI launchers take
// them ("node001", "node001 slots=16", "node001:16"); '#' starts a comment.
#include "common/error.h"
#include "common/text.h"
#include "topo/loaders/loaders.h"

namespace canopy::topo {

namespace {

// A slot count as host files give it: a positive integer, at most 2^20 (canopy map's --ppn range).
int slot_count(std::string_view text, const std::string &file, size_t line) {
  uint64_t n = 0;
  if (!parse_uint(text, n, 10) || n < 1 || n > (1u << 20))
    throw parse_error(file, line, "slot count '" + printable(text) + "' is not a whole number from 1 to 1048576");
  return static_cast<int>(n);
}

}  // namespace

std::vector<HostfileEntry> read_hostfile(std::string_view text, const std::string &file) {
  std::vector<HostfileEntry> entries;
  LineCursor cursor(text);
  std::string_view line;
  while (cursor.next_content(line)) {
    std::vector<std::string_view> fields = split_fields(line);
    HostfileEntry entry{std::string(fields[0]), cursor.number(), 0};
    // "HOST:N" gives slots; a ':' followed by anything else is part of the name.
    size_t colon = entry.name.rfind(':');
    if (colon != std::string::npos && colon + 1 < entry.name.size() &&
        entry.name.find_first_not_of("0123456789", colon + 1) == std::string::npos) {
      entry.slots = slot_count(std::string_view(entry.name).substr(colon + 1), file, entry.line);
      entry.name.resize(colon);
    }
    if (entry.name.empty()) throw parse_error(file, entry.line, "no host name before ':'");
    // Further fields are the launchers' KEY=VALUE attributes; only slots= matters here (max_slots= and the like
    // are ignored). A bare word is a second host on the line, which would be lost.
    for (size_t i = 1; i < fields.size(); ++i) {
      if (starts_with(fields[i], "slots=")) {
        if (entry.slots > 0)  // the last would win, silently
          throw parse_error(file, entry.line, "host '" + entry.name + "' gives its slot count twice");
        entry.slots = slot_count(fields[i].substr(6), file, entry.line);
      }
      if (fields[i].find('=') == std::string_view::npos)
        throw parse_error(file, entry.line, "'" + printable(fields[i]) + "' after host '" + entry.name +
                                                "': one host per line (attributes are KEY=VALUE, e.g. slots=16)");
    }
    entries.push_back(std::move(entry));
  }
  if (entries.empty()) throw Error(CANOPY_ERR_PARSE, file + ": no hosts listed");
  return entries;
}

std::vector<int> parse_hostfile(const Topology &topo, std::string_view text, const std::string &file) {
  std::vector<int> hosts;
  for (const HostfileEntry &entry : read_hostfile(text, file)) {
    int host = topo.find_host(entry.name);
    if (host < 0) throw parse_error(file, entry.line, "host '" + entry.name + "' is not in " + topo.source());
    hosts.push_back(host);
  }
  return hosts;
}

}  // namespace canopy::topo

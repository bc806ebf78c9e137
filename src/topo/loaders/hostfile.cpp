// Host files: one host per line in allocation order, as MPI launchers take
// them ("node001", "node001 slots=16", "node001:16"); '#' starts a comment.
#include "common/error.h"
#include "common/text.h"
#include "topo/loaders/loaders.h"

namespace canopy::topo {

std::vector<HostfileEntry> read_hostfile(std::string_view text, const std::string &file) {
  std::vector<HostfileEntry> entries;
  LineCursor cursor(text);
  std::string_view line;
  while (cursor.next(line)) {
    line = trim(line.substr(0, line.find('#')));
    if (line.empty()) continue;
    std::string_view name = split_fields(line)[0];
    // "HOST:N" gives slots; a ':' followed by anything else is part of the name.
    size_t colon = name.rfind(':');
    if (colon != std::string_view::npos && colon + 1 < name.size() &&
        name.find_first_not_of("0123456789", colon + 1) == std::string_view::npos)
      name = name.substr(0, colon);
    if (name.empty()) throw parse_error(file, cursor.number(), "no host name before ':'");
    entries.push_back({std::string(name), cursor.number()});
  }
  if (entries.empty()) throw parse_error(file, cursor.number(), "no hosts listed");
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

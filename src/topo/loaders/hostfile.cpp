// Host files: one host per line in allocation order, as MPI launchers take
// them ("node001", "node001 slots=16", "node001:16"); '#' starts a comment.
#include "common/error.h"
#include "common/text.h"
#include "topo/loaders/loaders.h"

namespace canopy::topo {

std::vector<int> parse_hostfile(const Topology &topo, std::string_view text, const std::string &file) {
  std::vector<int> hosts;
  LineCursor cursor(text);
  std::string_view line;
  while (cursor.next(line)) {
    line = trim(line.substr(0, line.find('#')));
    if (line.empty()) continue;
    std::string_view name = split_fields(line)[0];
    name = name.substr(0, name.find(':'));
    int host = topo.find_host(name);
    if (host < 0) throw parse_error(file, cursor.number(), "host '" + std::string(name) + "' is not in " + topo.source());
    hosts.push_back(host);
  }
  if (hosts.empty()) throw parse_error(file, cursor.number(), "no hosts listed");
  return hosts;
}

}  // namespace canopy::topo

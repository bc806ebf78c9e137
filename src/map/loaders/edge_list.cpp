// Plain edge lists: "SRC DST BYTES" per line (0-based processes), '#' comments,
// an optional first statement "processes N".
#include <algorithm>
#include <charconv>
#include <string>
#include <vector>

#include "common/error.h"
#include "common/text.h"
#include "map/loaders/graph_loaders.h"

namespace canopy::map {
namespace {

constexpr uint64_t kMaxProcesses = 1u << 26;

struct Volume {
  int src, dst;
  double bytes;
};

}  // namespace

CommGraph load_edge_list(std::string_view text, const std::string &file) {
  LineCursor cursor(text);
  std::string_view line;
  std::vector<Volume> volumes;
  uint64_t declared = 0, highest = 0;
  size_t declared_line = 0;
  while (cursor.next_content(line)) {
    std::vector<std::string_view> f = split_fields(line);
    if (f[0] == "processes") {
      if (declared_line || !volumes.empty()) throw parse_error(file, cursor.number(), "'processes' must come once, before the edges");
      if (f.size() != 2 || !parse_uint(f[1], declared, 10) || declared == 0 || declared > kMaxProcesses)
        throw parse_error(file, cursor.number(), "'processes N' needs a count from 1 to " + std::to_string(kMaxProcesses));
      declared_line = cursor.number();
      continue;
    }
    uint64_t src = 0, dst = 0;
    double bytes = 0;
    if (f.size() != 3) throw parse_error(file, cursor.number(), "expected 'SRC DST BYTES'");
    if (!parse_uint(f[0], src, 10) || !parse_uint(f[1], dst, 10) || src >= kMaxProcesses || dst >= kMaxProcesses)
      throw parse_error(file, cursor.number(), "processes must be integers from 0 to " + std::to_string(kMaxProcesses - 1));
    if (!parse_double(f[2], bytes) || !(bytes >= 0) || bytes > CommGraph::kMaxTotalBytes)
      throw parse_error(file, cursor.number(), "bytes '" + printable(f[2]) + "' is not a number from 0 to 1e300");
    if (declared && (src >= declared || dst >= declared))
      throw parse_error(file, cursor.number(), "process " + std::to_string(src >= declared ? src : dst) +
                                                   " is beyond 'processes " + std::to_string(declared) + "' (line " +
                                                   std::to_string(declared_line) + ")");
    highest = std::max({highest, src, dst});
    volumes.push_back({static_cast<int>(src), static_cast<int>(dst), bytes});
  }
  if (!declared && volumes.empty()) throw parse_error(file, cursor.number() ? cursor.number() : 1, "no edges and no 'processes N'");
  CommGraphBuilder builder(static_cast<int>(declared ? declared : highest + 1));
  for (const Volume &v : volumes) builder.add(v.src, v.dst, v.bytes);
  return builder.build(file);
}

std::string edge_list_text(const CommGraph &g) {
  std::string out = "processes " + std::to_string(g.num_vertices()) + "\n";
  char half[32];
  for (int v = 0; v < g.num_vertices(); ++v)
    for (int64_t i = g.row_begin(v); i < g.row_end(v); ++i) {
      // Each edge is stored at both ends: row v writes the direction v -> neighbour.
      auto [end, status] = std::to_chars(half, half + sizeof half, g.weight(i) / 2);  // shortest exact form
      out += std::to_string(v) + " " + std::to_string(g.neighbor(i)) + " " + std::string(half, end) + "\n";
    }
  return out;
}

}  // namespace canopy::map

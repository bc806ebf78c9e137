// METIS graph files (METIS 5 manual, section 4.1.1): a header "n m [fmt [ncon]]"
// then one line per vertex: [size] [ncon weights] then neighbours, each followed
// by its edge weight when fmt's last digit is 1. '%' lines are comments; an empty
// line is a vertex without neighbours.
#include <algorithm>
#include <string>
#include <utility>

#include "common/error.h"
#include "common/text.h"
#include "map/loaders/graph_loaders.h"

namespace canopy::map {
namespace {

constexpr uint64_t kMaxVertices = 1u << 26;  // far beyond any job, small enough to allocate

struct Header {
  uint64_t n = 0, m = 0;
  bool sizes = false, vertex_weights = false, edge_weights = false;
  uint64_t ncon = 1;
};

bool next_content_line(LineCursor &cursor, std::string_view &line) {
  while (cursor.next(line))
    if (line.empty() || line[0] != '%') return true;
  return false;
}

Header parse_header(std::string_view line, const std::string &file, size_t at) {
  std::vector<std::string_view> f = split_fields(line);
  Header h;
  if (f.size() < 2 || f.size() > 4) throw parse_error(file, at, "header must be 'n m [fmt [ncon]]'");
  if (!parse_uint(f[0], h.n, 10) || !parse_uint(f[1], h.m, 10)) throw parse_error(file, at, "header: n and m must be integers");
  if (h.n == 0) throw parse_error(file, at, "the graph has no vertices");
  if (h.n > kMaxVertices) throw parse_error(file, at, "too many vertices (at most " + std::to_string(kMaxVertices) + ")");
  // A simple graph has at most n(n-1)/2 edges; beyond that 2m could even wrap around.
  if (h.m > h.n * (h.n - 1) / 2)
    throw parse_error(file, at, "the header announces " + std::to_string(h.m) + " edges, more than a graph of " +
                                    std::to_string(h.n) + " vertices can have");
  if (f.size() >= 3) {
    std::string_view fmt = f[2];
    if (fmt.size() > 3 || fmt.find_first_not_of("01") != std::string_view::npos)
      throw parse_error(file, at, "fmt must be up to three 0/1 digits (e.g. 1, 11, 011), not '" + printable(fmt) + "'");
    std::string padded = std::string(3 - fmt.size(), '0') + std::string(fmt);
    h.sizes = padded[0] == '1';
    h.vertex_weights = padded[1] == '1';
    h.edge_weights = padded[2] == '1';
  }
  if (f.size() == 4 && (!parse_uint(f[3], h.ncon, 10) || h.ncon == 0 || h.ncon > 1024))
    throw parse_error(file, at, "ncon must be an integer from 1 to 1024");
  return h;
}

}  // namespace

CommGraph load_metis_graph(std::string_view text, const std::string &file) {
  LineCursor cursor(text);
  std::string_view line;
  if (!next_content_line(cursor, line)) throw parse_error(file, cursor.number() ? cursor.number() : 1, "empty file: no header");
  size_t header_line = cursor.number();
  Header h = parse_header(line, file, header_line);
  size_t skip = (h.sizes ? 1 : 0) + (h.vertex_weights ? h.ncon : 0);
  CommGraphBuilder builder(static_cast<int>(h.n));
  std::vector<std::pair<int, int>> listed;  // (vertex, neighbour it lists), 0-based
  std::vector<size_t> line_of(h.n);
  for (uint64_t v = 0; v < h.n; ++v) {
    if (!next_content_line(cursor, line))
      throw parse_error(file, cursor.number(), "the header announces " + std::to_string(h.n) + " vertices, the file ends after " +
                                                   std::to_string(v));
    line_of[v] = cursor.number();
    std::vector<std::string_view> f = split_fields(line);
    size_t step = h.edge_weights ? 2 : 1;
    if (f.size() < skip || (f.size() - skip) % step)
      throw parse_error(file, cursor.number(), h.edge_weights ? "neighbours and edge weights must come in pairs"
                                                              : "missing vertex size or weights");
    for (size_t i = skip; i < f.size(); i += step) {
      uint64_t u = 0, bytes = 1;
      if (!parse_uint(f[i], u, 10) || u == 0 || u > h.n)
        throw parse_error(file, cursor.number(), "neighbour '" + printable(f[i]) + "' is not a vertex (1.." + std::to_string(h.n) + ")");
      if (h.edge_weights && !parse_uint(f[i + 1], bytes, 10))
        throw parse_error(file, cursor.number(), "edge weight '" + printable(f[i + 1]) +
                                                     "' is not a whole number from 0 to 18446744073709551615");
      if (u - 1 == v) throw parse_error(file, cursor.number(), "vertex " + std::to_string(v + 1) + " lists itself as a neighbour");
      // Both ends list each edge: count each direction at half, so an edge weighs what the file says.
      builder.add(static_cast<int>(v), static_cast<int>(u - 1), static_cast<double>(bytes) / 2);
      listed.emplace_back(static_cast<int>(v), static_cast<int>(u - 1));
    }
  }
  while (next_content_line(cursor, line))
    if (!trim(line).empty()) throw parse_error(file, cursor.number(), "more vertex lines than the " + std::to_string(h.n) + " the header announces");
  if (listed.size() != 2 * h.m)
    throw parse_error(file, header_line, "the header announces " + std::to_string(h.m) + " edges, the vertex lines list " +
                                             std::to_string(listed.size()) + " neighbour entries (2 per edge expected)");
  // Every listing has its mirror: the listings sorted equal their mirrors sorted.
  std::vector<std::pair<int, int>> mirrored(listed.size());
  std::transform(listed.begin(), listed.end(), mirrored.begin(), [](auto e) { return std::make_pair(e.second, e.first); });
  std::sort(listed.begin(), listed.end());
  std::sort(mirrored.begin(), mirrored.end());
  auto [own, mirror] = std::mismatch(listed.begin(), listed.end(), mirrored.begin());
  if (own != listed.end()) {
    // The smaller pair is a listing without its mirror: (v, u) when v lists u unanswered, else (u, v) mirrored.
    auto [v, u] = *own < *mirror ? *own : std::make_pair(mirror->second, mirror->first);
    throw parse_error(file, line_of[static_cast<size_t>(v)],
                      "vertex " + std::to_string(v + 1) + " lists " + std::to_string(u + 1) + " as a neighbour, but vertex " +
                          std::to_string(u + 1) + " does not list " + std::to_string(v + 1) +
                          " as often (METIS lists every edge at both ends)");
  }
  return builder.build(file);
}

}  // namespace canopy::map

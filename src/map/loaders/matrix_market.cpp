// MatrixMarket coordinate files ("%%MatrixMarket matrix coordinate FIELD SYMMETRY",
// then "M N NNZ", then NNZ lines "I J [VALUE]" with 1-based indexes), read as the
// row graph of a square matrix, and the halo-exchange volumes between row blocks.
#include <string>
#include <vector>

#include "common/error.h"
#include "common/text.h"
#include "map/loaders/graph_loaders.h"

namespace canopy::map {
namespace {

constexpr uint64_t kMaxRows = 1u << 26;
constexpr uint64_t kMaxEntries = 1ull << 31;
// An entry's fields by the values its banner's field gives it (check_banner).
constexpr const char *kEntry[] = {"ROW COLUMN", "ROW COLUMN VALUE", "ROW COLUMN REAL IMAGINARY"};

std::string lower(std::string_view s) {
  std::string out(s);
  for (char &c : out) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return out;
}

// Only the banner's structure matters here: coordinate storage, any field. Returns
// the values an entry carries: 0 (pattern), 1 (real, integer) or 2 (complex).
size_t check_banner(std::string_view line, const std::string &file) {
  std::vector<std::string_view> f = split_fields(line);
  if (f.size() != 5 || lower(f[0]) != "%%matrixmarket" || lower(f[1]) != "matrix")
    throw parse_error(file, 1, "expected '%%MatrixMarket matrix coordinate FIELD SYMMETRY'");
  if (lower(f[2]) != "coordinate")
    throw parse_error(file, 1, "only coordinate (sparse) matrices are supported, not '" + printable(f[2]) + "'");
  std::string field = lower(f[3]), symmetry = lower(f[4]);
  if (field != "real" && field != "integer" && field != "pattern" && field != "complex")
    throw parse_error(file, 1, "unknown field '" + printable(f[3]) + "'");
  if (symmetry != "general" && symmetry != "symmetric" && symmetry != "skew-symmetric" && symmetry != "hermitian")
    throw parse_error(file, 1, "unknown symmetry '" + printable(f[4]) + "'");
  return field == "pattern" ? 0 : field == "complex" ? 2 : 1;
}

}  // namespace

CommGraph load_matrix_market(std::string_view text, const std::string &file) {
  LineCursor cursor(text);
  std::string_view line;
  if (!cursor.next(line)) throw parse_error(file, 1, "empty file");
  size_t values = check_banner(line, file);
  while (cursor.next(line) && (trim(line).empty() || line[0] == '%')) {
  }
  std::vector<std::string_view> f = split_fields(line);
  uint64_t rows = 0, cols = 0, nnz = 0;
  if (f.size() != 3 || !parse_uint(f[0], rows, 10) || !parse_uint(f[1], cols, 10) || !parse_uint(f[2], nnz, 10))
    throw parse_error(file, cursor.number(), "expected the size line 'ROWS COLUMNS ENTRIES'");
  if (rows != cols) throw parse_error(file, cursor.number(), "the matrix must be square to give a row graph");
  if (rows == 0 || rows > kMaxRows) throw parse_error(file, cursor.number(), "rows must be from 1 to " + std::to_string(kMaxRows));
  if (nnz > kMaxEntries) throw parse_error(file, cursor.number(), "too many entries");
  CommGraphBuilder builder(static_cast<int>(rows));
  uint64_t seen = 0;
  while (cursor.next(line)) {
    if (trim(line).empty() || line[0] == '%') continue;
    f = split_fields(line);
    uint64_t i = 0, j = 0;
    double value = 0;
    bool numbers = f.size() == 2 + values && parse_uint(f[0], i, 10) && parse_uint(f[1], j, 10);
    for (size_t k = 2; numbers && k < f.size(); ++k) numbers = parse_double(f[k], value);
    if (!numbers) throw parse_error(file, cursor.number(), std::string("expected '") + kEntry[values] + "' (the banner's field)");
    if (i == 0 || j == 0 || i > rows || j > rows)
      throw parse_error(file, cursor.number(), "index out of range (1.." + std::to_string(rows) + ")");
    if (++seen > nnz) throw parse_error(file, cursor.number(), "more entries than the " + std::to_string(nnz) + " announced");
    builder.add(static_cast<int>(i - 1), static_cast<int>(j - 1), 1);
  }
  if (seen < nnz)
    throw parse_error(file, cursor.number(), "the size line announces " + std::to_string(nnz) + " entries, the file has " +
                                                 std::to_string(seen));
  return builder.build(file);
}

CommGraph halo_exchange_graph(const CommGraph &matrix, const std::vector<int> &part, int num_parts) {
  // Row j's owner sends x_j once to every other part holding a row that references j.
  CommGraphBuilder builder(num_parts);
  std::vector<int> last_sent(static_cast<size_t>(num_parts), -1);  // by part: the last j sent there
  for (int j = 0; j < matrix.num_vertices(); ++j) {
    int owner = part[static_cast<size_t>(j)];
    for (int64_t e = matrix.row_begin(j); e < matrix.row_end(j); ++e) {
      int to = part[static_cast<size_t>(matrix.neighbor(e))];
      if (to == owner || last_sent[static_cast<size_t>(to)] == j) continue;
      last_sent[static_cast<size_t>(to)] = j;
      builder.add(owner, to, 8);
    }
  }
  return builder.build();
}

}  // namespace canopy::map

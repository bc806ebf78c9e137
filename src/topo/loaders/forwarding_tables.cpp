// Linear forwarding tables from ibroute (one switch, or many concatenated) and
// from OpenSM's opensm-lfts.dump. Both print the same blocks:
//
//   Unicast lids [0x0-0x6] of switch Lid 1 guid 0x0000000000200000 (S1):
//     Lid  Out   Destination                                   (ibroute only)
//          Port     Info
//   0x0002 001 : (Channel Adapter portguid 0x0000000000100001: 'H1')   ibroute
//   0x0002 001 # Channel Adapter portguid 0x0000000000100001: 'H1'     OpenSM
//   6 valid lids dumped                            ("6 lids dumped" from OpenSM)
//
// Only the LID and the port of an entry matter; what follows is free text
// (empty with ibroute -n, "(unknown node and type)", "(path #2 out of 4...)").
// Entries are millions of lines on a large fabric, so they are scanned by hand:
// memchr to the next line, an inline hex loop, no allocation. Headers and
// footers are rare and use the ordinary text helpers.
#include "topo/loaders/forwarding_tables.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <exception>
#include <system_error>
#include <thread>

#include "common/error.h"
#include "common/text.h"
#include "topo/loaders/loaders.h"

namespace canopy::topo {
namespace lft {
namespace {

constexpr uint64_t kMaxUnicastLid = 0xBFFF;  // 0xC000 and up are multicast
constexpr uint32_t kUnroutedPort = 255;      // what ibroute -a prints for an unrouted LID
// Below this a text is parsed on one thread: starting threads would cost more.
constexpr size_t kParallelPieceBytes = 8u << 20;

inline bool is_blank(char c) { return c == ' ' || c == '\t'; }
inline bool ends_number(char c) { return is_blank(c) || c == '\r' || c == '\n'; }

inline const char *find_newline(const char *p, const char *end) {
  const void *newline = std::memchr(p, '\n', static_cast<size_t>(end - p));
  return newline ? static_cast<const char *>(newline) : end;
}

/** The start of the line after the one @p p is in (or @p end). An entry with
    nothing after its port (ibroute -n) needs no memchr. */
inline const char *next_line(const char *p, const char *end) {
  if (p < end && *p == '\n') return p + 1;
  const char *newline = find_newline(p, end);
  return newline == end ? end : newline + 1;
}

std::string lid_string(uint64_t lid) {
  char buffer[24];
  std::snprintf(buffer, sizeof buffer, "0x%04llx", static_cast<unsigned long long>(lid));
  return buffer;
}

Error second_table_error(const ParsedTable &again, const ParsedTable &first, uint64_t guid) {
  std::string where = first.file == again.file ? "line " + std::to_string(first.line)
                                               : first.file + ":" + std::to_string(first.line);
  return parse_error(again.file, again.line,
                     "second forwarding table for switch " + guid_string(guid) + " (the first is at " +
                         where + ")");
}

/** "Unicast lids [0x0-0x6] of switch Lid 1 guid 0x...0200000 (S1):". ibroute may name
    the switch by a DR path instead of "Lid 1", and OpenSM writes "[0-0x6]" and
    "('S1')", so only the range and the GUID are read. */
bool parse_header(std::string_view header, uint64_t &lo, uint64_t &hi, uint64_t &guid) {
  size_t open = header.find('[');
  size_t close = header.find(']');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) return false;
  std::string_view range = header.substr(open + 1, close - open - 1);
  size_t dash = range.find('-');
  if (dash == std::string_view::npos || !parse_uint(trim(range.substr(0, dash)), lo) ||
      !parse_uint(trim(range.substr(dash + 1)), hi) || lo > hi)
    return false;
  constexpr std::string_view kGuid = " guid 0x";
  size_t at = header.find(kGuid, close);
  if (at == std::string_view::npos) return false;
  std::string_view digits = header.substr(at + kGuid.size());
  size_t n = 0;
  while (n < digits.size() && hex_digit(digits[n]) >= 0) ++n;
  return parse_hex(digits.substr(0, n), guid);
}

/** One pass over a text holding whole tables; see the file comment for the format. */
class Scanner {
 public:
  Scanner(const Topology &topo, std::string_view text, const std::string &file, size_t first_line)
      : topo_(topo), text_(text), file_(file), first_line_(first_line), line_(first_line - 1) {}

  std::vector<ParsedTable> run() {
    const char *p = text_.data();
    const char *const end = p + text_.size();
    while (p < end) {
      ++line_;
      // Entries are nearly every line: recognise them before anything else.
      if (state_ == State::InTable && end - p > 2 && p[0] == '0' && p[1] == 'x') {
        p = entry(p + 2, end);
      } else {
        const char *line_end = find_newline(p, end);
        other_line(std::string_view(p, static_cast<size_t>(line_end - p)));
        p = line_end;
      }
      p = next_line(p, end);
    }
    if (state_ == State::InTable) fail_truncated();
    return std::move(tables_);
  }

  /** How many lines run() went through. */
  size_t lines() const { return line_ - (first_line_ - 1); }

 private:
  enum class State { Between, InTable, InMulticast };

  [[noreturn]] void fail(const std::string &what) const { throw parse_error(file_, line_, what); }

  // Reported at the table's header, so the message does not depend on where
  // the text was cut for parallel parsing.
  [[noreturn]] void fail_truncated() {
    line_ = tables_.back().line;
    fail("the forwarding table of switch " + guid_string(guid_) +
         " ends without its 'lids dumped' line (truncated dump?)");
  }

  void other_line(std::string_view line) {
    std::string_view t = trim(line);
    if (t.empty()) return;
    bool unicast = starts_with(t, "Unicast lids");
    if (unicast || starts_with(t, "Multicast mlids")) {
      if (state_ == State::InTable) fail_truncated();
      if (unicast) return begin_table(t);
      state_ = State::InMulticast;  // ibroute -M output mixed in: not ours to read
      return;
    }
    if (state_ == State::InMulticast) return;
    if (state_ == State::Between)
      fail("expected a 'Unicast lids [...] of switch ... guid 0x...' header, found '" + printable(t) + "'");
    if (starts_with(t, "0x")) {
      entry(t.data() + 2, t.data() + t.size());  // indented, or a bare "0x"
      return;
    }
    if (starts_with(t, "Lid") || starts_with(t, "Port")) return;  // ibroute's column headings
    if (t[0] >= '0' && t[0] <= '9') return end_table(t);
    fail("unexpected line in the forwarding table of switch " + guid_string(guid_) + ": '" + printable(t) + "'");
  }

  void begin_table(std::string_view header) {
    uint64_t lo = 0, hi = 0, guid = 0;
    if (!parse_header(header, lo, hi, guid))
      fail("malformed table header '" + printable(header) + "'" +
           " (expected 'Unicast lids [LO-HI] of switch ... guid 0x...')");
    int node = topo_.find_guid(guid);
    if (node < 0) fail("switch " + guid_string(guid) + " is not in the fabric");
    const Node &sw = topo_.node(node);
    if (!sw.is_switch()) fail(guid_string(guid) + " is '" + sw.name + "', not a switch");
    if (table_of_node_.empty()) table_of_node_.assign(topo_.nodes().size(), -1);
    ParsedTable table{node, file_, line_, {}};
    int &index = table_of_node_[static_cast<size_t>(node)];
    if (index >= 0) throw second_table_error(table, tables_[static_cast<size_t>(index)], sw.guid);
    index = static_cast<int>(tables_.size());
    table.lid_to_port.assign(std::min(hi, kMaxUnicastLid) + 1, Topology::kNoPort);
    tables_.push_back(std::move(table));
    // Moving a vector keeps its buffer, so this stays valid as tables_ grows.
    slots_ = tables_.back().lid_to_port.data();
    lo_ = lo;
    hi_ = hi;
    top_ = std::min(hi, kMaxUnicastLid);
    num_ports_ = static_cast<uint32_t>(sw.num_ports());
    guid_ = sw.guid;
    state_ = State::InTable;
  }

  void end_table(std::string_view footer) {
    std::vector<std::string_view> f = split_fields(footer);
    uint64_t count = 0;
    bool ok = (f.size() == 3 || (f.size() == 4 && f[1] == "valid")) && parse_uint(f[0], count, 10) &&
              f[f.size() - 2] == "lids" && f.back() == "dumped";
    if (!ok)
      fail("expected '<N> lids dumped' to end the table of switch " + guid_string(guid_) + ", found '" +
           printable(footer) + "'");
    // N is not compared with the entries: ibroute counts the lines it printed,
    // OpenSM prints its top LID.
    state_ = State::Between;
  }

  /** The hot path: "0x0002 001 <anything>", called with @p p just after the "0x";
      returns where the port ends (the rest of the line is free text). */
  const char *entry(const char *p, const char *end) {
    uint32_t lid = 0, port = 0;
    if (end - p >= 8 && p[4] == ' ') {
      // ibroute and OpenSM both print "%04x %03u": decode that shape directly.
      int h0 = hex_digit(p[0]), h1 = hex_digit(p[1]), h2 = hex_digit(p[2]), h3 = hex_digit(p[3]);
      unsigned d0 = static_cast<unsigned char>(p[5]) - '0', d1 = static_cast<unsigned char>(p[6]) - '0',
               d2 = static_cast<unsigned char>(p[7]) - '0';
      if ((h0 | h1 | h2 | h3) >= 0 && d0 < 10 && d1 < 10 && d2 < 10 && (end - p == 8 || ends_number(p[8]))) {
        lid = static_cast<uint32_t>(h0 << 12 | h1 << 8 | h2 << 4 | h3);
        port = d0 * 100 + d1 * 10 + d2;
        store(lid, port);
        return p + 8;
      }
    }
    const char *const lid_digits = p;
    while (p < end && p - lid_digits < 8 && hex_digit(*p) >= 0)
      lid = lid << 4 | static_cast<uint32_t>(hex_digit(*p++));
    if (p == lid_digits || p == end || !is_blank(*p)) fail_entry(lid_digits, end);
    while (p < end && is_blank(*p)) ++p;
    const char *const port_digits = p;
    while (p < end && p - port_digits < 3 && *p >= '0' && *p <= '9')
      port = port * 10 + static_cast<uint32_t>(*p++ - '0');
    if (p == port_digits || (p < end && !ends_number(*p))) fail_entry(lid_digits, end);
    store(lid, port);
    return p;
  }

  void store(uint32_t lid, uint32_t port) {
    if (lid >= lo_ && lid <= top_ && port <= num_ports_ && slots_[lid] == Topology::kNoPort)
      slots_[lid] = static_cast<uint8_t>(port);
    else
      unusual_entry(lid, port);
  }

  [[noreturn]] void fail_entry(const char *lid_digits, const char *end) {
    const char *line = lid_digits - 2;
    fail("malformed forwarding-table entry '" +
         printable(std::string_view(line, static_cast<size_t>(find_newline(line, end) - line))) + "' (expected '0xLID PORT ...')");
  }

  // Kept out of line so that entry() stays small: an unrouted LID, or an error.
  [[gnu::noinline]] void unusual_entry(uint32_t lid, uint32_t port) {
    if (lid > kMaxUnicastLid) fail("LID " + lid_string(lid) + " is above the unicast LID range (0xbfff)");
    if (lid < lo_ || lid > hi_)
      fail("LID " + lid_string(lid) + " is outside the range [" + lid_string(lo_) + "-" + lid_string(hi_) +
           "] of its table header");
    if (port == kUnroutedPort) return;
    if (port > num_ports_)
      fail("egress port " + std::to_string(port) + " for LID " + lid_string(lid) + " does not exist on switch " +
           guid_string(guid_) + " (it has " + std::to_string(num_ports_) + " ports)");
    fail("LID " + lid_string(lid) + " appears twice in the table of switch " + guid_string(guid_));
  }

  const Topology &topo_;
  std::string_view text_;
  const std::string &file_;
  size_t first_line_;
  size_t line_;
  State state_ = State::Between;
  std::vector<ParsedTable> tables_;
  std::vector<int> table_of_node_;  // index into tables_ per node, -1: none yet
  // The table being filled (tables_.back()) and its switch.
  uint8_t *slots_ = nullptr;
  uint64_t lo_ = 0, hi_ = 0;
  uint64_t top_ = 0;  // min(hi_, kMaxUnicastLid): the last slot
  uint32_t num_ports_ = 0;
  uint64_t guid_ = 0;
};

/** Cuts @p text into up to @p max_pieces pieces of at least @p min_piece bytes, each
    cut just before a "Unicast lids" header so that every piece parses on its own. */
std::vector<std::string_view> split_at_headers(std::string_view text, unsigned max_pieces, size_t min_piece) {
  std::vector<std::string_view> pieces;
  size_t want = std::max(min_piece, text.size() / std::max(max_pieces, 1u) + 1);
  size_t start = 0;
  while (pieces.size() + 1 < max_pieces && text.size() - start > want) {
    size_t cut = text.find("\nUnicast lids", start + want);
    if (cut == std::string_view::npos) break;
    pieces.push_back(text.substr(start, cut + 1 - start));
    start = cut + 1;
  }
  pieces.push_back(text.substr(start));
  return pieces;
}

// Checked on the whole text, not per piece: a piece may hold only ibroute -M output.
void require_tables(const std::vector<ParsedTable> &tables, const std::string &file, size_t first_line) {
  if (tables.empty()) throw parse_error(file, first_line, "no unicast forwarding table found (empty file?)");
}

}  // namespace

std::vector<ParsedTable> parse_tables(const Topology &topo, std::string_view text, const std::string &file,
                                      size_t first_line) {
  std::vector<ParsedTable> tables = Scanner(topo, text, file, first_line).run();
  require_tables(tables, file, first_line);
  return tables;
}

std::vector<ParsedTable> parse_tables_parallel(const Topology &topo, std::string_view text,
                                               const std::string &file, unsigned max_threads,
                                               size_t min_piece_bytes) {
  std::vector<std::string_view> pieces = split_at_headers(text, max_threads, min_piece_bytes);
  if (pieces.size() < 2) return parse_tables(topo, text, file);
  // Where a piece starts is only known once the pieces before it are scanned, so
  // each is numbered from 1 and shifted afterwards; counting lines first would
  // be one more serial pass over the whole text.
  struct Piece {
    std::vector<ParsedTable> tables;
    size_t lines = 0;  // 0 until parsed
  };
  std::vector<Piece> parsed(pieces.size());
  try {
    parallel_for(pieces.size(), max_threads, [&](size_t i) {
      Scanner scanner(topo, pieces[i], file, 1);
      parsed[i].tables = scanner.run();
      parsed[i].lines = scanner.lines();
    });
  } catch (const Error &) {
    // Rare: parse the first bad piece again with its true line numbers, for the message.
    size_t first_line = 1, bad = 0;
    for (; bad < pieces.size() && parsed[bad].lines; ++bad) first_line += parsed[bad].lines;
    if (bad < pieces.size()) Scanner(topo, pieces[bad], file, first_line).run();
    throw;
  }
  std::vector<ParsedTable> tables;
  size_t offset = 0;
  for (Piece &piece : parsed) {
    for (ParsedTable &table : piece.tables) {
      table.line += offset;
      tables.push_back(std::move(table));
    }
    offset += piece.lines;
  }
  require_tables(tables, file, 1);
  return tables;
}

void install_tables(Topology &topo, std::vector<ParsedTable> tables) {
  std::vector<const ParsedTable *> first(topo.nodes().size(), nullptr);
  for (const ParsedTable &table : tables) {
    const ParsedTable *&seen = first[static_cast<size_t>(table.switch_node)];
    if (seen) throw second_table_error(table, *seen, topo.node(table.switch_node).guid);
    seen = &table;
  }
  for (ParsedTable &table : tables) topo.set_forwarding_table(table.switch_node, std::move(table.lid_to_port));
}

unsigned parse_threads() { return std::clamp(std::thread::hardware_concurrency(), 1u, 8u); }

void parallel_for(size_t count, unsigned max_threads, const std::function<void(size_t)> &task) {
  std::vector<std::exception_ptr> errors(count);
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i = next++; i < count; i = next++) {
      try {
        task(i);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    }
  };
  std::vector<std::thread> threads;
  size_t helpers = std::min<size_t>(std::max(max_threads, 1u), count);
  threads.reserve(helpers);
  for (size_t t = 1; t < helpers; ++t) {
    try {
      threads.emplace_back(worker);
    } catch (const std::system_error &) {
      break;  // no more threads to be had: the ones running (and this one) finish the work
    }
  }
  worker();
  for (std::thread &thread : threads) thread.join();
  for (const std::exception_ptr &error : errors)
    if (error) std::rethrow_exception(error);
}

}  // namespace lft

void apply_forwarding_tables(Topology &topo, std::string_view text, const std::string &file) {
  lft::install_tables(topo, lft::parse_tables_parallel(topo, text, file, lft::parse_threads(),
                                                       lft::kParallelPieceBytes));
}

}  // namespace canopy::topo

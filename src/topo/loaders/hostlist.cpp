// Slurm hostlist expressions: "login1,node[001-128,200]", "rack[1-2]n[01-16]".
//
// Semantics follow Slurm's hostlist_create():
//  - entries are separated by commas, spaces or tabs outside brackets;
//  - a bracket holds comma-separated numbers and ascending ranges "lo-hi";
//  - each number is zero-padded to the width of the range's lower bound as
//    written ("n[08-10]" -> n08 n09 n10, "n[8-10]" -> n8 n9 n10);
//  - several brackets in one entry give the cartesian product in Slurm's
//    order: Slurm peels the last bracket off as the innermost loop, then
//    expands the remaining brackets from right to left, so with brackets
//    B1..Bn the loops run Bn-1 (outermost), ..., B1, Bn (innermost). For two
//    brackets that is the natural order (a[1-2]b[3-4] -> a1b3 a1b4 a2b3 a2b4).
// Unlike Slurm, text after the last bracket ("n[1-2]-ib") is accepted as a
// literal suffix, and malformed input ("n[1-", "n[3-1]", "n]") is an error
// rather than a guess. Sizes are checked before anything is expanded, so a
// hostile expression costs an error, not memory.
#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.h"
#include "common/text.h"
#include "topo/loaders/hostlist.h"
#include "topo/loaders/loaders.h"
#include "topo/loaders/synthetic.h"

namespace canopy::topo {
namespace {

constexpr uint64_t kMaxChars = uint64_t{64} << 20;  // all names together
constexpr size_t kMaxDigits = 18;                   // below 10^18: no overflow

struct Range {
  uint64_t lo, hi;
  size_t width;  // zero padding: the length of the lower bound as written
};

// One "[...]": its ranges in order, how many numbers they hold, and the
// longest number it can print.
struct Bracket {
  std::vector<Range> ranges;
  uint64_t count = 0;
  size_t max_chars = 0;
};

// One entry such as "rack[1-2]n[01-16]-ib": literals[i] precedes brackets[i];
// literals has one more element (the suffix) than brackets.
struct Pattern {
  std::vector<std::string_view> literals;
  std::vector<Bracket> brackets;
  uint64_t count = 1;      // names it expands to
  size_t name_chars = 0;   // upper bound of one name's length
};

std::string char_name(char c) {
  unsigned char u = static_cast<unsigned char>(c);
  if (u >= 0x21 && u < 0x7f) return std::string("'") + c + "'";
  static const char kHex[] = "0123456789abcdef";
  return std::string("byte 0x") + kHex[u >> 4] + kHex[u & 15];
}

class Parser {
 public:
  Parser(std::string_view expression, uint64_t max_names) : expression_(expression), max_names_(max_names) {}
  std::vector<Pattern> parse();

 private:
  [[noreturn]] void fail(const std::string &why) const {
    throw Error(CANOPY_ERR_PARSE, "invalid hostlist '" + printable(expression_, 60) + "': " + why);
  }
  Pattern parse_entry();
  Bracket parse_bracket();
  Range parse_range(std::string_view text);
  uint64_t parse_number(std::string_view text);
  void account(Pattern &pattern);

  [[noreturn]] void too_many() const { fail("expands to more than " + std::to_string(max_names_) + " names"); }

  std::string_view expression_;
  uint64_t max_names_;
  size_t pos_ = 0;
  uint64_t total_names_ = 0, total_chars_ = 0;
};

bool is_separator(char c) { return c == ',' || c == ' ' || c == '\t'; }

std::vector<Pattern> Parser::parse() {
  std::vector<Pattern> patterns;
  while (pos_ < expression_.size()) {
    if (is_separator(expression_[pos_])) {
      ++pos_;
      continue;
    }
    patterns.push_back(parse_entry());
    account(patterns.back());
  }
  return patterns;
}

Pattern Parser::parse_entry() {
  Pattern pattern;
  size_t literal_start = pos_;
  for (; pos_ < expression_.size() && !is_separator(expression_[pos_]); ++pos_) {
    char c = expression_[pos_];
    unsigned char u = static_cast<unsigned char>(c);
    if (c == ']') fail("']' without a matching '['");
    if (u < 0x20 || u >= 0x7f) fail("invalid character " + char_name(c) + " in a host name");
    if (c != '[') continue;
    pattern.literals.push_back(expression_.substr(literal_start, pos_ - literal_start));
    pattern.brackets.push_back(parse_bracket());  // leaves pos_ on the ']'
    literal_start = pos_ + 1;
  }
  pattern.literals.push_back(expression_.substr(literal_start, pos_ - literal_start));
  return pattern;
}

Bracket Parser::parse_bracket() {
  size_t open = pos_++;
  size_t close = expression_.find(']', open);
  if (close == std::string_view::npos) fail("'[' is never closed");
  std::string_view body = expression_.substr(open + 1, close - open - 1);
  if (body.empty()) fail("empty brackets '[]'");
  Bracket bracket;
  size_t start = 0;
  for (;;) {
    size_t comma = body.find(',', start);
    std::string_view item = body.substr(start, comma == std::string_view::npos ? comma : comma - start);
    Range range = parse_range(item);
    bracket.ranges.push_back(range);
    bracket.count += range.hi - range.lo + 1;  // both below 10^18: no overflow
    if (bracket.count > max_names_) too_many();
    bracket.max_chars = std::max({bracket.max_chars, range.width, std::to_string(range.hi).size()});
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  pos_ = close;
  return bracket;
}

Range Parser::parse_range(std::string_view text) {
  if (text.empty()) fail("empty element in brackets");
  size_t dash = text.find('-');
  std::string_view lo_text = text.substr(0, dash);
  std::string_view hi_text = dash == std::string_view::npos ? lo_text : text.substr(dash + 1);
  Range range{parse_number(lo_text), parse_number(hi_text), lo_text.size()};
  if (range.hi < range.lo)
    fail("descending range '" + std::string(text) + "' (write the lower bound first)");
  return range;
}

uint64_t Parser::parse_number(std::string_view text) {
  if (text.empty()) fail("a range is missing a bound");
  if (text.size() > kMaxDigits) fail("number '" + printable(text) + "' has more than 18 digits");
  uint64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') fail("unexpected " + char_name(c) + " in brackets (expected digits, '-' or ',')");
    value = value * 10 + static_cast<uint64_t>(c - '0');
  }
  return value;
}

// Checks the sizes of one more entry before anything is generated.
void Parser::account(Pattern &p) {
  for (std::string_view literal : p.literals) p.name_chars += literal.size();
  for (const Bracket &bracket : p.brackets) {
    p.name_chars += bracket.max_chars;
    if (p.count > max_names_ / bracket.count) too_many();
    p.count *= bracket.count;
  }
  total_names_ += p.count;
  if (total_names_ > max_names_) too_many();
  if (p.name_chars > 0 && p.count > (kMaxChars - total_chars_) / p.name_chars)
    fail("expands to more than 64 MiB of host names");
  total_chars_ += p.count * p.name_chars;
}

// Walks one bracket's numbers in order.
struct Cursor {
  size_t range = 0;
  uint64_t value = 0;
};

// Moves to the next number; false (and back to the first) after the last one.
bool advance(const Bracket &bracket, Cursor &cursor) {
  if (cursor.value < bracket.ranges[cursor.range].hi) {
    ++cursor.value;
    return true;
  }
  bool more = ++cursor.range < bracket.ranges.size();
  if (!more) cursor.range = 0;
  cursor.value = bracket.ranges[cursor.range].lo;
  return more;
}

// Without std::to_string: a million names are built per call at most, and the
// temporary strings dominated the time under the sanitizers.
void append_number(std::string &out, uint64_t value, size_t width) {
  char digits[24];
  size_t n = 0;
  do {
    digits[n++] = static_cast<char>('0' + value % 10);
    value /= 10;
  } while (value);
  if (n < width) out.append(width - n, '0');
  while (n) out += digits[--n];
}

void expand(const Pattern &pattern, std::vector<std::string> &names) {
  size_t n = pattern.brackets.size();
  std::vector<Cursor> cursors(n);
  for (size_t i = 0; i < n; ++i) cursors[i].value = pattern.brackets[i].ranges[0].lo;
  // Slurm's loop nesting, innermost first: Bn, B1, B2, ..., Bn-1.
  std::vector<size_t> innermost_first;
  if (n > 0) innermost_first.push_back(n - 1);
  for (size_t i = 0; i + 1 < n; ++i) innermost_first.push_back(i);
  for (;;) {
    std::string name;
    name.reserve(pattern.name_chars);
    for (size_t i = 0; i < n; ++i) {
      name += pattern.literals[i];
      const Cursor &c = cursors[i];
      append_number(name, c.value, pattern.brackets[i].ranges[c.range].width);
    }
    name += pattern.literals[n];
    names.push_back(std::move(name));
    size_t k = 0;
    while (k < n && !advance(pattern.brackets[innermost_first[k]], cursors[innermost_first[k]])) ++k;
    if (k == n) return;
  }
}

}  // namespace

uint64_t detail::hostlist_size(std::string_view expression) {
  uint64_t total = 0;
  for (const Pattern &p : Parser(expression, detail::kMaxHostlistNames).parse()) total += p.count;
  return total;
}

std::vector<std::string> detail::expand_hostlist_limited(std::string_view expression, uint64_t max_names) {
  std::vector<Pattern> patterns = Parser(expression, max_names).parse();
  uint64_t total = 0;
  for (const Pattern &p : patterns) total += p.count;
  std::vector<std::string> names;
  names.reserve(static_cast<size_t>(total));
  for (const Pattern &p : patterns) expand(p, names);
  return names;
}

std::vector<std::string> expand_hostlist(std::string_view expression) {
  return detail::expand_hostlist_limited(expression, detail::kMaxHostlistNames);
}

}  // namespace canopy::topo

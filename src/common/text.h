// Small text helpers shared by the parsers: a line cursor that counts lines,
// non-throwing number parsing, splitting, and the canonical GUID spelling.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace canopy {

/** Walks a buffer line by line (1-based numbers), without copying; strips '\r'. */
class LineCursor {
 public:
  explicit LineCursor(std::string_view text) : text_(text) {}
  bool next(std::string_view &line);
  /** The next line with anything before its '#' comment: that part, trimmed (the
      config-like files: host files, host maps, edge lists, rankfiles). */
  bool next_content(std::string_view &line);
  size_t number() const { return number_; }

 private:
  std::string_view text_;
  size_t pos_ = 0;
  size_t number_ = 0;
};

/** isspace() in the C locale, without a library call per character. */
inline bool is_space(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

std::string_view trim(std::string_view s);
/** The next whitespace-separated token of @p rest, which moves past it ("" at the end). */
std::string_view take_token(std::string_view &rest);
bool starts_with(std::string_view s, std::string_view prefix);
/** Whitespace-separated fields. */
std::vector<std::string_view> split_fields(std::string_view s);
std::vector<std::string_view> split(std::string_view s, char separator);

/** Parses an unsigned integer (base 0: decimal, or hex with 0x); false on any junk. */
bool parse_uint(std::string_view s, uint64_t &value, int base = 0);
/** Parses a decimal number (an optional '+', inf and nan taken) in any locale; false on junk or
    overflow. */
bool parse_double(std::string_view s, double &value);
/** The value of a hex digit, or -1. */
int hex_digit(char c);
/** 1 to 16 hex digits without prefix; false on anything else. Division-free: it
    parses millions of forwarding-table lines. */
bool parse_hex(std::string_view text, uint64_t &value);

/** @p text as it can safely appear in an error message: at most @p max bytes
    (then "..."), anything but printable ASCII shown as '?'. */
std::string printable(std::string_view text, size_t max = 40);

/** "0x" and 16 lower-case hex digits. */
std::string guid_string(uint64_t guid);

}  // namespace canopy

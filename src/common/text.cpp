#include "common/text.h"

#include <array>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace canopy {

bool LineCursor::next(std::string_view &line) {
  if (pos_ >= text_.size()) return false;
  size_t end = text_.find('\n', pos_);
  if (end == std::string_view::npos) end = text_.size();
  line = text_.substr(pos_, end - pos_);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  pos_ = end + 1;
  ++number_;
  return true;
}

bool LineCursor::next_content(std::string_view &line) {
  while (next(line))
    if (!(line = trim(line.substr(0, line.find('#')))).empty()) return true;
  return false;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

std::string_view take_token(std::string_view &rest) {
  size_t start = 0;
  while (start < rest.size() && is_space(rest[start])) ++start;
  size_t end = start;
  while (end < rest.size() && !is_space(rest[end])) ++end;
  std::string_view token = rest.substr(start, end - start);
  rest.remove_prefix(end);
  return token;
}

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && s.compare(0, prefix.size(), prefix) == 0;
}

std::vector<std::string_view> split_fields(std::string_view s) {
  std::vector<std::string_view> fields;
  for (std::string_view token = take_token(s); !token.empty(); token = take_token(s)) fields.push_back(token);
  return fields;
}

std::vector<std::string_view> split(std::string_view s, char separator) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  for (;;) {
    size_t end = s.find(separator, start);
    parts.push_back(s.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    if (end == std::string_view::npos) return parts;
    start = end + 1;
  }
}

namespace {
constexpr std::array<int8_t, 256> make_hex_table() {
  std::array<int8_t, 256> table{};
  for (int c = 0; c < 256; ++c)
    table[c] = c >= '0' && c <= '9'   ? static_cast<int8_t>(c - '0')
               : c >= 'a' && c <= 'f' ? static_cast<int8_t>(c - 'a' + 10)
               : c >= 'A' && c <= 'F' ? static_cast<int8_t>(c - 'A' + 10)
                                      : int8_t{-1};
  return table;
}
constexpr std::array<int8_t, 256> kHexTable = make_hex_table();
}  // namespace

int hex_digit(char c) { return kHexTable[static_cast<unsigned char>(c)]; }

bool parse_hex(std::string_view text, uint64_t &value) {
  if (text.empty() || text.size() > 16) return false;
  uint64_t v = 0;
  for (char c : text) {
    int digit = hex_digit(c);
    if (digit < 0) return false;
    v = v << 4 | static_cast<uint64_t>(digit);
  }
  value = v;
  return true;
}

std::string printable(std::string_view text, size_t max) {
  std::string out;
  for (char c : text.substr(0, max)) {
    unsigned char u = static_cast<unsigned char>(c);
    out += (u >= 0x20 && u < 0x7f) ? c : '?';
  }
  if (text.size() > max) out += "...";
  return out;
}

bool parse_uint(std::string_view s, uint64_t &value, int base) {
  if (base == 0) {
    if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
      s.remove_prefix(2);
      base = 16;
    } else {
      base = 10;
    }
  }
  if (base == 16) return parse_hex(s, value);
  if (s.empty() || s.size() > 20) return false;
  uint64_t v = 0;
  for (char c : s) {
    int digit = hex_digit(c);
    if (digit < 0 || digit >= base) return false;
    if (v > (UINT64_MAX - static_cast<uint64_t>(digit)) / static_cast<uint64_t>(base)) return false;
    v = v * static_cast<uint64_t>(base) + static_cast<uint64_t>(digit);
  }
  value = v;
  return true;
}

bool parse_double(std::string_view s, double &value) {
  // std::from_chars, not strtod: strtod reads "2.5" as 2 in a program that has set a locale with
  // a decimal comma (an MPI application calling setlocale, with libcanopy inside it).
  if (s.size() > 1 && s[0] == '+' && s[1] != '-') s.remove_prefix(1);
  double v = 0;
  auto [end, error] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || error != std::errc() || end != s.data() + s.size()) return false;
  value = v;
  return true;
}

std::string guid_string(uint64_t guid) {
  char buffer[24];
  std::snprintf(buffer, sizeof buffer, "0x%016llx", static_cast<unsigned long long>(guid));
  return buffer;
}

}  // namespace canopy

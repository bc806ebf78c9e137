// Internal to the loaders: small pieces the format parsers share. Inputs may
// be huge (millions of forwarding-table lines) or binary garbage (a wrong file,
// a fuzzer), so the hex parsing here is table-driven and division-free, and
// quoted input is kept short and printable.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace canopy::topo {

namespace detail {
constexpr std::array<int8_t, 256> make_hex_table() {
  std::array<int8_t, 256> table{};
  for (int c = 0; c < 256; ++c) {
    table[c] = c >= '0' && c <= '9'   ? static_cast<int8_t>(c - '0')
               : c >= 'a' && c <= 'f' ? static_cast<int8_t>(c - 'a' + 10)
               : c >= 'A' && c <= 'F' ? static_cast<int8_t>(c - 'A' + 10)
                                      : int8_t{-1};
  }
  return table;
}
inline constexpr std::array<int8_t, 256> kHexTable = make_hex_table();
}  // namespace detail

/** The value of a hex digit, or -1. */
inline int hex_digit(char c) { return detail::kHexTable[static_cast<unsigned char>(c)]; }

/** 1 to 16 hex digits, no prefix; false on anything else. */
inline bool parse_hex(std::string_view text, uint64_t &value) {
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

/** @p text in single quotes, cut to 40 bytes, non-printable bytes shown as '?'. */
inline std::string excerpt(std::string_view text) {
  constexpr size_t kMax = 40;
  std::string out = "'";
  for (size_t i = 0; i < text.size() && i < kMax; ++i) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    out += (c >= 0x20 && c < 0x7f) ? static_cast<char>(c) : '?';
  }
  if (text.size() > kMax) out += "...";
  return out + "'";
}

}  // namespace canopy::topo

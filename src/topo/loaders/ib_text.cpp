#include "topo/loaders/ib_text.h"

#include <cctype>

#include "common/error.h"
#include "common/text.h"

namespace canopy::topo::ib {
namespace {
bool is_alnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }


// Speeds may carry punctuation or a suffix ("QDR,", "HDR)"): keep the name part.
std::string_view speed_part(std::string_view text) {
  size_t n = 0;
  while (n < text.size() && is_alnum(text[n])) ++n;
  return text.substr(0, n);
}

// "4x..." -> 4; 0 if the token does not start with a valid IB width and an 'x'.
int width_prefix(std::string_view token, std::string_view &after_x) {
  size_t x = 0;
  while (x < token.size() && x < 3 && std::isdigit(static_cast<unsigned char>(token[x]))) ++x;
  if (x == 0 || x >= token.size() || (token[x] != 'x' && token[x] != 'X')) return 0;
  uint64_t width = 0;
  if (!parse_uint(token.substr(0, x), width, 10)) return 0;
  if (width != 1 && width != 2 && width != 4 && width != 8 && width != 12) return 0;
  after_x = token.substr(x + 1);
  return static_cast<int>(width);
}
}  // namespace

void Scanner::skip_space() {
  while (pos_ < text_.size() && is_space(text_[pos_])) ++pos_;
}

bool Scanner::consume(char c) {
  if (at_end() || text_[pos_] != c) return false;
  ++pos_;
  return true;
}

std::string_view Scanner::word() {
  size_t start = pos_;
  while (pos_ < text_.size() && !is_space(text_[pos_])) ++pos_;
  return text_.substr(start, pos_ - start);
}

bool Scanner::until(char close, std::string_view &out) {
  size_t end = text_.find(close, pos_);
  if (end == std::string_view::npos) return false;
  out = text_.substr(pos_, end - pos_);
  pos_ = end + 1;
  return true;
}

bool parse_guid(std::string_view text, uint64_t &guid) {
  if (starts_with(text, "0x") || starts_with(text, "0X")) text.remove_prefix(2);
  return !text.empty() && text.size() <= 16 && parse_uint(text, guid, 16);
}

bool parse_lid(std::string_view text, uint32_t &lid) {
  uint64_t value = 0;
  if (!parse_uint(text, value, 10) || value > kMaxLid) return false;
  lid = static_cast<uint32_t>(value);
  return true;
}

bool parse_port_number(std::string_view text, int &port) {
  uint64_t value = 0;
  if (!parse_uint(text, value, 10) || value < 1 || value > static_cast<uint64_t>(kMaxPorts)) return false;
  port = static_cast<int>(value);
  return true;
}

LinkRate scan_rate(std::string_view text) {
  for (std::string_view token = take_token(text); !token.empty(); token = take_token(text)) {
    std::string_view speed_text;
    int width = width_prefix(token, speed_text);
    if (width == 0) continue;
    if (speed_text.empty()) speed_text = take_token(text);  // "4x QDR"
    LinkSpeed speed = parse_speed_name(speed_part(speed_text));
    if (speed == LinkSpeed::Unknown) return LinkRate{width, LinkSpeed::Unknown, 0};
    return ib_rate(width, speed);
  }
  return LinkRate{};
}


void fail_no_nodes(const std::string &file, size_t last_line) {
  // An empty file still has a line 1 to point at.
  throw parse_error(file, last_line == 0 ? 1 : last_line, "no nodes found");
}

void connect_at(Topology &topo, int node_a, int port_a, int node_b, int port_b, const LinkRate &rate,
                const std::string &file, size_t line) {
  try {
    topo.connect(node_a, port_a, node_b, port_b, rate);
  } catch (const Error &e) {
    // connect() knows what is wrong but not where; the caller knows the line.
    throw parse_error(file, line, e.what());
  }
}

}  // namespace canopy::topo::ib

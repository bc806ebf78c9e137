// Pieces shared by the two ibnetdiscover loaders (default output and -p):
// a bounds-checked cursor over one line, the number formats infiniband-diags
// prints, a lenient link-rate scan, and link creation that reports file:line.
// Internal to src/topo/loaders; not part of the Topology API.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "common/text.h"
#include "topo/link_rate.h"
#include "topo/topology.h"

namespace canopy::topo::ib {

constexpr int kMaxPorts = 254;         // InfiniBand port numbers are 1..254
constexpr uint64_t kMaxLid = 0xFFFF;   // LIDs are 16 bits; larger values are corrupt input

/** A cursor over one line. Every read checks bounds, so any input is safe. */
class Scanner {
 public:
  explicit Scanner(std::string_view text) : text_(text) {}
  void skip_space();
  bool at_end() const { return pos_ >= text_.size(); }
  char peek() const { return at_end() ? '\0' : text_[pos_]; }
  /** Consumes @p c if it is next. */
  bool consume(char c);
  /** The next run of non-space characters (empty at the end). */
  std::string_view word();
  /** Reads up to (not including) @p close and consumes it; false if it never comes. */
  bool until(char close, std::string_view &out);
  std::string_view rest() const { return at_end() ? std::string_view() : text_.substr(pos_); }
  size_t offset() const { return pos_; }

 private:
  std::string_view text_;
  size_t pos_ = 0;
};

/** Calls @p handle for every line that is neither blank nor a '#' comment, trimmed,
    with @p line_number kept current so that errors can name it. */
template <class Handle>
void for_each_content_line(std::string_view text, size_t &line_number, Handle &&handle) {
  LineCursor cursor(text);
  std::string_view line;
  while (cursor.next(line)) {
    line_number = cursor.number();
    line = trim(line);
    if (!line.empty() && line.front() != '#') handle(line);
  }
}

/** Throws the error for input without a single node, located at its last line. */
[[noreturn]] void fail_no_nodes(const std::string &file, size_t last_line);

/** Hex GUID, with or without "0x", 1 to 16 digits. */
bool parse_guid(std::string_view text, uint64_t &guid);
/** Decimal LID, at most kMaxLid. */
bool parse_lid(std::string_view text, uint32_t &lid);
/** Decimal port number, 1..kMaxPorts. */
bool parse_port_number(std::string_view text, int &port);

/** The first link rate in free text: "4xQDR", "4x QDR", "12xEDR (Extended speed)".
    A valid width with an unknown speed ("4x???", "4xXDR") gives that width at
    0 Gb/s; no rate at all gives LinkRate{}. Never fails: rates are informational. */
LinkRate scan_rate(std::string_view text);


/** Topology::connect, with its errors (conflicts, bad ports) located at file:line. */
void connect_at(Topology &topo, int node_a, int port_a, int node_b, int port_b, const LinkRate &rate,
                const std::string &file, size_t line);

}  // namespace canopy::topo::ib

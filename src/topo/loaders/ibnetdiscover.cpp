// Loader for ibnetdiscover's default output (infiniband-diags, also what ibsim's
// net files look like):
//
//   switchguid=0x200001(200001)
//   Switch  8 "S-0000000000200001"   # "S2" base port 0 lid 3 lmc 0
//   [1]     "H-0000000000100006"[1](100007)   # "H3" lid 5 4xSDR
//   caguid=0x100009
//   Ca      2 "H-0000000000100009"   # "H4"
//   [1](10000a)  "S-0000000000200001"[2]   # lid 6 lmc 0 "S2" lid 3 4xSDR
//
// Every link is printed from both ends and a port line may name a node whose
// record comes later, so port lines are collected first and linked at the end.
// The text after '#' is informational (LIDs, rates); the structure before it
// is checked strictly so that truncated or corrupt files fail loudly.
#include <optional>
#include <unordered_map>

#include "common/error.h"
#include "common/text.h"
#include "topo/loaders/ib_text.h"
#include "topo/loaders/loaders.h"

namespace canopy::topo {
namespace {

using ib::Scanner;

// One "[p] "peer-id"[pp]" line, kept until every record has been read.
struct PortRef {
  int node = -1;
  int port = 0;
  std::string_view peer_id;
  int peer_port = 0;
  uint64_t peer_guid = 0;  // "(guid)" after the peer port; 0 if not printed
  uint32_t peer_lid = 0;   // "lid N" after the peer description; 0 if not printed
  LinkRate rate;
  size_t line = 0;
};

// The comment of a header or port line, split around its quoted node description.
// Without quotes everything is in `before`.
struct Comment {
  std::string_view before, description, after;
  bool quoted = false;
};

class Parser {
 public:
  Parser(std::string_view text, const std::string &file) : text_(text), file_(file) {}
  Topology run();

 private:
  void parse_line(std::string_view line);
  void parse_metadata(std::string_view key, std::string_view value);
  void parse_header(NodeType type, Scanner &s);
  uint64_t header_guid(std::string_view id) const;
  void start_record(int node, const Comment &comment);
  void parse_port_line(Scanner &s);
  int parse_bracket_port(Scanner &s, const char *what) const;
  uint64_t parse_paren_guid(Scanner &s) const;
  void parse_peer(Scanner &s, PortRef &ref) const;
  void parse_port_comment(std::string_view text, PortRef &ref);
  Comment split_comment(std::string_view text) const;
  uint32_t lid_in(std::string_view text) const;
  void resolve_links();
  void apply_peer_hints(const PortRef &ref, int peer);
  [[noreturn]] void fail(const std::string &what) const { throw parse_error(file_, line_, what); }

  std::string_view text_;
  const std::string &file_;
  size_t line_ = 0;
  Topology topo_;
  std::unordered_map<std::string_view, int> node_by_id_;
  std::vector<size_t> header_line_;     // per node: line of its record header
  int current_ = -1;                    // node whose port lines follow; -1 outside a record
  std::vector<size_t> port_line_;       // current record: line that listed each port, 0 if none
  std::optional<uint64_t> pending_guid_;  // from switchguid=/caguid=/rtguid=, for the next header
  std::vector<PortRef> refs_;
};

Topology Parser::run() {
  ib::for_each_content_line(text_, line_, [this](std::string_view line) { parse_line(line); });
  if (topo_.nodes().empty()) ib::fail_no_nodes(file_, line_);
  resolve_links();
  topo_.finalize();
  topo_.set_source("ibnetdiscover:" + file_);
  return std::move(topo_);
}

void Parser::parse_line(std::string_view line) {
  Scanner s(line);
  if (line.front() == '[') return parse_port_line(s);
  size_t key_end = line.find_first_of(" \t=");
  std::string_view key = line.substr(0, key_end);
  if (key_end != std::string_view::npos && line[key_end] == '=') {
    parse_metadata(key, line.substr(key_end + 1));
    current_ = -1;  // metadata starts the next node's block
    return;
  }
  s.word();
  if (key == "Switch") return parse_header(NodeType::Switch, s);
  if (key == "Ca" || key == "Hca") return parse_header(NodeType::Host, s);  // ibsim spells it Hca
  if (key == "Rt") return parse_header(NodeType::Router, s);
  // `ibnetdiscover -g` groups chassis with a few uncommented lines of its own.
  if (key == "Chassis" || key == "Non-Chassis" || key == "Hostname:") {
    current_ = -1;
    return;
  }
  fail("unknown record '" + printable(key) + "'");
}

void Parser::parse_metadata(std::string_view key, std::string_view value) {
  if (key == "vendid" || key == "devid" || key == "sysimgguid") return;  // hardware identity only
  if (key != "switchguid" && key != "caguid" && key != "rtguid")
    fail("unknown record '" + printable(key) + "='");
  // "0x200001(200001)  # chassis slot": the node GUID ends at the port GUID or comment.
  std::string_view text = value.substr(0, value.find_first_of("( \t#"));
  uint64_t guid = 0;
  if (!ib::parse_guid(text, guid)) fail("bad GUID '" + printable(text) + "'");
  pending_guid_ = guid;
}

void Parser::parse_header(NodeType type, Scanner &s) {
  s.skip_space();
  std::string_view count = s.word();
  int num_ports = 0;
  if (count.empty()) fail("malformed record header: missing port count");
  if (!ib::parse_port_number(count, num_ports))
    fail("malformed record header: bad port count '" + printable(count) + "' (InfiniBand allows 1 to 254)");
  s.skip_space();
  std::string_view id;
  if (!s.consume('"')) fail("malformed record header: expected a quoted node id after the port count");
  if (!s.until('"', id)) fail("truncated line: unterminated quote in node id");
  if (id.empty()) fail("malformed record header: empty node id");
  s.skip_space();
  Comment comment;
  if (!s.at_end()) {
    if (!s.consume('#')) fail("unexpected text '" + printable(s.rest()) + "' after the node id");
    comment = split_comment(s.rest());
    if (!comment.quoted) fail("malformed record header: the node description must be quoted");
  }
  auto [it, inserted] = node_by_id_.emplace(id, static_cast<int>(header_line_.size()));
  if (!inserted)
    fail("node '" + printable(id) + "' is defined twice (first at line " +
         std::to_string(header_line_[static_cast<size_t>(it->second)]) + ")");
  // Without a description ibnetdiscover's own id is the best name there is.
  std::string description(comment.description.empty() ? id : comment.description);
  int node = topo_.add_node(type, header_guid(id), std::move(description), num_ports);
  header_line_.push_back(line_);
  start_record(node, comment);
}

uint64_t Parser::header_guid(std::string_view id) const {
  if (pending_guid_) return *pending_guid_;
  uint64_t guid = 0;
  // ibnetdiscover names nodes "S-", "H-" or "R-" followed by the node GUID in hex.
  if (id.size() > 2 && id[1] == '-' && ib::parse_guid(id.substr(2), guid)) return guid;
  fail("bad GUID: node id '" + printable(id) +
       "' is not X-<hex GUID> and no switchguid=/caguid=/rtguid= line precedes it");
}

void Parser::start_record(int node_index, const Comment &comment) {
  Node &node = topo_.node(node_index);
  if (node.is_switch()) {
    // "base port 0 lid 3 lmc 0": the switch's LID lives on management port 0.
    node.lid = lid_in(comment.after);
    node.ports[0].lid = node.lid;
    for (Port &port : node.ports) port.guid = node.guid;
  }
  current_ = node_index;
  port_line_.assign(node.ports.size(), 0);
  pending_guid_.reset();
}

void Parser::parse_port_line(Scanner &s) {
  if (current_ < 0) fail("port line outside a record (no Switch, Ca or Rt header before it)");
  Node &node = topo_.node(current_);
  PortRef ref;
  ref.node = current_;
  ref.line = line_;
  ref.port = parse_bracket_port(s, "port");
  if (ref.port > node.num_ports())
    fail("port " + std::to_string(ref.port) + " out of range: '" + printable(node.description) + "' has " +
         std::to_string(node.num_ports()) + " ports");
  size_t &seen = port_line_[static_cast<size_t>(ref.port)];
  if (seen) fail("port " + std::to_string(ref.port) + " is listed twice (first at line " + std::to_string(seen) + ")");
  seen = line_;
  s.skip_space();
  if (s.peek() == '(') {
    uint64_t guid = parse_paren_guid(s);
    if (!node.is_switch()) node.ports[static_cast<size_t>(ref.port)].guid = guid;  // switch ports share the node GUID
  }
  parse_peer(s, ref);
  s.skip_space();
  if (!s.at_end()) {
    if (!s.consume('#')) fail("unexpected text '" + printable(s.rest()) + "' after the peer port");
    parse_port_comment(s.rest(), ref);
  }
  refs_.push_back(ref);
}

int Parser::parse_bracket_port(Scanner &s, const char *what) const {
  std::string_view text;
  s.skip_space();
  if (!s.consume('[') || !s.until(']', text)) fail(std::string("truncated line: expected [") + what + "]");
  int port = 0;
  if (!ib::parse_port_number(text, port)) fail("bad port number '" + printable(text) + "'");
  // -g adds the chassis front-panel number: "[13][ext 1]".
  if (s.peek() == '[' && !s.until(']', text)) fail("truncated line: unterminated '['");
  return port;
}

uint64_t Parser::parse_paren_guid(Scanner &s) const {
  std::string_view text;
  uint64_t guid = 0;
  s.consume('(');
  if (!s.until(')', text)) fail("truncated line: unterminated '('");
  if (!ib::parse_guid(text, guid)) fail("bad GUID '" + printable(text) + "'");
  return guid;
}

void Parser::parse_peer(Scanner &s, PortRef &ref) const {
  s.skip_space();
  if (s.at_end()) fail("truncated line: expected the quoted peer id");
  if (!s.consume('"')) fail("expected the quoted peer id, found '" + printable(s.rest()) + "'");
  if (!s.until('"', ref.peer_id)) fail("truncated line: unterminated quote in peer id");
  ref.peer_port = parse_bracket_port(s, "peer port");
  s.skip_space();
  if (s.peek() == '(') ref.peer_guid = parse_paren_guid(s);
}

void Parser::parse_port_comment(std::string_view text, PortRef &ref) {
  Comment c = split_comment(text);
  Node &node = topo_.node(ref.node);
  if (node.is_switch()) {
    // # "peer desc" lid L 4xSDR
    ref.peer_lid = lid_in(c.quoted ? c.after : c.before);
  } else {
    // # lid L lmc M "peer desc" lid L2 4xSDR: this port's LID comes first.
    uint32_t lid = lid_in(c.before);
    if (lid) node.ports[static_cast<size_t>(ref.port)].lid = lid;
    if (c.quoted) ref.peer_lid = lid_in(c.after);
  }
  ref.rate = ib::scan_rate(c.quoted ? c.after : c.before);
}

Comment Parser::split_comment(std::string_view text) const {
  Comment c;
  size_t open = text.find('"');
  if (open == std::string_view::npos) {
    c.before = text;
    return c;
  }
  // Descriptions are free text; the last quote on the line is the closing one.
  size_t close = text.rfind('"');
  if (close == open) fail("truncated line: unterminated quote in node description");
  c.before = text.substr(0, open);
  c.description = text.substr(open + 1, close - open - 1);
  c.after = text.substr(close + 1);
  c.quoted = true;
  return c;
}

uint32_t Parser::lid_in(std::string_view text) const {
  Scanner s(text);
  for (s.skip_space(); !s.at_end(); s.skip_space()) {
    if (s.word() != "lid") continue;
    s.skip_space();
    std::string_view value = s.word();
    uint32_t lid = 0;
    if (!ib::parse_lid(value, lid))
      fail(value.empty() ? "truncated line: missing LID after 'lid'" : "bad LID '" + printable(value) + "'");
    return lid;
  }
  return 0;
}

void Parser::resolve_links() {
  for (const PortRef &ref : refs_) {
    line_ = ref.line;
    auto it = node_by_id_.find(ref.peer_id);
    if (it == node_by_id_.end()) fail("peer '" + printable(ref.peer_id) + "' is not defined in this file");
    apply_peer_hints(ref, it->second);
    ib::connect_at(topo_, ref.node, ref.port, it->second, ref.peer_port, ref.rate, file_, ref.line);
  }
}

// A record may leave out what its neighbours print about it (ibsim's net files
// have no port GUIDs or LIDs): fill such gaps, never overriding the record itself.
void Parser::apply_peer_hints(const PortRef &ref, int peer) {
  Node &node = topo_.node(peer);
  if (ref.peer_port > node.num_ports()) return;  // connect() reports it
  if (node.is_switch()) {
    if (!node.lid) node.lid = node.ports[0].lid = ref.peer_lid;
    return;
  }
  Port &port = node.ports[static_cast<size_t>(ref.peer_port)];
  if (!port.guid) port.guid = ref.peer_guid;
  if (!port.lid) port.lid = ref.peer_lid;
}

}  // namespace

Topology load_ibnetdiscover(std::string_view text, const std::string &file) { return Parser(text, file).run(); }

}  // namespace canopy::topo

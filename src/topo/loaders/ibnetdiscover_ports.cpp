// Loader for `ibnetdiscover -p` (ports report), one line per port:
//
//   CA     6  1 0x000000000010000a 4x SDR - SW     3  2 0x0000000000200001 ( 'H4' - 'S2' )
//   SW     3  8 0x0000000000200001 4x SDR                                    'S2'
//
// TYPE LID PORT GUID WIDTH SPEED, then either the port's own node description
// (port not connected) or "- " and the peer's TYPE LID PORT GUID followed by
// ( 'own description' - 'peer description' ).
//
// The report never says how many ports a node has, so each node gets as many as
// the highest port number seen for it. Switches print their node GUID; CAs and
// routers print only port GUIDs, and the two ports of one HCA cannot be told
// from two HCAs, so each distinct CA/router port GUID becomes a node of its own
// whose node GUID is that port GUID.
#include <algorithm>
#include <unordered_map>

#include "common/error.h"
#include "common/text.h"
#include "topo/loaders/ib_text.h"
#include "topo/loaders/loaders.h"

namespace canopy::topo {
namespace {

using ib::Scanner;

// One end of a port line: "CA     6  1 0x000000000010000a".
struct End {
  NodeType type = NodeType::Host;
  uint32_t lid = 0;
  int port = 0;
  uint64_t guid = 0;
  int node = -1;  // index into PortsParser::nodes_ (and later the Topology)
};

struct PendingNode {
  NodeType type;
  uint64_t guid;
  int num_ports;
  uint32_t lid;  // switches: base LID; end ports keep theirs per port
  std::string_view description;
  size_t line;
};

struct PortLine {
  End self, peer;
  bool connected = false;
  LinkRate rate;
  size_t line = 0;
};

const char *type_code(NodeType type) {
  switch (type) {
    case NodeType::Switch: return "SW";
    case NodeType::Router: return "RT";
    case NodeType::Host: break;
  }
  return "CA";
}

class PortsParser {
 public:
  PortsParser(std::string_view text, const std::string &file) : text_(text), file_(file) {}
  Topology run();

 private:
  void parse_line(std::string_view line);
  End parse_end(Scanner &s) const;
  NodeType parse_type(std::string_view text) const;
  std::string_view rate_text(Scanner &s, std::string_view line, bool &connected) const;
  void parse_description_pair(std::string_view rest, std::string_view &self, std::string_view &peer) const;
  std::string_view parse_description(std::string_view rest) const;
  int intern(const End &end, std::string_view description);
  Topology build() const;
  [[noreturn]] void fail(const std::string &what) const { throw parse_error(file_, line_, what); }

  std::string_view text_;
  const std::string &file_;
  size_t line_ = 0;
  std::unordered_map<uint64_t, int> node_by_guid_;
  std::vector<PendingNode> nodes_;
  std::vector<PortLine> lines_;
};

Topology PortsParser::run() {
  ib::for_each_content_line(text_, line_, [this](std::string_view line) { parse_line(line); });
  if (nodes_.empty()) ib::fail_no_nodes(file_, line_);
  Topology topo = build();
  topo.finalize();
  topo.set_source("ibnetdiscover-ports:" + file_);
  return topo;
}

void PortsParser::parse_line(std::string_view line) {
  Scanner s(line);
  PortLine port;
  port.line = line_;
  port.self = parse_end(s);
  port.rate = ib::scan_rate(rate_text(s, line, port.connected));
  std::string_view self_description, peer_description;
  if (port.connected) {
    port.peer = parse_end(s);
    s.skip_space();
    if (!s.consume('('))
      fail(s.at_end() ? "truncated line: expected ( 'description' - 'peer description' )"
                      : "expected ( 'description' - 'peer description' ), found '" + printable(s.rest()) + "'");
    parse_description_pair(s.rest(), self_description, peer_description);
  } else {
    self_description = parse_description(s.rest());
  }
  port.self.node = intern(port.self, self_description);
  if (port.connected) port.peer.node = intern(port.peer, peer_description);
  lines_.push_back(port);
}

End PortsParser::parse_end(Scanner &s) const {
  auto field = [&] {
    s.skip_space();
    std::string_view text = s.word();
    if (text.empty()) fail("truncated line: expected TYPE LID PORT GUID");
    return text;
  };
  End end;
  end.type = parse_type(field());  // first, so that a line of junk is called that
  std::string_view lid = field(), port = field(), guid = field();
  if (!ib::parse_lid(lid, end.lid)) fail("bad LID '" + printable(lid) + "'");
  if (!ib::parse_port_number(port, end.port)) fail("bad port number '" + printable(port) + "'");
  if (!ib::parse_guid(guid, end.guid)) fail("bad GUID '" + printable(guid) + "'");
  return end;
}

NodeType PortsParser::parse_type(std::string_view text) const {
  if (text == "CA") return NodeType::Host;
  if (text == "SW") return NodeType::Switch;
  if (text == "RT") return NodeType::Router;
  fail("unknown node type '" + printable(text) + "' (expected CA, SW or RT)");
}

// The rate ("4x SDR", "4x ???", "4x HDR (Extended speed)") runs up to the "-"
// before the peer or to the quoted description of an unconnected port.
std::string_view PortsParser::rate_text(Scanner &s, std::string_view line, bool &connected) const {
  size_t begin = s.offset(), end = begin;
  for (;;) {
    s.skip_space();
    if (s.at_end()) fail("truncated line: expected '- PEER' or the quoted node description");
    if (s.peek() == '\'') break;
    if (s.word() == "-") {
      connected = true;
      break;
    }
    end = s.offset();
  }
  return line.substr(begin, end - begin);
}

// "'H4' - 'S2' )": descriptions are free text, so the pair is split at the
// first "' - '" and closed by the last ')'.
void PortsParser::parse_description_pair(std::string_view rest, std::string_view &self,
                                         std::string_view &peer) const {
  size_t close = rest.rfind(')');
  if (close == std::string_view::npos) fail("truncated line: missing ')' after the descriptions");
  std::string_view inside = trim(rest.substr(0, close));
  constexpr std::string_view kSeparator = "' - '";
  size_t sep = inside.find(kSeparator);
  if (inside.size() < 2 || inside.front() != '\'' || sep == std::string_view::npos || sep == 0 ||
      sep + kSeparator.size() > inside.size() - 1 || inside.back() != '\'')
    fail("malformed descriptions: expected ( 'description' - 'peer description' )");
  self = inside.substr(1, sep - 1);
  size_t peer_begin = sep + kSeparator.size();
  peer = inside.substr(peer_begin, inside.size() - 1 - peer_begin);
}

std::string_view PortsParser::parse_description(std::string_view rest) const {
  std::string_view text = trim(rest);
  if (text.size() < 2 || text.front() != '\'' || text.back() != '\'')
    fail("truncated line: unterminated quote in node description");
  return text.substr(1, text.size() - 2);
}

int PortsParser::intern(const End &end, std::string_view description) {
  auto [it, inserted] = node_by_guid_.emplace(end.guid, static_cast<int>(nodes_.size()));
  if (inserted) nodes_.push_back({end.type, end.guid, end.port, 0, description, line_});
  PendingNode &node = nodes_[static_cast<size_t>(it->second)];
  if (node.type != end.type)
    fail("GUID " + guid_string(end.guid) + " is a " + type_code(end.type) + " here but a " + type_code(node.type) +
         " at line " + std::to_string(node.line));
  node.num_ports = std::max(node.num_ports, end.port);
  if (node.description.empty()) node.description = description;
  if (node.type == NodeType::Switch && !node.lid) node.lid = end.lid;
  return it->second;
}

Topology PortsParser::build() const {
  Topology topo;
  for (const PendingNode &pending : nodes_) {
    int index = topo.add_node(pending.type, pending.guid, std::string(pending.description), pending.num_ports);
    Node &node = topo.node(index);
    if (!node.is_switch()) continue;
    node.lid = node.ports[0].lid = pending.lid;
    for (Port &port : node.ports) port.guid = pending.guid;
  }
  // End ports carry their own GUID and LID, printed on their line and the peer's.
  auto set_end_port = [&topo](const End &end) {
    Node &node = topo.node(end.node);
    if (node.is_switch()) return;
    Port &port = node.ports[static_cast<size_t>(end.port)];
    port.guid = end.guid;
    if (!port.lid) port.lid = end.lid;
  };
  for (const PortLine &line : lines_) {
    set_end_port(line.self);
    if (line.connected) set_end_port(line.peer);
  }
  // Each link is listed from both ends; connect() ignores the repeat and
  // rejects a port that the file connects to two different places.
  for (const PortLine &line : lines_)
    if (line.connected)
      ib::connect_at(topo, line.self.node, line.self.port, line.peer.node, line.peer.port, line.rate, file_,
                     line.line);
  return topo;
}

}  // namespace

Topology load_ibnetdiscover_ports(std::string_view text, const std::string &file) {
  return PortsParser(text, file).run();
}

}  // namespace canopy::topo

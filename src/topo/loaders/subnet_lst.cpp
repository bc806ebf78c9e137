// OpenSM's opensm-subnet.lst: one line per link and direction, both ends in full
// (a single line in the file):
//
//   { CA Ports:02 SystemGUID:0000000000100000 NodeGUID:0000000000100000
//     PortGUID:0000000000100001 VenID:000000 DevID:0000 Rev:000000A1 {H1} LID:0002
//     PN:01 } { SW-SM Ports:08 ... {S1} LID:0001 PN:01 } PHY=4x LOG=ACT SPD=2.5
//
// OpenSM prints Ports, LID and PN with "%02X"/"%04X", so they are hexadecimal:
// "Ports:24" is a 36-port switch. A switch's LID and PortGUID are those of its
// port 0. "-SM" marks the node running the subnet manager. The description is
// free text and ends at the first "} LID:". SPD is the lane signalling rate.
//
// Since OpenSM lists every link from both ends, a link seen from one end only
// means lines were lost, and is an error.
#include <optional>
#include <unordered_map>

#include "common/error.h"
#include "common/text.h"
#include "topo/loaders/loaders.h"

namespace canopy::topo {
namespace {

constexpr uint64_t kMaxUnicastLid = 0xBFFF;

struct Endpoint {
  NodeType type = NodeType::Host;
  uint64_t num_ports = 0, node_guid = 0, port_guid = 0, lid = 0, port = 0;
  std::string_view description;
};


/** "CA", "SW", "RT", each possibly with "-SM". */
bool parse_node_type(std::string_view text, NodeType &type) {
  if (text.size() > 3 && text.substr(2) == "-SM") text = text.substr(0, 2);
  if (text == "CA") type = NodeType::Host;
  else if (text == "SW") type = NodeType::Switch;
  else if (text == "RT") type = NodeType::Router;
  else return false;
  return true;
}

/** PHY: "1x" .. "12x"; "??" (unknown) gives 0. */
bool parse_width(std::string_view text, int &width) {
  uint64_t lanes = 0;
  if (text == "??") {
    width = 0;
    return true;
  }
  if (text.size() < 2 || text.back() != 'x' || !parse_uint(text.substr(0, text.size() - 1), lanes, 10)) return false;
  if (lanes != 1 && lanes != 2 && lanes != 4 && lanes != 8 && lanes != 12) return false;
  width = static_cast<int>(lanes);
  return true;
}

/** SPD: the lane signalling rate in Gb/s ("2.5" .. "100"), "FDR10", or "??". */
bool parse_signal_speed(std::string_view text, LinkSpeed &speed) {
  double gbps = 0;
  if (text == "??") speed = LinkSpeed::Unknown;
  else if (text == "FDR10") speed = LinkSpeed::FDR10;
  else if (parse_double(text, gbps)) speed = speed_from_signal_gbps(gbps);
  else return false;
  return speed != LinkSpeed::Unknown || text == "??";
}

class SubnetParser {
 public:
  SubnetParser(std::string_view text, const std::string &file) : cursor_(text), file_(file) {}

  Topology run() {
    std::string_view line;
    while (cursor_.next(line)) {
      std::string_view rest = trim(line);
      if (!rest.empty()) parse_line(rest);
    }
    if (topo_.links().empty()) throw parse_error(file_, 1, "no links found (empty file?)");
    check_both_directions();
    topo_.set_source("subnet-lst:" + file_);
    topo_.finalize();
    return std::move(topo_);
  }

 private:
  [[noreturn]] void fail(const std::string &what) const { throw parse_error(file_, cursor_.number(), what); }

  void parse_line(std::string_view rest) {
    Endpoint a = parse_endpoint(rest);
    Endpoint b = parse_endpoint(rest);
    LinkRate rate = parse_link_state(rest);
    int node_a = node_for(a);
    int node_b = node_for(b);
    try {
      topo_.connect(node_a, static_cast<int>(a.port), node_b, static_cast<int>(b.port), rate);
    } catch (const Error &e) {
      fail(e.what());
    }
    size_t &listed = listed_at_[static_cast<size_t>(node_a)][a.port];
    if (listed)
      fail("the link on " + describe(node_a, a.port) + " is listed twice from this side (first on line " +
           std::to_string(listed) + ")");
    listed = cursor_.number();
  }

  Endpoint parse_endpoint(std::string_view &rest) {
    std::string_view at = trim(rest);
    if (take_token(rest) != "{") fail("expected '{' to open a node record, found '" + printable(at) + "'");
    Endpoint e;
    std::string_view type = take_token(rest);
    if (!parse_node_type(type, e.type))
      fail("unknown node type '" + printable(type) + "'" + " (expected CA, SW or RT, possibly with -SM)");
    e.num_ports = hex_field(rest, "Ports");
    hex_field(rest, "SystemGUID");
    e.node_guid = hex_field(rest, "NodeGUID");
    e.port_guid = hex_field(rest, "PortGUID");
    for (std::string_view key : {"VenID", "DevID", "Rev"}) hex_field(rest, key);
    rest = trim(rest);
    size_t close = rest.find("} LID:");
    if (rest.empty() || rest[0] != '{' || close == std::string_view::npos)
      fail("expected '{description} LID:' after Rev:, found '" + printable(rest) + "'");
    e.description = rest.substr(1, close - 1);
    rest.remove_prefix(close + 1);
    e.lid = hex_field(rest, "LID");
    e.port = hex_field(rest, "PN");
    if (take_token(rest) != "}") fail("expected '}' to close the record of node '" + printable(e.description) + "'");
    check_endpoint(e);
    return e;
  }

  /** "KEY:hex" as the next token of @p rest. */
  uint64_t hex_field(std::string_view &rest, std::string_view key) {
    std::string_view token = take_token(rest);
    uint64_t value = 0;
    if (token.size() <= key.size() || token.substr(0, key.size()) != key || token[key.size()] != ':' ||
        !parse_hex(token.substr(key.size() + 1), value))
      fail("expected " + std::string(key) + ":<hex>, found '" + printable(token) + "'");
    return value;
  }

  void check_endpoint(const Endpoint &e) const {
    auto who = [&] { return "node " + guid_string(e.node_guid) + " "; };
    if (e.num_ports < 1 || e.num_ports > 254)
      fail(who() + "has " + std::to_string(e.num_ports) + " ports (InfiniBand allows 1 to 254)");
    if (e.port < 1 || e.port > e.num_ports)
      fail(who() + "has no port " + std::to_string(e.port) + " (it has " + std::to_string(e.num_ports) + ")");
    if (e.lid > kMaxUnicastLid) fail(who() + "has LID " + std::to_string(e.lid) + ", above the unicast range");
  }

  /** PHY=4x LOG=ACT SPD=2.5 (LOG, the logical state, does not matter here). */
  LinkRate parse_link_state(std::string_view rest) {
    std::optional<std::string_view> width_text, speed_text;
    for (std::string_view field : split_fields(rest)) {
      size_t eq = field.find('=');
      if (eq == std::string_view::npos) fail("expected KEY=VALUE after the node records, found '" + printable(field) + "'");
      if (field.substr(0, eq) == "PHY") width_text = field.substr(eq + 1);
      if (field.substr(0, eq) == "SPD") speed_text = field.substr(eq + 1);
    }
    if (!width_text || !speed_text) fail("the link has no PHY= width or no SPD= speed");
    int width = 0;
    LinkSpeed speed = LinkSpeed::Unknown;
    if (!parse_width(*width_text, width)) fail("unknown link width PHY='" + printable(*width_text) + "'");
    if (!parse_signal_speed(*speed_text, speed)) fail("unknown lane speed SPD='" + printable(*speed_text) + "'");
    return ib_rate(width, speed);
  }

  /** The node of @p e, added on its first appearance and checked against it after. */
  int node_for(const Endpoint &e) {
    auto [it, added] = node_by_guid_.try_emplace(e.node_guid, 0);
    if (added) {
      it->second = topo_.add_node(e.type, e.node_guid, std::string(e.description), static_cast<int>(e.num_ports));
      listed_at_.emplace_back(e.num_ports + 1, 0);
    }
    Node &node = topo_.node(it->second);
    if (node.type != e.type || node.num_ports() != static_cast<int>(e.num_ports))
      fail("node " + guid_string(e.node_guid) + " has a different type or port count than on an earlier line");
    // A switch's LID and port GUID belong to its port 0; an end port has its own.
    Port &port = node.ports[node.is_switch() ? 0 : e.port];
    set_once(port.lid, e.lid, "LID", e);
    set_once(port.guid, e.port_guid, "PortGUID", e);
    if (node.is_switch()) {
      node.lid = port.lid;
      node.ports[e.port].guid = port.guid;
    }
    return it->second;
  }

  template <class T>
  void set_once(T &slot, uint64_t value, const char *what, const Endpoint &e) const {
    if (slot != 0 && slot != value)
      fail(std::string(what) + " of node " + guid_string(e.node_guid) + " port " + std::to_string(e.port) +
           " differs from an earlier line");
    slot = static_cast<T>(value);
  }

  void check_both_directions() const {
    for (const Link &link : topo_.links()) {
      size_t a = listed_at_[static_cast<size_t>(link.node_a)][static_cast<size_t>(link.port_a)];
      size_t b = listed_at_[static_cast<size_t>(link.node_b)][static_cast<size_t>(link.port_b)];
      if (a == 0 || b == 0)
        throw parse_error(file_, a ? a : b,
                          "the link " + describe(link.node_a, link.port_a) + " - " +
                              describe(link.node_b, link.port_b) +
                              " is listed from one end only (OpenSM lists both; truncated file?)");
    }
  }

  std::string describe(int node, uint64_t port) const {
    return "'" + topo_.node(node).description + "' port " + std::to_string(port);
  }

  LineCursor cursor_;
  const std::string &file_;
  Topology topo_;
  std::unordered_map<uint64_t, int> node_by_guid_;
  std::vector<std::vector<size_t>> listed_at_;  // [node][port]: line listing the link from that end; 0: none
};

}  // namespace

Topology load_subnet_lst(std::string_view text, const std::string &file) { return SubnetParser(text, file).run(); }

}  // namespace canopy::topo

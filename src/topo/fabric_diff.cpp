#include "topo/fabric_diff.h"

#include <algorithm>
#include <cstdint>

#include "common/text.h"

namespace canopy::topo {
namespace {

// LIDs above the highest one in use that are still compared: a port with LMC
// 7 answers to 128 LIDs from its base LID, and the model keeps only the base.
constexpr uint32_t kLmcSlack = 128;
constexpr uint32_t kMaxUnicastLid = 0xBFFF;

std::string who(const Node &node) { return "'" + node.name + "' (" + guid_string(node.guid) + ")"; }

// The node whose node GUID is @p guid, or -1 (find_guid also matches port GUIDs).
int node_with_guid(const Topology &fabric, uint64_t guid) {
  int n = fabric.find_guid(guid);
  return n >= 0 && fabric.node(n).guid == guid ? n : -1;
}

uint64_t peer_guid(const Topology &fabric, const Port &port) {
  return port.connected() ? fabric.node(port.peer_node).guid : 0;
}

std::string port_text(const Topology &fabric, const Port &port) {
  if (!port.connected()) return "unconnected";
  return "linked to '" + fabric.node(port.peer_node).name + "'[" + std::to_string(port.peer_port) + "] at " +
         rate_string(port.rate);
}

std::string egress_text(uint8_t port) {
  return port == Topology::kNoPort ? "none" : "port " + std::to_string(port);
}

uint32_t highest_lid(const Topology &fabric) {
  uint32_t top = 0;
  for (const Node &node : fabric.nodes()) {
    top = std::max(top, node.lid);
    for (const Port &port : node.ports) top = std::max(top, port.lid);
  }
  return top;
}

class Differ {
 public:
  Differ(const Topology &before, const Topology &after, size_t max_items)
      : a_(before), b_(after), max_items_(max_items) {}

  FabricDiff run() {
    for (const Node &node : a_.nodes()) {
      int other = node_with_guid(b_, node.guid);
      if (other < 0)
        note("node " + who(node) + " is gone");
      else
        compare_node(node, b_.node(other));
    }
    for (const Node &node : b_.nodes())
      if (node_with_guid(a_, node.guid) < 0) note("new node " + who(node));
    compare_tables();
    return std::move(diff_);
  }

 private:
  void note(std::string what) {
    if (diff_.items.size() < max_items_) diff_.items.push_back(std::move(what));
    ++diff_.total;
  }

  void compare_node(const Node &x, const Node &y) {
    if (x.type != y.type) note(who(x) + " changed its node type");
    if (x.description != y.description) note(who(x) + " is now described as '" + y.description + "'");
    if (x.lid != y.lid) note(who(x) + ": LID " + std::to_string(x.lid) + ", now " + std::to_string(y.lid));
    if (x.num_ports() != y.num_ports())
      note(who(x) + ": " + std::to_string(x.num_ports()) + " ports, now " + std::to_string(y.num_ports()));
    size_t ports = std::min(x.ports.size(), y.ports.size());
    for (size_t p = 0; p < ports; ++p) compare_port(x, p, x.ports[p], y.ports[p]);
  }

  void compare_port(const Node &node, size_t number, const Port &p, const Port &q) {
    std::string at = who(node) + " port " + std::to_string(number);
    if (p.lid != q.lid) note(at + ": LID " + std::to_string(p.lid) + ", now " + std::to_string(q.lid));
    if (p.guid != q.guid) note(at + ": port GUID " + guid_string(p.guid) + ", now " + guid_string(q.guid));
    bool same_peer = peer_guid(a_, p) == peer_guid(b_, q) && p.peer_port == q.peer_port;
    if (!same_peer || (p.connected() && !(p.rate == q.rate)))
      note(at + ": " + port_text(a_, p) + ", now " + port_text(b_, q));
  }

  void compare_tables() {
    uint32_t top = std::min(std::max(highest_lid(a_), highest_lid(b_)) + kLmcSlack, kMaxUnicastLid);
    for (int s : a_.switches()) {
      int t = node_with_guid(b_, a_.node(s).guid);
      if (t < 0 || !b_.node(t).is_switch()) continue;  // noted with the nodes
      size_t changed = 0;
      uint32_t first = 0;
      for (uint32_t lid = 1; lid <= top; ++lid) {
        if (a_.forwarding_port(s, lid) == b_.forwarding_port(t, lid)) continue;
        if (changed++ == 0) first = lid;
      }
      if (changed == 0) continue;
      note("forwarding table of " + who(a_.node(s)) + ": " + std::to_string(changed) + " LID(s) changed (LID " +
           std::to_string(first) + ": " + egress_text(a_.forwarding_port(s, first)) + ", now " +
           egress_text(b_.forwarding_port(t, first)) + ")");
    }
  }

  const Topology &a_, &b_;
  size_t max_items_;
  FabricDiff diff_;
};

}  // namespace

std::string FabricDiff::summary() const {
  if (same()) return "no difference";
  std::string text;
  for (const std::string &item : items) text += (text.empty() ? "" : "; ") + item;
  if (total > items.size()) text += " (and " + std::to_string(total - items.size()) + " more)";
  return text;
}

FabricDiff diff_fabrics(const Topology &before, const Topology &after, size_t max_items) {
  return Differ(before, after, max_items).run();
}

}  // namespace canopy::topo

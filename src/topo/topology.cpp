#include "topo/topology.h"

#include <algorithm>
#include <cstdlib>
#include <deque>

#include "common/error.h"
#include "common/text.h"

namespace canopy::topo {

int TorusShape::distance(const std::vector<int> &a, const std::vector<int> &b) const {
  int total = 0;
  for (size_t d = 0; d < dims.size() && d < a.size() && d < b.size(); ++d) {
    int delta = std::abs(a[d] - b[d]);
    if (wrap[d]) delta = std::min(delta, dims[d] - delta);
    total += delta;
  }
  return total;
}

int Topology::add_node(NodeType type, uint64_t guid, std::string description, int num_ports) {
  if (num_ports < 0 || num_ports > 254)
    throw Error(CANOPY_ERR_PARSE, "node '" + description + "' has " + std::to_string(num_ports) +
                                      " ports (InfiniBand allows 1 to 254)");
  Node node;
  node.type = type;
  node.guid = guid;
  node.description = std::move(description);
  node.ports.resize(static_cast<size_t>(num_ports) + 1);
  nodes_.push_back(std::move(node));
  return static_cast<int>(nodes_.size()) - 1;
}

void Topology::connect(int node_a, int port_a, int node_b, int port_b, LinkRate rate) {
  auto check = [&](int n, int p) {
    if (n < 0 || n >= static_cast<int>(nodes_.size()) || p < 1 || p > nodes_[n].num_ports())
      throw Error(CANOPY_ERR_PARSE, "port " + std::to_string(p) + " does not exist on node '" +
                                        (n >= 0 && n < static_cast<int>(nodes_.size()) ? nodes_[n].description : "?") + "'");
  };
  check(node_a, port_a);
  check(node_b, port_b);
  Port &a = nodes_[node_a].ports[port_a];
  Port &b = nodes_[node_b].ports[port_b];
  if (a.peer_node == node_b && a.peer_port == port_b && b.peer_node == node_a && b.peer_port == port_a) return;
  auto describe = [&](int n, int p) { return "'" + nodes_[n].description + "' port " + std::to_string(p); };
  if (a.connected() || b.connected())
    throw Error(CANOPY_ERR_PARSE, "link " + describe(node_a, port_a) + " - " + describe(node_b, port_b) +
                                      " conflicts with an earlier link on " +
                                      (a.connected() ? describe(node_a, port_a) : describe(node_b, port_b)));
  if (node_a == node_b && port_a == port_b)
    throw Error(CANOPY_ERR_PARSE, "link " + describe(node_a, port_a) + " loops back to itself");
  a.peer_node = node_b;
  a.peer_port = port_b;
  a.rate = rate;
  b.peer_node = node_a;
  b.peer_port = port_a;
  b.rate = rate;
  links_.push_back({node_a, port_a, node_b, port_b, rate});
}

void Topology::set_forwarding_table(int switch_node, std::vector<uint8_t> lid_to_port) {
  if (lfts_.size() < nodes_.size()) lfts_.resize(nodes_.size());
  auto &lft = lfts_[static_cast<size_t>(switch_node)];
  if (lft.empty() && !lid_to_port.empty()) ++num_forwarding_tables_;
  if (!lft.empty() && lid_to_port.empty()) --num_forwarding_tables_;
  lft = std::move(lid_to_port);
}

uint8_t Topology::forwarding_port(int switch_node, uint32_t lid) const {
  if (static_cast<size_t>(switch_node) >= lfts_.size()) return kNoPort;
  const auto &lft = lfts_[static_cast<size_t>(switch_node)];
  return lid < lft.size() ? lft[lid] : kNoPort;
}

namespace {
// The host name is the first word of the node description ("node001 HCA-1" -> "node001").
std::string host_name_of(const Node &node) {
  std::string_view d = trim(node.description);
  size_t space = d.find_first_of(" \t");
  return std::string(space == std::string_view::npos ? d : d.substr(0, space));
}
}  // namespace

void Topology::finalize() {
  hosts_.clear();
  switches_.clear();
  host_by_name_.clear();
  node_by_guid_.clear();
  port_by_lid_.clear();
  for (int i = 0; i < static_cast<int>(nodes_.size()); ++i) {
    Node &n = nodes_[i];
    n.name = n.is_host() ? host_name_of(n) : n.description;
    if (n.name.empty()) n.name = guid_string(n.guid);
    if (n.is_host()) hosts_.push_back(i);
    if (n.is_switch()) switches_.push_back(i);
    node_by_guid_.emplace(n.guid, i);
    for (int p = 0; p <= n.num_ports(); ++p) {
      const Port &port = n.ports[p];
      if (port.guid) node_by_guid_.emplace(port.guid, i);
      if (port.lid) {
        if (port_by_lid_.size() <= port.lid) port_by_lid_.resize(port.lid + 1, {-1, 0});
        port_by_lid_[port.lid] = {i, p};
      }
    }
    if (n.is_switch() && n.lid) {
      if (port_by_lid_.size() <= n.lid) port_by_lid_.resize(n.lid + 1, {-1, 0});
      port_by_lid_[n.lid] = {i, 0};
    }
    if (n.is_host() && !n.lid)
      for (const Port &port : n.ports)
        if (port.connected() && port.lid) { n.lid = port.lid; break; }
  }
  // Hosts whose whole description another host shares (unconfigured HCAs all say "MT4099
  // ConnectX3 Mellanox Technologies") cannot be told apart by it: they are named by their GUID,
  // and the shared description finds none of them. (A node's two HCAs, "node017 HCA-1" and
  // "node017 HCA-2", share only the name, which finds the first.)
  std::unordered_map<std::string, int> sharing;
  for (int h : hosts_) ++sharing[nodes_[h].description];
  for (int h : hosts_) {
    Node &n = nodes_[h];
    if (sharing[n.description] > 1) {
      n.name = guid_string(n.guid);
    } else {
      host_by_name_.emplace(n.description, h);
    }
    host_by_name_.emplace(n.name, h);
  }

  // Switch levels: 1 for switches with a host attached, then one more per step away.
  std::deque<int> queue;
  for (int s : switches_) {
    Node &sw = nodes_[s];
    sw.level = 0;
    for (const Port &port : sw.ports)
      if (port.connected() && nodes_[port.peer_node].is_host()) { sw.level = 1; break; }
    if (sw.level == 1) queue.push_back(s);
  }
  while (!queue.empty()) {
    int s = queue.front();
    queue.pop_front();
    for (const Port &port : nodes_[s].ports) {
      if (!port.connected()) continue;
      Node &peer = nodes_[port.peer_node];
      if (peer.is_switch() && peer.level == 0) {
        peer.level = nodes_[s].level + 1;
        queue.push_back(port.peer_node);
      }
    }
  }
}

int Topology::find_host(std::string_view key) const {
  if (auto it = host_by_name_.find(std::string(key)); it != host_by_name_.end()) return it->second;
  uint64_t guid = 0;
  if (starts_with(key, "0x") && parse_uint(key, guid)) {
    int n = find_guid(guid);
    if (n >= 0 && nodes_[n].is_host()) return n;
  }
  return -1;
}

int Topology::find_guid(uint64_t guid) const {
  auto it = node_by_guid_.find(guid);
  return it == node_by_guid_.end() ? -1 : it->second;
}

std::pair<int, int> Topology::find_lid(uint32_t lid) const {
  return lid < port_by_lid_.size() ? port_by_lid_[lid] : std::pair<int, int>{-1, 0};
}

}  // namespace canopy::topo

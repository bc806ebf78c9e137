// The in-memory topology model: nodes (hosts and switches) with numbered
// ports, the links between ports with their rates, LIDs and GUIDs, the
// switches' linear forwarding tables when known, and torus coordinates when the
// source is a torus. Loaders build it with add_node/connect/set_forwarding_table
// and then call finalize(); after that it is immutable and thread-safe to query.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "topo/link_rate.h"

namespace canopy::topo {

enum class NodeType : uint8_t { Host, Switch, Router };

struct Port {
  uint64_t guid = 0;   // port GUID (a switch's ports share the switch's node GUID)
  uint32_t lid = 0;    // end ports: the port's LID; switch ports: only port 0 has one
  int peer_node = -1;  // -1: not connected
  int peer_port = 0;
  LinkRate rate;       // rate of the link on this port

  bool connected() const { return peer_node >= 0; }
};

struct Node {
  NodeType type = NodeType::Host;
  uint64_t guid = 0;
  std::string name;          // hosts: host name (first word of the description, or the GUID where
                             // another host has the same description); others: description
  std::string description;   // node description as the source gives it
  uint32_t lid = 0;          // switches: base LID (port 0); hosts: LID of the first connected port
  std::vector<Port> ports;   // indexed by port number; ports[0] is a switch's management port
  int level = 0;             // switches: 1 = leaf (hosts attached), 2, 3, ... upward; 0 otherwise
  std::vector<int> coords;   // torus/mesh position (coordinate sources only)

  int num_ports() const { return static_cast<int>(ports.size()) - 1; }
  /** The lowest-numbered cabled port (a host's link to the fabric), 0 if none. */
  int first_connected_port() const {
    for (int p = 1; p <= num_ports(); ++p)
      if (ports[p].connected()) return p;
    return 0;
  }
  bool is_host() const { return type == NodeType::Host; }
  bool is_switch() const { return type == NodeType::Switch; }
};

struct Link {
  int node_a, port_a, node_b, port_b;
  LinkRate rate;
};

/** Torus or mesh shape of a coordinate source. */
struct TorusShape {
  std::vector<int> dims;
  std::vector<bool> wrap;  // per dimension: wrap-around link (torus) or not (mesh)

  /** Minimal number of router-to-router links between two positions. */
  int distance(const std::vector<int> &a, const std::vector<int> &b) const;
};

class Topology {
 public:
  static constexpr uint8_t kNoPort = 255;  // forwarding table entry: LID not routed

  // ---- building (loaders) ----
  int add_node(NodeType type, uint64_t guid, std::string description, int num_ports);
  Node &node(int index) { return nodes_[static_cast<size_t>(index)]; }
  /** Connects two ports (both directions). Throws Error(PARSE) if either port is
      already connected elsewhere or out of range; reconnecting the same pair is a no-op. */
  void connect(int node_a, int port_a, int node_b, int port_b, LinkRate rate);
  /** lid_to_port[lid] = egress port, kNoPort where the switch has no entry. */
  void set_forwarding_table(int switch_node, std::vector<uint8_t> lid_to_port);
  void set_torus(TorusShape shape) { torus_ = std::move(shape); }
  void set_source(std::string source) { source_ = std::move(source); }
  /** Builds the lookup indexes and switch levels; call after building. Idempotent. */
  void finalize();

  // ---- queries ----
  const std::vector<Node> &nodes() const { return nodes_; }
  const Node &node(int index) const { return nodes_[static_cast<size_t>(index)]; }
  const std::vector<Link> &links() const { return links_; }
  const std::vector<int> &hosts() const { return hosts_; }
  const std::vector<int> &switches() const { return switches_; }
  const std::string &source() const { return source_; }
  const std::optional<TorusShape> &torus() const { return torus_; }

  /** A host by name (the first host of that name), full description, or node/port GUID
      ("0x..."); -1 if none, or for a description several hosts share. */
  int find_host(std::string_view key) const;
  /** The switch @p host hangs from by its first link; -1 if it has none (unconnected,
      or cabled to another host). */
  int leaf_switch(int host) const {
    int port = node(host).first_connected_port();
    int peer = port ? node(host).ports[port].peer_node : -1;
    return peer >= 0 && node(peer).is_switch() ? peer : -1;
  }
  /** A node by node GUID or port GUID; -1 if none. */
  int find_guid(uint64_t guid) const;
  /** The (node, port) owning @p lid; node -1 if none. */
  std::pair<int, int> find_lid(uint32_t lid) const;

  bool has_forwarding_tables() const { return num_forwarding_tables_ > 0; }
  /** Egress port of @p switch_node for @p lid, or kNoPort. */
  uint8_t forwarding_port(int switch_node, uint32_t lid) const;
  int num_forwarding_tables() const { return num_forwarding_tables_; }

 private:
  std::vector<Node> nodes_;
  std::vector<Link> links_;
  std::vector<int> hosts_, switches_;
  std::vector<std::vector<uint8_t>> lfts_;  // per node index; empty for non-switches
  int num_forwarding_tables_ = 0;
  std::optional<TorusShape> torus_;
  std::string source_;
  std::unordered_map<std::string, int> host_by_name_;
  std::unordered_map<uint64_t, int> node_by_guid_;
  std::vector<std::pair<int, int>> port_by_lid_;
};

}  // namespace canopy::topo

// Builds small fabrics through the Topology API for model tests (no parser involved).
#pragma once
#include <string>
#include <vector>

#include "topo/topology.h"

namespace canopy::test {

struct FabricBuilder {
  topo::Topology topo;
  uint32_t next_lid = 1;
  uint64_t next_guid = 0x1000;

  int add_switch(const std::string &name, int ports = 16) {
    int s = topo.add_node(topo::NodeType::Switch, next_guid++, name, ports);
    topo.node(s).lid = topo.node(s).ports[0].lid = next_lid++;
    topo.node(s).ports[0].guid = topo.node(s).guid;
    return s;
  }
  int add_host(const std::string &name, int sw, int sw_port, topo::LinkRate rate = topo::ib_rate(4, topo::LinkSpeed::QDR)) {
    int h = topo.add_node(topo::NodeType::Host, next_guid++, name + " HCA-1", 1);
    topo.node(h).ports[1].guid = next_guid++;
    topo.node(h).ports[1].lid = next_lid++;
    topo.connect(h, 1, sw, sw_port, rate);
    return h;
  }
  void link(int a, int pa, int b, int pb, topo::LinkRate rate = topo::ib_rate(4, topo::LinkSpeed::QDR)) {
    topo.connect(a, pa, b, pb, rate);
  }
  /** Sets @p sw's forwarding entry for @p host's LID. */
  void forward(int sw, int host, int port) {
    std::vector<uint8_t> lft(64, topo::Topology::kNoPort);
    for (uint32_t lid = 0; lid < 64; ++lid) lft[lid] = topo.forwarding_port(sw, lid);
    lft[topo.node(host).ports[1].lid] = static_cast<uint8_t>(port);
    topo.set_forwarding_table(sw, lft);
  }
};

/** Two leaves (ports 1-2: hosts, 3: spine A, 4: spine B), two spines (port 1: leaf 1,
    port 2: leaf 2), hosts h1 h2 on leaf 1 and h3 h4 on leaf 2. */
struct TwoLevelFatTree : FabricBuilder {
  int leaf1, leaf2, spine_a, spine_b, h1, h2, h3, h4;
  TwoLevelFatTree() {
    leaf1 = add_switch("leaf1");
    leaf2 = add_switch("leaf2");
    spine_a = add_switch("spineA");
    spine_b = add_switch("spineB");
    h1 = add_host("h1", leaf1, 1);
    h2 = add_host("h2", leaf1, 2);
    h3 = add_host("h3", leaf2, 1);
    h4 = add_host("h4", leaf2, 2);
    link(leaf1, 3, spine_a, 1);
    link(leaf1, 4, spine_b, 1);
    link(leaf2, 3, spine_a, 2);
    link(leaf2, 4, spine_b, 2);
    topo.finalize();
  }
  /** Up/down routing: leaf-local hosts direct, others through spine B. */
  void route_all_through_spine_b() {
    for (int h : {h1, h2}) {
      forward(leaf1, h, h == h1 ? 1 : 2);
      forward(leaf2, h, 4);
      forward(spine_a, h, 1);
      forward(spine_b, h, 1);
    }
    for (int h : {h3, h4}) {
      forward(leaf2, h, h == h3 ? 1 : 2);
      forward(leaf1, h, 4);
      forward(spine_a, h, 2);
      forward(spine_b, h, 2);
    }
    topo.finalize();
  }
};

}  // namespace canopy::test

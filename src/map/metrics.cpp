#include "map/metrics.h"

#include <algorithm>
#include <string>
#include <unordered_map>

#include "common/error.h"
#include "topo/routes.h"

namespace canopy::map {
namespace {

void summarize_link_loads(const LinkLoads &loads, Metrics &m) {
  double sum = 0;
  for (double b : loads.all())
    if (b > 0) sum += b, ++m.links_used, m.max_link_bytes = std::max(m.max_link_bytes, b);
  m.average_link_bytes = m.links_used ? sum / m.links_used : 0;
}

// What every directed link carries when vertex v of @p g is on host host_of[v]:
// each edge's bytes, half each way, along the fabric's route between the hosts.
LinkLoads host_link_loads(const CommGraph &g, const Machine &m, const std::vector<int> &host_of) {
  std::vector<std::unordered_map<int, double>> pair_bytes(static_cast<size_t>(m.num_hosts()));  // [from][to]
  for (int v = 0; v < g.num_vertices(); ++v)
    for (int64_t i = g.row_begin(v); i < g.row_end(v); ++i) {
      int hv = host_of[static_cast<size_t>(v)], hu = host_of[static_cast<size_t>(g.neighbor(i))];
      if (hv != hu) pair_bytes[static_cast<size_t>(hv)][hu] += g.weight(i) / 2;  // each edge is seen from both ends
    }
  LinkLoads loads(m.topology());
  for (int h = 0; h < m.num_hosts(); ++h) {
    if (pair_bytes[static_cast<size_t>(h)].empty()) continue;
    topo::RouteFinder finder(m.topology(), m.host_nodes()[static_cast<size_t>(h)]);
    for (const auto &[to, bytes] : pair_bytes[static_cast<size_t>(h)])
      loads.add(finder.to(m.host_nodes()[static_cast<size_t>(to)]), bytes);
  }
  return loads;
}

}  // namespace

LinkLoads::LinkLoads(const topo::Topology &topo) : offset_(topo.nodes().size() + 1, 0) {
  for (size_t n = 0; n < topo.nodes().size(); ++n) offset_[n + 1] = offset_[n] + topo.node(static_cast<int>(n)).ports.size();
  bytes_.assign(offset_.back(), 0);
}

void LinkLoads::add(const topo::Route &route, double bytes) {
  for (size_t i = 0; i + 1 < route.hops.size(); ++i)
    bytes_[offset_[static_cast<size_t>(route.hops[i].node)] + static_cast<size_t>(route.hops[i].out_port)] += bytes;
}

void check_placement(const Problem &p, const std::vector<int> &slot_of) {
  if (static_cast<int>(slot_of.size()) != p.graph.num_vertices())
    throw Error(CANOPY_ERR_INVALID_ARG, "placement of " + std::to_string(slot_of.size()) + " processes for a graph of " +
                                            std::to_string(p.graph.num_vertices()));
  std::vector<char> used(static_cast<size_t>(p.machine.num_slots()), 0);
  for (size_t v = 0; v < slot_of.size(); ++v) {
    int s = slot_of[v];
    if (s < 0 || s >= p.machine.num_slots() || used[static_cast<size_t>(s)]++)
      throw Error(CANOPY_ERR_INVALID_ARG, "process " + std::to_string(v) + " has slot " + std::to_string(s) +
                                              ", which does not exist or is taken");
  }
}

Metrics evaluate(const Problem &p, const std::vector<int> &slot_of) {
  check_placement(p, slot_of);
  const CommGraph &g = p.graph;
  const Machine &m = p.machine;
  Metrics out;
  out.routes = topo::route_method_name(topo::route_method(m.topology()));
  out.total_bytes = g.total_bytes();
  // Sockets are hwloc packages; a node without any (some exports have only NUMA
  // nodes and groups) has none to cross: the metric stays null, not 0.
  const NodeLayout *node = m.node() ? &*m.node() : nullptr;
  bool sockets = node && std::any_of(node->slot_package.begin(), node->slot_package.end(), [](int p) { return p >= 0; });
  if (sockets) out.cross_socket_bytes = 0;
  std::vector<int> host_of = m.hosts_of(slot_of);
  for (int v = 0; v < g.num_vertices(); ++v)
    for (int64_t i = g.row_begin(v); i < g.row_end(v); ++i) {
      int u = g.neighbor(i);
      if (u < v) continue;
      int sv = slot_of[static_cast<size_t>(v)], su = slot_of[static_cast<size_t>(u)];
      int hv = host_of[static_cast<size_t>(v)], hu = host_of[static_cast<size_t>(u)];
      double w = g.weight(i);
      if (hv == hu) {
        out.intra_node_bytes += w;
        if (sockets && node->slot_package[static_cast<size_t>(m.local_slot(sv))] !=
                           node->slot_package[static_cast<size_t>(m.local_slot(su))])
          out.cross_socket_bytes += w;
        continue;
      }
      out.inter_node_bytes += w;
      out.hop_bytes += w * m.hops(hv, hu);
      out.max_dilation = std::max(out.max_dilation, m.hops(hv, hu));
    }
  out.average_dilation = out.total_bytes > 0 ? out.hop_bytes / out.total_bytes : 0;
  out.link_loads = host_link_loads(g, m, host_of);
  summarize_link_loads(out.link_loads, out);
  return out;
}

double busiest_link_bytes(const CommGraph &g, const Machine &m, const std::vector<int> &host_of) {
  LinkLoads loads = host_link_loads(g, m, host_of);
  return loads.all().empty() ? 0 : *std::max_element(loads.all().begin(), loads.all().end());
}

nlohmann::json metrics_json(const Metrics &m) {
  nlohmann::json j = {{"routes", m.routes},
                      {"total_bytes", m.total_bytes},
                      {"inter_node_bytes", m.inter_node_bytes},
                      {"intra_node_bytes", m.intra_node_bytes},
                      {"hop_bytes", m.hop_bytes},
                      {"max_dilation", m.max_dilation},
                      {"average_dilation", m.average_dilation},
                      {"max_link_bytes", m.max_link_bytes},
                      {"average_link_bytes", m.average_link_bytes},
                      {"links_used", m.links_used}};
  j["cross_socket_bytes"] = m.cross_socket_bytes >= 0 ? nlohmann::json(m.cross_socket_bytes) : nlohmann::json(nullptr);
  return j;
}

}  // namespace canopy::map

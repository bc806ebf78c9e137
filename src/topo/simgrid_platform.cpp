#include "topo/simgrid_platform.h"

#include <cstdio>
#include <unordered_map>

#include "common/error.h"
#include "common/file_io.h"
#include "common/log.h"
#include "common/text.h"
#include "topo/routes.h"

namespace canopy::topo {
namespace {

std::string xml_escaped(const std::string &s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string number(double value) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", value);
  return buf;
}

// A directed use of a cable: link index * 2, plus 1 when it is crossed from its
// b end to its a end (SimGrid's DOWN half of a SPLITDUPLEX link).
using LinkUse = int32_t;

// (node, port) -> the link on it and whether that port is the link's a end.
class PortLinks {
 public:
  explicit PortLinks(const Topology &topo) : first_port_(topo.nodes().size() + 1, 0) {
    for (size_t n = 0; n < topo.nodes().size(); ++n)
      first_port_[n + 1] = first_port_[n] + static_cast<size_t>(topo.node(static_cast<int>(n)).num_ports()) + 1;
    use_.assign(first_port_.back(), -1);
    for (size_t i = 0; i < topo.links().size(); ++i) {
      const Link &link = topo.links()[i];
      use_[slot(link.node_a, link.port_a)] = static_cast<LinkUse>(2 * i);
      use_[slot(link.node_b, link.port_b)] = static_cast<LinkUse>(2 * i + 1);
    }
  }
  /** How a packet leaving @p node through @p port uses its cable. */
  LinkUse leaving(int node, int port) const { return use_[slot(node, port)]; }

 private:
  size_t slot(int node, int port) const { return first_port_[static_cast<size_t>(node)] + static_cast<size_t>(port); }
  std::vector<size_t> first_port_;
  std::vector<LinkUse> use_;
};

// Every ordered route between the exported hosts, as link uses, row by row:
// route (i, j) is uses[offset[i*n+j] .. offset[i*n+j+1]).
struct RouteTable {
  size_t n = 0;
  std::vector<size_t> offset{0};
  std::vector<LinkUse> uses;

  const LinkUse *begin(size_t i, size_t j) const { return uses.data() + offset[i * n + j]; }
  size_t size(size_t i, size_t j) const { return offset[i * n + j + 1] - offset[i * n + j]; }
};

RouteTable all_routes(const Topology &topo, const std::vector<int> &hosts, const PortLinks &ports) {
  RouteTable table;
  table.n = hosts.size();
  table.offset.reserve(hosts.size() * hosts.size() + 1);
  for (int a : hosts) {
    RouteFinder finder(topo, a);
    for (int b : hosts) {
      if (a != b) {
        Route route = finder.to(b);
        for (size_t i = 0; i + 1 < route.hops.size(); ++i)
          table.uses.push_back(ports.leaving(route.hops[i].node, route.hops[i].out_port));
      }
      table.offset.push_back(table.uses.size());
    }
  }
  return table;
}

// True when route (j, i) crosses the same cables as (i, j) in reverse order and
// opposite direction: then one symmetrical <route> describes both exactly.
bool mirrored(const RouteTable &t, size_t i, size_t j) {
  size_t len = t.size(i, j);
  if (t.size(j, i) != len) return false;
  const LinkUse *there = t.begin(i, j), *back = t.begin(j, i);
  for (size_t k = 0; k < len; ++k)
    if (back[k] != (there[len - 1 - k] ^ 1)) return false;
  return true;
}

void append_route(std::string &xml, const std::string &src, const std::string &dst, const LinkUse *uses,
                  size_t len, bool symmetrical) {
  xml += "  <route src=\"" + src + "\" dst=\"" + dst + "\" symmetrical=\"" + (symmetrical ? "YES" : "NO") + "\">";
  for (size_t k = 0; k < len; ++k) {
    xml += "<link_ctn id=\"l" + std::to_string(uses[k] >> 1) + "\" direction=\"";
    xml += (uses[k] & 1) ? "DOWN\"/>" : "UP\"/>";
  }
  xml += "</route>\n";
}

void validate(const Topology &topo, const SimgridOptions &o) {
  if (!(o.link_latency_us >= 0)) throw Error(CANOPY_ERR_INVALID_ARG, "SimGrid link latency must be >= 0 us");
  if (!(o.host_speed_gflops > 0)) throw Error(CANOPY_ERR_INVALID_ARG, "SimGrid host speed must be > 0 Gflop/s");
  if (o.host_cores < 1) throw Error(CANOPY_ERR_INVALID_ARG, "SimGrid host cores must be >= 1");
  for (const Link &link : topo.links())
    if (!(link.rate.gbps > 0))
      throw Error(CANOPY_ERR_INVALID_ARG, "link " + topo.node(link.node_a).name + ":" + std::to_string(link.port_a) +
                                              " - " + topo.node(link.node_b).name + ":" +
                                              std::to_string(link.port_b) + " has no known rate");
}

// Switch names are descriptions and need not be unique; a name shared with any
// other node gets the GUID appended.
std::vector<std::string> router_ids(const Topology &topo) {
  std::unordered_map<std::string, int> uses;
  for (const Node &n : topo.nodes()) ++uses[n.name];
  std::vector<std::string> ids;
  for (int s : topo.switches()) {
    const Node &n = topo.node(s);
    ids.push_back(uses[n.name] == 1 ? n.name : n.name + "@" + guid_string(n.guid));
  }
  return ids;
}

}  // namespace

std::string simgrid_host_id(const Topology &topo, int host) {
  const Node &n = topo.node(host);
  return topo.find_host(n.name) == host ? n.name : n.name + "@" + guid_string(n.guid);
}

std::string simgrid_platform_xml(const Topology &topo, const SimgridOptions &options, SimgridPlatformStats *stats) {
  validate(topo, options);
  SimgridPlatformStats st;
  std::vector<int> hosts;
  for (int h : topo.hosts()) {
    if (topo.node(h).first_connected_port())
      hosts.push_back(h);
    else
      ++st.skipped_hosts;  // it cannot communicate; SMPI must not place ranks there
  }
  if (st.skipped_hosts)
    CANOPY_LOG(Warn, "SimGrid platform: %zu host(s) without a cabled port left out", st.skipped_hosts);
  PortLinks ports(topo);
  RouteTable routes = all_routes(topo, hosts, ports);

  // Provenance as zone properties, not a comment: a path may hold "--", which
  // no XML comment may contain.
  std::string xml =
      "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
      "<platform version=\"4.1\">\n<zone id=\"fabric\" routing=\"Full\">\n"
      "  <prop id=\"canopy_source\" value=\"" + xml_escaped(topo.source()) + "\"/>\n"
      "  <prop id=\"canopy_routes\" value=\"" + route_method_name(route_method(topo)) + "\"/>\n";
  std::vector<std::string> host_ids;
  for (int h : hosts) {
    host_ids.push_back(xml_escaped(simgrid_host_id(topo, h)));
    xml += "  <host id=\"" + host_ids.back() + "\" speed=\"" + number(options.host_speed_gflops) + "Gf\" core=\"" +
           std::to_string(options.host_cores) + "\"/>\n";
  }
  for (const std::string &id : router_ids(topo)) xml += "  <router id=\"" + xml_escaped(id) + "\"/>\n";
  for (size_t i = 0; i < topo.links().size(); ++i) {
    const Link &link = topo.links()[i];
    // UP = from the a end to the b end, as the "ends" property lists them.
    xml += "  <link id=\"l" + std::to_string(i) + "\" bandwidth=\"" + number(link.rate.gbps) + "Gbps\" latency=\"" +
           number(options.link_latency_us) + "us\" sharing_policy=\"SPLITDUPLEX\"><prop id=\"ends\" value=\"" +
           xml_escaped(topo.node(link.node_a).name + ":" + std::to_string(link.port_a) + " " +
                       topo.node(link.node_b).name + ":" + std::to_string(link.port_b) + " " + rate_string(link.rate)) +
           "\"/></link>\n";
  }
  for (size_t i = 0; i < hosts.size(); ++i)
    for (size_t j = 0; j < hosts.size(); ++j) {
      if (i == j) continue;  // SimGrid adds the loopback link itself
      bool symmetrical = mirrored(routes, i, j);
      if (symmetrical && j < i) continue;  // written with (j, i)
      append_route(xml, host_ids[i], host_ids[j], routes.begin(i, j), routes.size(i, j), symmetrical);
      ++st.routes;
      st.symmetric_routes += symmetrical;
    }
  xml += "</zone>\n</platform>\n";
  st.hosts = hosts.size();
  st.routers = topo.switches().size();
  st.links = topo.links().size();
  if (stats) *stats = st;
  return xml;
}

SimgridPlatformStats write_simgrid_platform(const Topology &topo, const SimgridOptions &options,
                                            const std::string &path) {
  SimgridPlatformStats stats;
  write_file_atomic(path, simgrid_platform_xml(topo, options, &stats));
  return stats;
}

}  // namespace canopy::topo

#include "topo/simgrid_platform.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <unordered_map>

#include "common/error.h"
#include "common/file_io.h"
#include "common/log.h"
#include "common/text.h"
#include "topo/routes.h"

namespace canopy::topo {
namespace {

// Where the platform's text goes: one string (simgrid_platform_xml), or a file a
// few megabytes at a time (write_simgrid_platform). The routes grow with the
// square of the hosts -- 1.2 GB of text for 2,048 hosts -- and need not sit in
// memory on their way to the file.
class XmlOut {
 public:
  explicit XmlOut(AtomicFile *file = nullptr) : file_(file) {}
  XmlOut &operator+=(const std::string &text) {
    text_ += text;
    if (file_ && text_.size() >= kChunk) flush();
    return *this;
  }
  void flush() {
    if (!file_) return;
    file_->write(text_);
    text_.clear();
  }
  std::string take() { return std::move(text_); }

 private:
  static constexpr size_t kChunk = size_t{4} << 20;
  AtomicFile *file_;
  std::string text_;
};

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

// One <route> (flat) or <zoneRoute> (between node zones): @p head is the element
// name with its src/dst(/gateway) attributes.
void append_route(XmlOut &out, const std::string &head, const LinkUse *uses, size_t len, bool symmetrical) {
  std::string xml = "  <" + head + " symmetrical=\"" + (symmetrical ? "YES" : "NO") + "\">";
  for (size_t k = 0; k < len; ++k) {
    xml += "<link_ctn id=\"l" + std::to_string(uses[k] >> 1) + "\" direction=\"";
    xml += (uses[k] & 1) ? "DOWN\"/>" : "UP\"/>";
  }
  out += xml + "</" + head.substr(0, head.find(' ')) + ">\n";
}

void validate_node_model(const SimgridNodeModel &m) {
  if (m.core_package.empty()) throw Error(CANOPY_ERR_INVALID_ARG, "SimGrid node model: the node has no cores");
  for (double gbps : {m.core_bandwidth_gbps, m.socket_bandwidth_gbps, m.intersocket_bandwidth_gbps})
    if (!(gbps > 0) || !std::isfinite(gbps))
      throw Error(CANOPY_ERR_INVALID_ARG, "SimGrid node model: bandwidths must be finite and > 0 Gb/s");
  for (double us : {m.core_latency_us, m.intersocket_latency_us})
    if (!(us >= 0) || !std::isfinite(us))
      throw Error(CANOPY_ERR_INVALID_ARG, "SimGrid node model: latencies must be finite and >= 0 us");
}

void validate(const SimgridOptions &o) {
  if (!(o.link_latency_us >= 0) || !std::isfinite(o.link_latency_us))
    throw Error(CANOPY_ERR_INVALID_ARG, "SimGrid link latency must be finite and >= 0 us");
  if (!(o.host_speed_gflops > 0) || !std::isfinite(o.host_speed_gflops))
    throw Error(CANOPY_ERR_INVALID_ARG, "SimGrid host speed must be finite and > 0 Gflop/s");
  if (o.host_cores < 1) throw Error(CANOPY_ERR_INVALID_ARG, "SimGrid host cores must be >= 1");
  if (o.node) validate_node_model(*o.node);
}

// The cables the platform describes: every one, or for an allocation the ones
// its routes cross, so that a job's platform grows with the job, not the fabric.
// Each keeps its id l<i> from the whole fabric. A cable without a known rate is
// an error only where it is exported.
std::vector<char> exported_links(const Topology &topo, const SimgridOptions &o, const RouteTable &routes) {
  std::vector<char> keep(topo.links().size(), o.hosts.empty());
  for (LinkUse use : routes.uses) keep[static_cast<size_t>(use >> 1)] = 1;
  for (size_t i = 0; i < keep.size(); ++i) {
    const Link &link = topo.links()[i];
    if (keep[i] && !(link.rate.gbps > 0 && std::isfinite(link.rate.gbps)))
      throw Error(CANOPY_ERR_INVALID_ARG, "link " + topo.node(link.node_a).name + ":" + std::to_string(link.port_a) +
                                              " - " + topo.node(link.node_b).name + ":" +
                                              std::to_string(link.port_b) + " has no known rate");
  }
  return keep;
}

// The hosts to export: the allocation given (each a cabled host, once), or
// every host that can communicate.
std::vector<int> exported_hosts(const Topology &topo, const SimgridOptions &o, SimgridPlatformStats &st) {
  std::vector<int> hosts;
  if (!o.hosts.empty()) {
    std::vector<char> seen(topo.nodes().size(), 0);
    for (int h : o.hosts) {
      if (h < 0 || static_cast<size_t>(h) >= topo.nodes().size() || !topo.node(h).is_host())
        throw Error(CANOPY_ERR_INVALID_ARG, "SimGrid platform: node " + std::to_string(h) + " is not a host");
      const std::string &name = topo.node(h).name;
      if (!topo.node(h).first_connected_port())
        throw Error(CANOPY_ERR_INVALID_ARG, "SimGrid platform: host " + name + " has no cabled port");
      if (seen[static_cast<size_t>(h)]++)
        throw Error(CANOPY_ERR_INVALID_ARG, "SimGrid platform: host " + name + " listed twice");
    }
    return o.hosts;
  }
  for (int h : topo.hosts()) {
    if (topo.node(h).first_connected_port())
      hosts.push_back(h);
    else
      ++st.skipped_hosts;  // it cannot communicate; SMPI must not place ranks there
  }
  if (st.skipped_hosts)
    CANOPY_LOG(Warn, "SimGrid platform: %zu host(s) without a cabled port left out", st.skipped_hosts);
  return hosts;
}

// The switches at either end of an exported cable. Switch names are descriptions
// and need not be unique; a name shared with any other node of the fabric gets
// the GUID appended.
std::vector<std::string> router_ids(const Topology &topo, const std::vector<char> &links) {
  std::vector<char> touched(topo.nodes().size(), 0);
  for (size_t i = 0; i < links.size(); ++i)
    if (links[i]) touched[static_cast<size_t>(topo.links()[i].node_a)] = touched[static_cast<size_t>(topo.links()[i].node_b)] = 1;
  std::unordered_map<std::string, int> uses;
  for (const Node &n : topo.nodes()) ++uses[n.name];
  std::vector<std::string> ids;
  for (int s : topo.switches()) {
    const Node &n = topo.node(s);
    if (touched[static_cast<size_t>(s)]) ids.push_back(uses[n.name] == 1 ? n.name : n.name + "@" + guid_string(n.guid));
  }
  return ids;
}

std::string host_element(const std::string &id, const SimgridOptions &o, int cores) {
  return "<host id=\"" + id + "\" speed=\"" + number(o.host_speed_gflops) + "Gf\" core=\"" + std::to_string(cores) +
         "\"/>\n";
}

std::string link_element(const std::string &id, double gbps, double latency_us, bool split_duplex,
                         const std::string &ends = "") {
  std::string xml = "<link id=\"" + id + "\" bandwidth=\"" + number(gbps) + "Gbps\" latency=\"" +
                    number(latency_us) + "us\"" + (split_duplex ? " sharing_policy=\"SPLITDUPLEX\"" : "");
  if (ends.empty()) return xml + "/>\n";
  return xml + "><prop id=\"ends\" value=\"" + xml_escaped(ends) + "\"/></link>\n";
}

void append_fabric_links(XmlOut &xml, const Topology &topo, const SimgridOptions &o, const std::vector<char> &links,
                         SimgridPlatformStats &st) {
  for (size_t i = 0; i < topo.links().size(); ++i) {
    if (!links[i]) continue;
    ++st.links;
    const Link &link = topo.links()[i];
    // UP = from the a end to the b end, as the "ends" property lists them.
    xml += "  " + link_element("l" + std::to_string(i), link.rate.gbps, o.link_latency_us, true,
                               topo.node(link.node_a).name + ":" + std::to_string(link.port_a) + " " +
                                   topo.node(link.node_b).name + ":" + std::to_string(link.port_b) + " " +
                                   rate_string(link.rate));
  }
}

// Every ordered pair of exported hosts, one element per route or per mirrored
// pair of routes; @p head_of gives the element head for (i, j).
template <typename Head>
void append_routes(XmlOut &out, const RouteTable &routes, Head head_of, const SimgridOptions &o,
                   SimgridPlatformStats &st) {
  size_t step = std::max<size_t>(routes.n / 10, 1);
  for (size_t i = 0; i < routes.n; ++i) {
    if (i % step == 0)
      report(o.progress, "writing the routes from host " + std::to_string(i + 1) + " of " + std::to_string(routes.n));
    for (size_t j = 0; j < routes.n; ++j) {
      if (i == j) continue;  // flat: SimGrid's loopback link; per-core: inside the node zone
      bool symmetrical = mirrored(routes, i, j);
      if (symmetrical && j < i) continue;  // written with (j, i)
      append_route(out, head_of(i, j), routes.begin(i, j), routes.size(i, j), symmetrical);
      ++st.routes;
      st.symmetric_routes += symmetrical;
    }
  }
}

void flat_zone(XmlOut &xml, const Topology &topo, const SimgridOptions &o, const std::vector<int> &hosts,
               const RouteTable &routes, const std::vector<char> &links, SimgridPlatformStats &st) {
  std::vector<std::string> ids;
  for (int h : hosts) {
    ids.push_back(xml_escaped(simgrid_host_id(topo, h)));
    xml += "  " + host_element(ids.back(), o, o.host_cores);
  }
  std::vector<std::string> routers = router_ids(topo, links);
  for (const std::string &id : routers) xml += "  <router id=\"" + xml_escaped(id) + "\"/>\n";
  append_fabric_links(xml, topo, o, links, st);
  append_routes(xml, routes, [&](size_t i, size_t j) { return "route src=\"" + ids[i] + "\" dst=\"" + ids[j] + "\""; },
                o, st);
  st.routers = routers.size();
  st.hosts = hosts.size();
}

// Inside one node zone: a route as link ids with directions ("" for a shared link).
using NodeHops = std::vector<std::pair<std::string, const char *>>;

class NodeZone {
 public:
  NodeZone(const SimgridNodeModel &m, std::string id) : m_(m), id_(std::move(id)) {
    for (int p : m.core_package) packages_ = std::max(packages_, p + 1);
    packages_ = std::max(packages_, 1);
  }

  std::string xml(const SimgridOptions &o) const {
    size_t cores = m_.core_package.size();
    std::string x = "  <zone id=\"" + id_ + "\" routing=\"Full\">\n";
    for (size_t c = 0; c < cores; ++c) x += "    " + host_element(core(c), o, 1);
    x += "    <router id=\"" + nic() + "\"/>\n";
    for (size_t c = 0; c < cores; ++c)
      x += "    " + link_element(core(c), m_.core_bandwidth_gbps, m_.core_latency_us, true);
    for (int p = 0; p < packages_; ++p)
      x += "    " + link_element(socket(p), m_.socket_bandwidth_gbps, 0, false);
    for (int a = 0; a < packages_; ++a)
      for (int b = a + 1; b < packages_; ++b)
        x += "    " + link_element(between(a, b), m_.intersocket_bandwidth_gbps, m_.intersocket_latency_us, true);
    for (size_t a = 0; a < cores; ++a) {
      for (size_t b = a + 1; b < cores; ++b)
        x += route(core(a), core(b), core_to_core(a, b));
      x += route(core(a), nic(), core_to_nic(a));
    }
    return x + "  </zone>\n";
  }
  std::string nic() const { return id_ + ".nic"; }

 private:
  std::string core(size_t c) const { return id_ + ".c" + std::to_string(c); }
  std::string socket(int p) const { return id_ + ".s" + std::to_string(p); }
  std::string between(int a, int b) const { return id_ + ".s" + std::to_string(a) + "-s" + std::to_string(b); }
  int package(size_t c) const { return std::max(m_.core_package[c], 0); }
  // The inter-socket link from package a to b, in the direction crossed.
  std::pair<std::string, const char *> crossing(int a, int b) const {
    return a < b ? std::make_pair(between(a, b), "UP") : std::make_pair(between(b, a), "DOWN");
  }
  // A message between cores is copied through the memory of both sockets.
  NodeHops core_to_core(size_t a, size_t b) const {
    NodeHops hops{{core(a), "UP"}, {socket(package(a)), ""}};
    if (package(a) != package(b)) {
      hops.push_back(crossing(package(a), package(b)));
      hops.emplace_back(socket(package(b)), "");
    }
    hops.emplace_back(core(b), "DOWN");
    return hops;
  }
  // The NIC sits on package 0: cores of other sockets reach it across sockets.
  NodeHops core_to_nic(size_t a) const {
    NodeHops hops{{core(a), "UP"}, {socket(package(a)), ""}};
    if (package(a) != 0) hops.push_back(crossing(package(a), 0));
    return hops;
  }
  static std::string route(const std::string &src, const std::string &dst, const NodeHops &hops) {
    std::string x = "    <route src=\"" + src + "\" dst=\"" + dst + "\" symmetrical=\"YES\">";
    for (const auto &[id, direction] : hops)
      x += "<link_ctn id=\"" + id + "\"" + (*direction ? std::string(" direction=\"") + direction + "\"" : "") + "/>";
    return x + "</route>\n";
  }

  const SimgridNodeModel &m_;
  std::string id_;
  int packages_ = 0;
};

// Zones must precede links, and a zone holding zones holds no hosts or routers
// (SimGrid's DTD): node zones, then the fabric's cables, then the zoneRoutes
// between node gateways. The switches are named in the cables' "ends".
void nested_zones(XmlOut &xml, const Topology &topo, const SimgridOptions &o, const std::vector<int> &hosts,
                  const RouteTable &routes, const std::vector<char> &links, SimgridPlatformStats &st) {
  xml += "  <prop id=\"canopy_node\" value=\"" + xml_escaped(o.node->spec) + "\"/>\n";
  std::vector<std::string> ids, nics;
  for (int h : hosts) {
    ids.push_back(xml_escaped(simgrid_host_id(topo, h)));
    NodeZone zone(*o.node, ids.back());
    xml += zone.xml(o);
    nics.push_back(zone.nic());
  }
  append_fabric_links(xml, topo, o, links, st);
  append_routes(xml, routes,
                [&](size_t i, size_t j) {
                  return "zoneRoute src=\"" + ids[i] + "\" dst=\"" + ids[j] + "\" gw_src=\"" + nics[i] +
                         "\" gw_dst=\"" + nics[j] + "\"";
                },
                o, st);
  st.hosts = hosts.size() * o.node->core_package.size();
}

// The whole platform into @p xml.
SimgridPlatformStats write_platform(const Topology &topo, const SimgridOptions &options, XmlOut &xml) {
  validate(options);
  SimgridPlatformStats st;
  std::vector<int> hosts = exported_hosts(topo, options, st);
  report(options.progress, "routes between the " + std::to_string(hosts.size()) + " hosts");
  RouteTable routes = all_routes(topo, hosts, PortLinks(topo));
  std::vector<char> links = exported_links(topo, options, routes);

  // Provenance as zone properties, not a comment: a path may hold "--", which
  // no XML comment may contain.
  xml += "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
         "<platform version=\"4.1\">\n<zone id=\"fabric\" routing=\"Full\">\n"
         "  <prop id=\"canopy_source\" value=\"" + xml_escaped(topo.source()) + "\"/>\n"
         "  <prop id=\"canopy_routes\" value=\"" + route_method_name(route_method(topo)) + "\"/>\n";
  if (options.node)
    nested_zones(xml, topo, options, hosts, routes, links, st);
  else
    flat_zone(xml, topo, options, hosts, routes, links, st);
  xml += "</zone>\n</platform>\n";
  st.nodes = hosts.size();
  return st;
}

}  // namespace

std::string simgrid_host_id(const Topology &topo, int host) {
  const Node &n = topo.node(host);
  return topo.find_host(n.name) == host ? n.name : n.name + "@" + guid_string(n.guid);
}

std::string simgrid_core_host_id(const Topology &topo, int host, int core) {
  return simgrid_host_id(topo, host) + ".c" + std::to_string(core);
}

std::string simgrid_platform_xml(const Topology &topo, const SimgridOptions &options, SimgridPlatformStats *stats) {
  XmlOut xml;
  SimgridPlatformStats st = write_platform(topo, options, xml);
  if (stats) *stats = st;
  return xml.take();
}

SimgridPlatformStats write_simgrid_platform(const Topology &topo, const SimgridOptions &options,
                                            const std::string &path) {
  AtomicFile file(path);
  XmlOut xml(&file);
  SimgridPlatformStats stats = write_platform(topo, options, xml);
  xml.flush();
  file.commit();
  return stats;
}

}  // namespace canopy::topo

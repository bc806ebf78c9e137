// Canopy's torus/mesh coordinate file (format: docs/topology-sources.md,
// "Torus/mesh coordinate file"):
//
//   # canopy torus v1
//   dims 4 4 4
//   wrap 1 1 0
//   link_gbps 100
//   host nid00001 0 0 0
//
// The Topology: one router (a Switch node, description "router(x,y,z)") per
// grid position, at node index = linear position with the first dimension
// varying fastest; then the hosts in file order. Router port 2d+1 faces the
// minus neighbour in dimension d and port 2d+2 the plus neighbour, for every
// router, so a port number means the same direction everywhere; host ports
// follow (2*dims+1, ...). Links are made from each router's plus port to the
// next router's minus port, except where that would duplicate or loop:
//  - extent 1: no link (the neighbour would be the router itself);
//  - extent 2 with wrap: the wrap-around link would join the same two routers
//    a second time, so only the 0 -> 1 link exists (distance is 1 either way);
//  - mesh (wrap 0) edges: no link past the last position.
// Ports without a neighbour stay unconnected.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/error.h"
#include "common/text.h"
#include "topo/loaders/loaders.h"
#include "topo/loaders/synthetic.h"
#include "topo/loaders/torus_limit.h"

namespace canopy::topo {
namespace {

constexpr size_t kMaxDims = 8;
constexpr size_t kMaxPorts = 254;

struct HostLine {
  std::string name;
  std::vector<int> coords;
  size_t router;  // linear position
  size_t line;
};

struct TorusFile {
  std::vector<int> dims;
  std::vector<bool> wrap;
  std::optional<double> gbps;
  std::vector<HostLine> hosts;
  std::vector<uint16_t> hosts_per_router;  // sized once dims are known
  std::unordered_map<std::string, size_t> host_line;
  size_t wrap_line = 0, gbps_line = 0, last_line = 0;
  bool any_content = false;
};

class TorusParser {
 public:
  TorusParser(const std::string &file, uint64_t max_routers) : file_(file), max_routers_(max_routers) {}
  TorusFile parse(std::string_view text);

 private:
  [[noreturn]] void fail(const std::string &why) const { throw parse_error(file_, line_, why); }
  void check_version(std::string_view comment);
  void statement(const std::vector<std::string_view> &fields);
  void parse_dims(const std::vector<std::string_view> &fields);
  void parse_wrap(const std::vector<std::string_view> &fields);
  void parse_gbps(const std::vector<std::string_view> &fields);
  void parse_host(const std::vector<std::string_view> &fields);
  uint64_t number(std::string_view text, const char *what);

  const std::string &file_;
  uint64_t max_routers_;
  size_t line_ = 0;
  TorusFile f_;
};

TorusFile TorusParser::parse(std::string_view text) {
  LineCursor cursor(text);
  std::string_view line;
  while (cursor.next(line)) {
    line_ = cursor.number();
    size_t hash = line.find('#');
    if (hash != std::string_view::npos && !f_.any_content) check_version(line.substr(hash + 1));
    std::vector<std::string_view> fields = split_fields(line.substr(0, hash));
    if (fields.empty()) continue;
    f_.any_content = true;
    statement(fields);
  }
  f_.last_line = cursor.number();
  if (!f_.any_content) throw parse_error(file_, 1, "empty torus file (no 'dims' line)");
  if (f_.dims.empty()) throw parse_error(file_, f_.last_line, "missing 'dims' line");
  if (f_.wrap.empty()) f_.wrap.assign(f_.dims.size(), true);
  return std::move(f_);
}

// "# canopy torus vN" before any content names the format version.
void TorusParser::check_version(std::string_view comment) {
  std::vector<std::string_view> words = split_fields(comment);
  if (words.size() != 3 || words[0] != "canopy" || words[1] != "torus" || !starts_with(words[2], "v")) return;
  if (words[2] != "v1")
    fail("unsupported format version '" + printable(words[2]) + "' (this Canopy reads canopy torus v1)");
}

void TorusParser::statement(const std::vector<std::string_view> &fields) {
  std::string_view keyword = fields[0];
  if (keyword == "dims") return parse_dims(fields);
  if (keyword == "link_gbps") return parse_gbps(fields);
  if (keyword != "wrap" && keyword != "host")
    fail("unknown keyword '" + printable(keyword) + "' (expected dims, wrap, link_gbps or host)");
  if (f_.dims.empty()) fail("'" + std::string(keyword) + "' before 'dims' (dims must come first)");
  if (keyword == "wrap") return parse_wrap(fields);
  parse_host(fields);
}

uint64_t TorusParser::number(std::string_view text, const char *what) {
  uint64_t value = 0;
  if (!parse_uint(text, value, 10))
    fail(std::string(what) + " '" + printable(text) + "' is not a non-negative integer");
  return value;
}

void TorusParser::parse_dims(const std::vector<std::string_view> &fields) {
  if (!f_.dims.empty()) fail("'dims' given twice");
  size_t n = fields.size() - 1;
  if (n < 1 || n > kMaxDims) fail("'dims' needs 1 to 8 extents, found " + std::to_string(n));
  uint64_t routers = 1;
  for (size_t d = 1; d <= n; ++d) {
    uint64_t extent = number(fields[d], "extent");
    if (extent < 1) fail("extent of dimension " + std::to_string(d - 1) + " is 0");
    if (extent > max_routers_ / routers)
      fail("the grid has more than " + std::to_string(max_routers_) + " routers (Canopy's limit for a torus)");
    routers *= extent;
    f_.dims.push_back(static_cast<int>(extent));
  }
  f_.hosts_per_router.assign(static_cast<size_t>(routers), 0);
}

void TorusParser::parse_wrap(const std::vector<std::string_view> &fields) {
  if (!f_.wrap.empty()) fail("'wrap' given twice (first at line " + std::to_string(f_.wrap_line) + ")");
  if (fields.size() - 1 != f_.dims.size())
    fail("'wrap' needs one 0/1 per dimension (" + std::to_string(f_.dims.size()) + "), found " +
         std::to_string(fields.size() - 1));
  for (size_t d = 1; d < fields.size(); ++d) {
    if (fields[d] != "0" && fields[d] != "1") fail("'wrap' values are 0 (mesh) or 1 (torus), not '" +
                                                   printable(fields[d]) + "'");
    f_.wrap.push_back(fields[d] == "1");
  }
  f_.wrap_line = line_;
}

void TorusParser::parse_gbps(const std::vector<std::string_view> &fields) {
  if (f_.gbps) fail("'link_gbps' given twice (first at line " + std::to_string(f_.gbps_line) + ")");
  double gbps = 0;
  if (fields.size() != 2 || !synthetic::parse_gbps(fields[1], gbps))
    fail("'link_gbps' needs one positive number of Gb/s");
  f_.gbps = gbps;
  f_.gbps_line = line_;
}

void TorusParser::parse_host(const std::vector<std::string_view> &fields) {
  size_t n = f_.dims.size();
  if (fields.size() < 2) fail("'host' needs a name and " + std::to_string(n) + " coordinates");
  std::string name(fields[1]);
  std::string problem = synthetic::name_problem(name);
  if (!problem.empty()) fail("host '" + printable(name) + "': " + problem);
  if (fields.size() - 2 != n)
    fail("host '" + name + "' has " + std::to_string(fields.size() - 2) + " coordinates; the grid has " +
         std::to_string(n) + " dimensions");
  HostLine host{name, {}, 0, line_};
  size_t stride = 1;
  for (size_t d = 0; d < n; ++d) {
    uint64_t c = number(fields[d + 2], "coordinate");
    if (c >= static_cast<uint64_t>(f_.dims[d]))
      fail("host '" + name + "': coordinate " + std::string(fields[d + 2]) + " of dimension " +
           std::to_string(d) + " is outside 0.." + std::to_string(f_.dims[d] - 1));
    host.coords.push_back(static_cast<int>(c));
    host.router += static_cast<size_t>(c) * stride;
    stride *= static_cast<size_t>(f_.dims[d]);
  }
  auto [it, fresh] = f_.host_line.emplace(name, line_);
  if (!fresh) fail("host '" + name + "' is already defined at line " + std::to_string(it->second));
  if (2 * n + ++f_.hosts_per_router[host.router] > kMaxPorts)
    fail("router of host '" + name + "' would need more than 254 ports (" + std::to_string(2 * n) +
         " for its neighbours plus one per host)");
  f_.hosts.push_back(std::move(host));
}

std::vector<int> position(size_t linear, const std::vector<int> &dims) {
  std::vector<int> coords(dims.size());
  for (size_t d = 0; d < dims.size(); ++d) {
    coords[d] = static_cast<int>(linear % static_cast<size_t>(dims[d]));
    linear /= static_cast<size_t>(dims[d]);
  }
  return coords;
}

std::string router_name(const std::vector<int> &coords) {
  std::string name = "router(";
  for (size_t d = 0; d < coords.size(); ++d) name += (d ? "," : "") + std::to_string(coords[d]);
  return name + ")";
}

void add_routers(Topology &topo, const TorusFile &f) {
  int dim_ports = static_cast<int>(2 * f.dims.size());
  for (size_t r = 0; r < f.hosts_per_router.size(); ++r) {
    std::vector<int> coords = position(r, f.dims);
    int node = topo.add_node(NodeType::Switch, synthetic::kRouterGuidBase + r, router_name(coords),
                             dim_ports + f.hosts_per_router[r]);
    topo.node(node).coords = std::move(coords);
  }
}

// Each router's plus port to its plus neighbour's minus port (see the top of the file).
void connect_routers(Topology &topo, const TorusFile &f, LinkRate rate) {
  size_t stride = 1;
  for (size_t d = 0; d < f.dims.size(); ++d) {
    size_t extent = static_cast<size_t>(f.dims[d]);
    bool wraps = f.wrap[d] && extent > 2;
    int minus = static_cast<int>(2 * d + 1), plus = minus + 1;
    for (size_t r = 0; r < f.hosts_per_router.size(); ++r) {
      size_t c = (r / stride) % extent;
      if (c + 1 < extent)
        topo.connect(static_cast<int>(r), plus, static_cast<int>(r + stride), minus, rate);
      else if (wraps)
        topo.connect(static_cast<int>(r), plus, static_cast<int>(r - c * stride), minus, rate);
    }
    stride *= extent;
  }
}

void add_hosts(Topology &topo, const TorusFile &f, LinkRate rate) {
  std::vector<uint16_t> used(f.hosts_per_router.size(), 0);
  int first_host_port = static_cast<int>(2 * f.dims.size()) + 1;
  for (size_t h = 0; h < f.hosts.size(); ++h) {
    const HostLine &host = f.hosts[h];
    int node = topo.add_node(NodeType::Host, synthetic::kHostGuidBase + h, host.name, 1);
    topo.node(node).coords = host.coords;
    int router = static_cast<int>(host.router);
    topo.connect(router, first_host_port + used[host.router]++, node, 1, rate);
  }
}

}  // namespace

Topology detail::load_torus_limited(std::string_view text, const std::string &file, uint64_t max_routers) {
  LinkRate default_rate = synthetic::default_rate();
  TorusFile f = TorusParser(file, max_routers).parse(text);
  LinkRate rate = f.gbps ? plain_rate(*f.gbps) : default_rate;
  Topology topo;
  add_routers(topo, f);
  connect_routers(topo, f, rate);
  add_hosts(topo, f, rate);
  topo.set_torus(TorusShape{f.dims, f.wrap});
  topo.set_source("torus:" + file);
  topo.finalize();
  return topo;
}

Topology load_torus(std::string_view text, const std::string &file) {
  return detail::load_torus_limited(text, file, detail::kMaxTorusRouters);
}

}  // namespace canopy::topo

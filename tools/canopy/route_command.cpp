// canopy route SOURCE A B: the route between two hosts, hop by hop;
// canopy route SOURCE --matrix HOSTFILE: hop, rate and delay matrices, leaf
// groups and the hierarchy tree for a host list.
#include <cstdio>
#include <memory>

#include "cli.h"
#include "commands.h"
#include "common/error.h"
#include "common/file_io.h"
#include "common/text.h"
#include "topo/loaders/loaders.h"
#include "topo/routes.h"
#include "topo/source.h"
#include "topo/views.h"

namespace canopy::cli {
namespace {

struct RouteOptions {
  std::string source, host_a, host_b, matrix;
  bool json = false;
};

int require_host(const topo::Topology &topo, const std::string &name) {
  int host = topo.find_host(name);
  if (host < 0) throw Error(CANOPY_ERR_NOT_FOUND, "host '" + name + "' is not in " + topo.source());
  return host;
}

void print_route(const topo::Topology &topo, const topo::Route &route) {
  // First line: the topology service's answer format (host GUID ... host).
  for (size_t i = 0; i < route.hops.size(); ++i) {
    const topo::Node &n = topo.node(route.hops[i].node);
    std::printf(i ? " %s" : "%s", n.is_host() ? n.name.c_str() : guid_string(n.guid).c_str());
  }
  std::printf("\n# %s route, %d links, slowest link %g Gb/s\n", topo::route_method_name(route.method), route.links(),
              topo::route_min_gbps(topo, route));
  std::printf("# %-20s %-18s %4s %4s  %s\n", "node", "guid", "in", "out", "out link");
  for (const topo::RouteHop &hop : route.hops) {
    const topo::Node &n = topo.node(hop.node);
    std::string link = hop.out_port ? topo::rate_string(n.ports[hop.out_port].rate) : "-";
    std::printf("  %-20s %-18s %4d %4d  %s\n", n.name.c_str(), guid_string(n.guid).c_str(), hop.in_port, hop.out_port,
                link.c_str());
  }
}

nlohmann::json hierarchy_json(const topo::Topology &topo, const topo::Hierarchy &tree, int node) {
  const topo::HierarchyNode &h = tree.nodes[node];
  nlohmann::json j = {{"level", h.level}};
  if (h.switch_node >= 0) j["switch"] = {topo.node(h.switch_node).name, guid_string(topo.node(h.switch_node).guid)};
  if (h.children.empty()) {
    for (int host : h.hosts) j["hosts"].push_back(topo.node(host).name);
  } else {
    for (int child : h.children) j["children"].push_back(hierarchy_json(topo, tree, child));
  }
  return j;
}

template <class T>
void print_matrix(const char *title, const std::vector<T> &values, int n, const char *format) {
  std::printf("%s\n", title);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) std::printf(format, static_cast<double>(values[i * n + j]));
    std::printf("\n");
  }
}

void print_tree(const topo::Topology &topo, const topo::Hierarchy &tree, int node, int depth) {
  const topo::HierarchyNode &h = tree.nodes[node];
  std::printf("%*s- level %d: %zu hosts", depth * 2, "", h.level, h.hosts.size());
  if (h.switch_node >= 0) std::printf(" on %s", topo.node(h.switch_node).name.c_str());
  if (h.children.empty())
    for (int host : h.hosts) std::printf(" %s", topo.node(host).name.c_str());
  std::printf("\n");
  for (int child : h.children) print_tree(topo, tree, child, depth + 1);
}

int run_matrix(const topo::Topology &topo, const RouteOptions &o) {
  std::vector<int> hosts = topo::parse_hostfile(topo, read_file(o.matrix), o.matrix);
  topo::HostMatrices m = topo::host_matrices(topo, hosts);
  topo::Hierarchy tree = topo::host_hierarchy(topo, hosts);
  std::vector<std::string> names;
  for (int h : hosts) names.push_back(topo.node(h).name);
  if (o.json) {
    nlohmann::json groups = nlohmann::json::array();
    for (const auto &group : topo::leaf_groups(topo, hosts)) {
      groups.push_back(nlohmann::json::array());
      for (int h : group) groups.back().push_back(topo.node(h).name);
    }
    print_json({{"source", topo.source()}, {"hosts", names}, {"hops", topo::matrix_rows(m.hops, m.n)},
                {"gbps", topo::matrix_rows(m.gbps, m.n)}, {"delay_us", topo::matrix_rows(m.delay_us, m.n)}, {"leaf_groups", groups},
                {"hierarchy", hierarchy_json(topo, tree, 0)}});
    return 0;
  }
  for (int i = 0; i < m.n; ++i) std::printf("host %d: %s\n", i, names[i].c_str());
  print_matrix("hops (links on the route):", m.hops, m.n, " %3.0f");
  print_matrix("slowest link on the route (Gb/s):", m.gbps, m.n, " %6.1f");
  print_matrix("delay (us):", m.delay_us, m.n, " %7.2f");
  std::printf("hierarchy:\n");
  print_tree(topo, tree, 0, 1);
  return 0;
}

int run_route(const RouteOptions &o) {
  topo::Topology topo = topo::load_topology(o.source);
  if (!o.matrix.empty()) return run_matrix(topo, o);
  if (o.host_a.empty() || o.host_b.empty()) throw Error(CANOPY_ERR_INVALID_ARG, "give two hosts, or --matrix HOSTFILE");
  topo::Route route = topo::find_route(topo, require_host(topo, o.host_a), require_host(topo, o.host_b));
  if (o.json)
    print_json(topo::route_json(topo, route));
  else
    print_route(topo, route);
  return 0;
}

}  // namespace

CommandRunner add_route_command(CLI::App &app) {
  auto o = std::make_shared<RouteOptions>();
  CLI::App *cmd = app.add_subcommand("route", "Route between two hosts, or matrices for a host list");
  cmd->add_option("SOURCE", o->source, "Topology source (see `canopy topo --formats`)")->required();
  cmd->add_option("HOST_A", o->host_a, "Source host (name or 0xGUID)");
  cmd->add_option("HOST_B", o->host_b, "Destination host (name or 0xGUID)");
  cmd->add_option("--matrix", o->matrix, "Host file: print hop/rate/delay matrices, leaf groups and hierarchy");
  add_json_flag(*cmd, o->json);
  cmd->footer("Routes follow the forwarding tables when the source has them (a dump directory),\n"
              "else dimension order (torus files) or a shortest path; the output says which.");
  return [o] { return run_route(*o); };
}

}  // namespace canopy::cli

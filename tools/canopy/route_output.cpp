#include "route_output.h"

#include <cstdio>

#include "cli.h"
#include "common/text.h"

namespace canopy::cli {
namespace {

void print_route_text(const topo::RouteView &route) {
  // First line: the topology service's `query` answer format (host GUID ... host).
  for (size_t i = 0; i < route.path.size(); ++i) {
    const topo::RouteHopView &hop = route.path[i];
    std::printf(i ? " %s" : "%s", hop.type == "host" ? hop.name.c_str() : guid_string(hop.guid).c_str());
  }
  std::printf("\n# %s route, %d links, slowest link %g Gb/s\n", route.method.c_str(), route.links(), route.min_gbps);
  std::printf("# %-20s %-18s %4s %4s  %s\n", "node", "guid", "in", "out", "out link");
  for (const topo::RouteHopView &hop : route.path)
    std::printf("  %-20s %-18s %4d %4d  %s\n", hop.name.c_str(), guid_string(hop.guid).c_str(), hop.in_port,
                hop.out_port, hop.out_port ? hop.out_rate.c_str() : "-");
}

nlohmann::json tree_json(const TreeView &tree) {
  nlohmann::json j = {{"level", tree.level}};
  if (tree.leaf_switch) j["switch"] = {tree.leaf_switch->first, guid_string(tree.leaf_switch->second)};
  if (tree.children.empty()) {
    for (const std::string &host : tree.hosts) j["hosts"].push_back(host);
  } else {
    for (const TreeView &child : tree.children) j["children"].push_back(tree_json(child));
  }
  return j;
}

void print_tree(const TreeView &tree, int depth) {
  std::printf("%*s- level %d: %zu hosts", depth * 2, "", tree.level, tree.hosts.size());
  if (tree.leaf_switch) std::printf(" on %s", tree.leaf_switch->first.c_str());
  if (tree.children.empty())
    for (const std::string &host : tree.hosts) std::printf(" %s", host.c_str());
  std::printf("\n");
  for (const TreeView &child : tree.children) print_tree(child, depth + 1);
}

template <class T>
void print_matrix(const char *title, const std::vector<T> &values, int n, const char *format) {
  std::printf("%s\n", title);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) std::printf(format, static_cast<double>(values[i * n + j]));
    std::printf("\n");
  }
}

nlohmann::json matrices_json(const MatrixReport &r) {
  const topo::HostMatrices &m = r.matrices;
  nlohmann::json j = {{"source", r.source}, {"hosts", r.hosts}, {"hops", topo::matrix_rows(m.hops, m.n)},
                      {"gbps", topo::matrix_rows(m.gbps, m.n)}, {"delay_us", topo::matrix_rows(m.delay_us, m.n)}};
  if (r.leaf_groups) j["leaf_groups"] = *r.leaf_groups;
  if (r.hierarchy) j["hierarchy"] = tree_json(*r.hierarchy);
  return j;
}

}  // namespace

void print_route(const topo::RouteView &route, bool json) {
  if (json)
    print_json(topo::route_view_json(route));
  else
    print_route_text(route);
}

void print_matrices(const MatrixReport &report, bool json) {
  if (json) return print_json(matrices_json(report));
  const topo::HostMatrices &m = report.matrices;
  for (int i = 0; i < m.n; ++i) std::printf("host %d: %s\n", i, report.hosts[i].c_str());
  print_matrix("hops (links on the route):", m.hops, m.n, " %3.0f");
  print_matrix("slowest link on the route (Gb/s):", m.gbps, m.n, " %6.1f");
  print_matrix("delay (us):", m.delay_us, m.n, " %7.2f");
  if (!report.hierarchy) return;
  std::printf("hierarchy:\n");
  print_tree(*report.hierarchy, 1);
}

}  // namespace canopy::cli

// canopy route SOURCE A B: the route between two hosts, hop by hop;
// canopy route SOURCE --matrix HOSTFILE: hop, rate and delay matrices, leaf
// groups and the hierarchy tree for a host list. With --server ADDR instead of
// SOURCE, the running topology service (canopyd) answers.
#include <memory>

#include "cli.h"
#include "commands.h"
#include "common/error.h"
#include "common/file_io.h"
#include "route_output.h"
#include "service/client.h"
#include "topo/loaders/loaders.h"
#include "topo/routes.h"
#include "topo/source.h"

namespace canopy::cli {
namespace {

struct RouteOptions {
  std::vector<std::string> args;  // [SOURCE] HOST_A HOST_B, SOURCE only without --server
  std::string server, matrix;
  bool json = false;

  std::string source() const { return server.empty() ? args.at(0) : ""; }
  const std::string &host(int i) const { return args.at(args.size() - 2 + i); }
};

// Which positional arguments make sense depends on --server and --matrix, which
// CLI11 cannot express, so this check runs when parsing ends (usage error, exit 2).
void check_arguments(const RouteOptions &o) {
  size_t want_hosts = o.matrix.empty() ? 2 : 0;
  size_t want = want_hosts + (o.server.empty() ? 1 : 0);
  if (o.args.size() == want) return;
  if (!o.server.empty() && o.args.size() == want + 1)
    throw CLI::ValidationError("SOURCE", "give either SOURCE or --server, not both");
  if (o.server.empty() && o.args.empty()) throw CLI::ValidationError("SOURCE", "give a SOURCE or --server ADDR");
  throw CLI::ValidationError(o.matrix.empty() ? "HOST_A HOST_B" : "--matrix",
                             o.matrix.empty() ? "give two hosts, or --matrix HOSTFILE"
                                              : "--matrix takes the hosts from its file: give no host arguments");
}

int require_host(const topo::Topology &topo, const std::string &name) {
  int host = topo.find_host(name);
  if (host < 0) throw Error(CANOPY_ERR_NOT_FOUND, "host '" + name + "' is not in " + topo.source());
  return host;
}

TreeView describe_tree(const topo::Topology &topo, const topo::Hierarchy &tree, int node) {
  const topo::HierarchyNode &h = tree.nodes[node];
  TreeView view;
  view.level = h.level;
  if (h.switch_node >= 0) view.leaf_switch = {topo.node(h.switch_node).name, topo.node(h.switch_node).guid};
  for (int host : h.hosts) view.hosts.push_back(topo.node(host).name);
  for (int child : h.children) view.children.push_back(describe_tree(topo, tree, child));
  return view;
}

MatrixReport local_matrices(const topo::Topology &topo, const std::string &hostfile) {
  std::vector<int> hosts = topo::parse_hostfile(topo, read_file(hostfile), hostfile);
  MatrixReport report{topo.source(), {}, topo::host_matrices(topo, hosts), std::vector<std::vector<std::string>>{},
                      describe_tree(topo, topo::host_hierarchy(topo, hosts), 0)};
  for (int h : hosts) report.hosts.push_back(topo.node(h).name);
  for (const auto &group : topo::leaf_groups(topo, hosts)) {
    report.leaf_groups->emplace_back();
    for (int h : group) report.leaf_groups->back().push_back(topo.node(h).name);
  }
  return report;
}

// The hosts are resolved by the server: an unknown one is its `ERR unknown host`.
MatrixReport remote_matrices(service::ServiceClient &client, const std::string &hostfile) {
  MatrixReport report;
  for (const topo::HostfileEntry &entry : topo::read_hostfile(read_file(hostfile), hostfile))
    report.hosts.push_back(entry.name);
  for (const auto &[key, value] : client.info())
    if (key == "source") report.source = value;
  report.matrices = client.matrices(report.hosts);
  return report;
}

int run_local(const RouteOptions &o) {
  topo::Topology topo = topo::load_topology(o.source());
  if (!o.matrix.empty()) {
    print_matrices(local_matrices(topo, o.matrix), o.json);
  } else {
    topo::Route route = topo::find_route(topo, require_host(topo, o.host(0)), require_host(topo, o.host(1)));
    print_route(topo::describe_route(topo, route), o.json);
  }
  return 0;
}

int run_remote(const RouteOptions &o) {
  service::ServiceClient client(o.server);
  if (!o.matrix.empty())
    print_matrices(remote_matrices(client, o.matrix), o.json);
  else
    print_route(client.route(o.host(0), o.host(1)), o.json);
  return 0;
}

}  // namespace

CommandRunner add_route_command(CLI::App &app) {
  auto o = std::make_shared<RouteOptions>();
  CLI::App *cmd = app.add_subcommand("route", "Route between two hosts, or matrices for a host list");
  cmd->add_option("[SOURCE] HOST_A HOST_B", o->args,
                  "Topology source (see `canopy topo --formats`; not with --server), then the source and "
                  "destination hosts (names or 0xGUIDs; not with --matrix)");
  cmd->add_option("--matrix", o->matrix, "Host file: print hop/rate/delay matrices, leaf groups and hierarchy");
  cmd->add_option("--server", o->server, "Ask the topology service canopyd at HOST:PORT instead of loading SOURCE");
  add_json_flag(*cmd, o->json);
  cmd->parse_complete_callback([o] { check_arguments(*o); });
  cmd->footer("Routes follow the forwarding tables when the source has them (a dump directory),\n"
              "else dimension order (torus files) or a shortest path; the output says which.\n"
              "With --server, --matrix prints the matrices only: the service does not give the hierarchy.");
  return [o] { return o->server.empty() ? run_local(*o) : run_remote(*o); };
}

}  // namespace canopy::cli

// canopy topo SOURCE: what a topology holds, as text, JSON, DOT or SVG, or as a
// SimGrid platform for SMPI.
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>

#include "cli.h"
#include "commands.h"
#include "common/error.h"
#include "common/file_io.h"
#include "common/params.h"
#include "common/progress.h"
#include "common/text.h"
#include "map/machine.h"
#include "topo/drawing.h"
#include "topo/node_topology.h"
#include "topo/routes.h"
#include "topo/simgrid_platform.h"
#include "topo/source.h"
#include "topo/views.h"

namespace canopy::cli {
namespace {

struct TopoOptions {
  std::string source, svg, node, simgrid, simgrid_cores, simgrid_hosts;
  topo::SimgridOptions simgrid_options;
  std::optional<double> simgrid_latency_us;
  bool json = false, dot = false, formats = false;
  CLI::Option *node_option = nullptr;
};

void print_summary(const topo::Topology &topo, const topo::Summary &s) {
  std::printf("source:      %s\n", topo.source().c_str());
  std::printf("hosts:       %d\n", s.hosts);
  std::printf("switches:    %d in %d level%s\n", s.switches, s.levels, s.levels == 1 ? "" : "s");
  std::printf("links:       %d\n", s.links);
  std::printf("link rates: ");
  for (const auto &[rate, count] : s.rates) std::printf(" %s x%d", rate.c_str(), count);
  std::printf("\ndiameter:    %d links", s.diameter);
  if (s.parts > 1) std::printf(" within each part: the fabric is in %d disconnected parts", s.parts);
  std::printf("\n");
  if (topo.has_forwarding_tables())
    std::printf("routes:      forwarding tables of %d switches, %zu problem%s\n", s.forwarding_tables,
                s.forwarding.problems, s.forwarding.problems == 1 ? "" : "s");
  else
    std::printf("routes:      %s (no forwarding tables loaded)\n", topo.torus() ? "dimension order" : "shortest paths");
  for (const topo::ForwardingProblem &p : s.forwarding.first)
    std::printf("  problem:   switch %s (%s), LID %u: %s\n", topo.node(p.switch_node).name.c_str(),
                guid_string(topo.node(p.switch_node).guid).c_str(), p.lid, p.what.c_str());
}

void print_node(const topo::NodeTopology &node) {
  std::printf("node:        %s (%s)\n", node.spec().empty() ? "live" : node.spec().c_str(), node.kind());
  std::printf("packages:    %d\nnuma nodes:  %d\ncores:       %d%s\npus:         %d\nlevels:     ",
              node.num_packages(), node.num_numa_nodes(), node.num_cores(),
              node.pus_as_cores() ? " (no Core objects: the PUs stand for them)" : "", node.num_pus());
  for (const std::string &level : node.level_names()) std::printf(" %s", level.c_str());
  std::printf("\n");
  std::vector<topo::CoreKind> kinds = node.core_kinds();
  if (kinds.size() < 2) return;
  const char *separator = "cpu kinds:   ";  // the most efficient first, as canopy map fills them
  for (auto k = kinds.rbegin(); k != kinds.rend(); ++k, separator = ", ") {
    std::string type = k->core_type.empty() ? "" : " (" + k->core_type + ")";
    std::printf("%s%zu cores of efficiency %d%s", separator, k->cores.size(), k->efficiency, type.c_str());
  }
  std::printf("\n");
}

int run_node(const TopoOptions &o) {
  topo::NodeTopology node = topo::NodeTopology::load(o.node);
  if (o.json)
    print_json(node.to_json());
  else
    print_node(node);
  return 0;
}

// The platform's options: the parameters' defaults, the node model when
// --simgrid-cores names a node topology, the allocation from --simgrid-hosts.
topo::SimgridOptions simgrid_options(const TopoOptions &o, const topo::Topology &topo) {
  topo::SimgridOptions options = o.simgrid_options;
  options.link_latency_us = o.simgrid_latency_us.value_or(param_double("topo_hop_latency_us"));
  if (!o.simgrid_hosts.empty())
    options.hosts = map::allocation_hosts(topo, read_file(o.simgrid_hosts), o.simgrid_hosts);
  if (!o.simgrid_cores.empty()) {
    topo::NodeTopology node = topo::NodeTopology::load(o.simgrid_cores);
    topo::SimgridNodeModel m;
    m.core_package = node.core_packages();
    m.spec = o.simgrid_cores;
    m.core_bandwidth_gbps = param_double("simgrid_core_bandwidth_gbps");
    m.socket_bandwidth_gbps = param_double("simgrid_socket_bandwidth_gbps");
    m.core_latency_us = param_double("simgrid_core_latency_us");
    m.intersocket_bandwidth_gbps = param_double("simgrid_intersocket_bandwidth_gbps");
    m.intersocket_latency_us = param_double("simgrid_intersocket_latency_us");
    options.node = std::move(m);
  }
  return options;
}

int run_topo(const TopoOptions &o) {
  if (o.formats) {
    nlohmann::json formats = nlohmann::json::array();
    for (const topo::SourceFormat &f : topo::source_formats()) {
      if (!o.json) std::printf("%-20s %s\n", f.name, f.doc);
      formats.push_back({{"name", f.name}, {"doc", f.doc}});
    }
    if (o.json) print_json(formats);
    return 0;
  }
  if (o.source.empty()) return run_node(o);
  check_output_paths({{"--svg", o.svg}, {"--simgrid", o.simgrid}});
  Progress progress("canopy topo");
  progress.stage("loading " + o.source);
  topo::Topology topo = topo::load_topology(o.source);
  // Both outputs replace their files together, or neither does.
  StagedFiles staged;
  if (!o.svg.empty()) {
    progress.stage("drawing " + o.svg);
    staged.add(o.svg, [&](const std::string &file) { topo::render_svg(topo::fabric_dot(topo), file); });
  }
  topo::SimgridPlatformStats platform;
  if (!o.simgrid.empty()) {
    topo::SimgridOptions options = simgrid_options(o, topo);
    options.progress = progress.fn();
    staged.add(o.simgrid,
               [&](const std::string &file) { platform = topo::write_simgrid_platform(topo, options, file); });
  }
  staged.commit();
  progress.stage("summary");
  if (o.dot) {
    std::cout << topo::fabric_dot(topo);
  } else if (o.json) {
    print_json(topo::summary_json(topo, topo::summarize(topo)));
  } else {
    print_summary(topo, topo::summarize(topo));
    if (!o.svg.empty()) std::printf("drawing:     %s\n", o.svg.c_str());
    if (!o.simgrid.empty())
      std::printf("simgrid:     %s: %zu hosts (%zu nodes), %zu routers, %zu links, %zu routes (%zu symmetrical)\n",
                  o.simgrid.c_str(), platform.hosts, platform.nodes, platform.routers, platform.links, platform.routes,
                  platform.symmetric_routes);
  }
  progress.stage("done");
  return 0;
}

}  // namespace

CommandRunner add_topo_command(CLI::App &app) {
  auto o = std::make_shared<TopoOptions>();
  CLI::App *cmd = app.add_subcommand("topo", "Load a topology SOURCE and describe it");
  CLI::Option *source = cmd->add_option("SOURCE", o->source,
                                        "Topology source: a dump directory or a file, optionally FORMAT:PATH (see --formats)");
  add_json_flag(*cmd, o->json);
  CLI::Option *dot = cmd->add_flag("--dot", o->dot, "Write the fabric drawing as Graphviz DOT on stdout (not with --json)")
                         ->excludes(cmd->get_option("--json"));
  CLI::Option *svg = cmd->add_option("--svg", o->svg, "Draw the fabric into this SVG file (needs Graphviz)")->check(output_path());
  cmd->add_flag("--formats", o->formats, "List the source formats and exit");
  CLI::Option *simgrid = cmd->add_option("--simgrid", o->simgrid,
                  "Write the fabric as a SimGrid platform (hosts, switches, links at their rates, every "
                  "host pair's real route) into this XML file, for SMPI (docs/simgrid.md)")->check(output_path());
  cmd->add_option("--simgrid-latency", o->simgrid_latency_us,
                  "Latency of each link (per hop) in the SimGrid platform, microseconds "
                  "(default: the topo_hop_latency_us parameter, 0.1)");
  cmd->add_option("--simgrid-cores", o->simgrid_cores,
                  "Model each node's inside: one SimGrid host per core (HOST.cN) in a zone per node, sockets "
                  "and NIC linked as the simgrid_* parameters say; SPEC: 'live', an hwloc XML file or a "
                  "synthetic string like 'pack:2 core:8 pu:1'");
  cmd->add_option("--simgrid-hosts", o->simgrid_hosts,
                  "Export only these hosts (a job's allocation, one per line) with their real routes and the "
                  "cables and switches those cross");
  cmd->add_option("--host-speed", o->simgrid_options.host_speed_gflops,
                  "SimGrid host speed per core, Gflop/s")->capture_default_str();
  cmd->add_option("--host-cores", o->simgrid_options.host_cores, "SimGrid cores per host (flat platform)")->capture_default_str();
  o->node_option = cmd->add_option("--node", o->node,
                  "Describe a node instead (no SOURCE): 'live', an hwloc XML file, or a synthetic string like 'pack:2 core:8 pu:2'")
                    ->excludes(source)->excludes(dot)->excludes(svg)->excludes(simgrid);
  // What CLI11 cannot say by itself, checked when parsing ends (usage errors, exit 2).
  cmd->parse_complete_callback([o, source, simgrid] {
    if (o->formats) return;
    if (source->count() == 0 && o->node_option->count() == 0)
      throw CLI::ValidationError("SOURCE", "a SOURCE (or --node SPEC) is required");
    if (simgrid->count() == 0 && (!o->simgrid_cores.empty() || !o->simgrid_hosts.empty()))
      throw CLI::ValidationError("--simgrid-cores/--simgrid-hosts", "need --simgrid FILE");
  });
  cmd->footer("Examples:\n  canopy topo dump/current --svg fabric.svg\n"
              "  canopy topo dump/current --simgrid fabric.xml && smpirun -platform fabric.xml -hostfile hosts ...\n"
              "  canopy topo dump/current --simgrid job.xml --simgrid-hosts job.hosts --simgrid-cores 'pack:2 core:8 pu:1'");
  return [o] { return run_topo(*o); };
}

}  // namespace canopy::cli

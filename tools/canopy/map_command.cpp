// canopy map: place a job's processes on its allocation so that heavy talkers
// sit close together, and write launcher files (rankfile, Slurm host list,
// MPICH machine file), the permutation and a JSON report; optionally pictures
// (the communication matrix before/after, the fabric coloured by link load) and
// the process graph it mapped, as an edge list.
#include <algorithm>
#include <cstdio>
#include <functional>
#include <memory>

#include "cli.h"
#include "commands.h"
#include "common/error.h"
#include "common/file_io.h"
#include "common/progress.h"
#include "map/loaders/graph_loaders.h"
#include "map/mapping.h"
#include "map/metrics.h"
#include "map/outputs.h"
#include "map/pictures.h"
#include "topo/source.h"

namespace canopy::cli {
namespace {

struct MapCommandOptions {
  std::string graph, fabric, hosts, node, algorithm = "rt", tree = "auto", groups = "auto";
  std::string rankfile, slurm_hostfile, machinefile, permutation, process_graph, heatmap, draw_load;
  int ppn = 0, parts = 0, seed = 1;
  int64_t anneal_moves = 0, anneal_process_moves = 0;
  int analytic_iterations = map::kDefaultAnalyticIterations;
  bool no_intra = false, no_refine = false, json = false;
};

map::Problem load_problem(const MapCommandOptions &o, Progress &progress) {
  progress.stage("reading the graph " + o.graph);
  map::CommGraph graph = map::load_comm_graph(o.graph, {o.parts, o.seed, progress.fn()});
  progress.stage("loading the fabric " + o.fabric);
  auto topology = std::make_shared<const topo::Topology>(topo::load_topology(o.fabric));
  progress.stage("the allocation " + o.hosts + " and the hop distances between its hosts");
  return map::Problem{std::move(graph), map::allocation_machine(std::move(topology), o.hosts, o.ppn, o.node)};
}

// Every output is written to a temporary first, and they replace their paths
// together: when one fails (no gnuplot, no Graphviz, a full disk) the files are
// left as they were, rather than half of what was asked.
void write_outputs(const MapCommandOptions &o, const map::Problem &p, const map::MapResult &r, const map::Metrics &mapped,
                   const map::Metrics &identity) {
  const map::Machine &m = p.machine;
  const std::vector<int> &slots = r.slot_of_process;
  StagedFiles staged;
  auto output = [&](const std::string &path, const std::function<void(const std::string &temporary)> &write) {
    if (!path.empty()) staged.add(path, write);
  };
  auto text = [&](const std::string &path, const std::function<std::string()> &content) {
    output(path, [&](const std::string &file) { write_file_atomic(file, content()); });
  };
  output(o.heatmap, [&](const std::string &file) { map::write_heatmap(file, p, r, mapped, identity); });
  output(o.draw_load, [&](const std::string &file) { map::write_load_drawing(file, p, r, mapped, identity); });
  text(o.rankfile, [&] { return map::openmpi_rankfile(m, slots); });
  text(o.slurm_hostfile, [&] { return map::slurm_hostfile(m, slots); });
  text(o.machinefile, [&] { return map::mpich_machinefile(m, slots); });
  text(o.permutation, [&] { return map::permutation_text(slots); });
  text(o.process_graph, [&] { return map::edge_list_text(p.graph); });
  staged.commit();
}

void print_text(const map::Problem &p, const map::MapResult &r, const map::Metrics &m, const map::Metrics &identity) {
  std::printf("processes:   %d (%lld edges, %.6g bytes)\n", p.graph.num_vertices(),
              static_cast<long long>(p.graph.num_edges()), p.graph.total_bytes());
  const std::optional<map::NodeLayout> &node = p.machine.node();
  std::printf("allocation:  %s%s%s%s\n", p.machine.slots_text().c_str(), node ? ", node " : "", node ? node->spec.c_str() : "",
              node && node->level == topo::CpuLevel::PU ? ", slots on PUs (mpirun --use-hwthread-cpus --rankfile)" : "");
  std::printf("algorithm:   %s", r.algorithm.c_str());
  if (!r.tree.empty()) std::printf(", tree %s", r.tree.c_str());
  if (!r.groups.empty()) std::printf(", %s groups", r.groups.c_str());
  if (!r.target.empty()) std::printf(", Scotch target %s", r.target.c_str());
  if (r.intra_node) std::printf(", intra-node on the hwloc tree");
  if (!r.refined_from.empty()) std::printf(", refined from %s", r.refined_from.c_str());
  if (std::string steps = map::group_steps_text(r); !steps.empty()) std::printf(", %s", steps.c_str());
  std::printf(" (%.3f s)\n", r.seconds.at("total"));
  std::printf("routes:      %s\n", m.routes.c_str());
  std::printf("%-24s %16s %16s\n", "", "mapped", "identity");
  auto row = [](const char *name, double a, double b) { std::printf("%-24s %16.6g %16.6g\n", name, a, b); };
  row("hop-bytes", m.hop_bytes, identity.hop_bytes);
  row("inter-node bytes", m.inter_node_bytes, identity.inter_node_bytes);
  row("max link bytes", m.max_link_bytes, identity.max_link_bytes);
  row("average link bytes", m.average_link_bytes, identity.average_link_bytes);
  row("max dilation (links)", m.max_dilation, identity.max_dilation);
  row("average dilation", m.average_dilation, identity.average_dilation);
  if (m.cross_socket_bytes >= 0) row("cross-socket bytes", m.cross_socket_bytes, identity.cross_socket_bytes);
}

int run_map(const MapCommandOptions &o) {
  // A wrong file name fails now, not after loading and mapping.
  if (!o.heatmap.empty()) map::picture_format(o.heatmap, {map::PictureFormat::Svg, map::PictureFormat::Png}, "--heatmap");
  if (!o.draw_load.empty()) map::picture_format(o.draw_load, {map::PictureFormat::Dot, map::PictureFormat::Svg}, "--draw-load");
  check_output_paths({{"--heatmap", o.heatmap},
                      {"--draw-load", o.draw_load},
                      {"--rankfile", o.rankfile},
                      {"--slurm-hostfile", o.slurm_hostfile},
                      {"--machinefile", o.machinefile},
                      {"--permutation", o.permutation},
                      {"--process-graph", o.process_graph}});
  Progress progress("canopy map");
  map::Problem problem = load_problem(o, progress);
  map::MapOptions options;
  options.algorithm = o.algorithm;
  options.tree = map::tree_choice(o.tree);
  options.groups = map::group_choice(o.groups);
  options.intra_node = !o.no_intra;
  options.refine = !o.no_refine;
  options.seed = o.seed;
  options.anneal_moves = o.anneal_moves;
  options.anneal_process_moves = o.anneal_process_moves;
  options.analytic_iterations = o.analytic_iterations;
  options.progress = progress.fn();
  progress.stage("mapping " + std::to_string(problem.graph.num_vertices()) + " processes with " + o.algorithm);
  map::MapResult result = map::map_processes(problem, options);
  progress.stage("metrics of the mapping and of identity");
  map::Metrics metrics = map::evaluate(problem, result.slot_of_process);
  map::Metrics identity = map::evaluate(problem, map::identity_placement(problem));
  progress.stage("writing the outputs");
  write_outputs(o, problem, result, metrics, identity);
  if (o.json)
    print_json(map::map_report_json(problem, result, metrics, identity));
  else
    print_text(problem, result, metrics, identity);
  progress.stage("done");
  return 0;
}

}  // namespace

CommandRunner add_map_command(CLI::App &app) {
  auto o = std::make_shared<MapCommandOptions>();
  CLI::App *cmd = app.add_subcommand("map", "Map processes onto an allocation to cut hop-bytes; write launcher files");
  cmd->add_option("--graph", o->graph,
                  "Communication graph: metis:FILE, edges:FILE (SRC DST BYTES), mtx:FILE (with --parts), "
                  "or a path ending .graph/.metis, .edges/.el or .mtx (or starting with a %%MatrixMarket banner)")
      ->required();
  cmd->add_option("--fabric", o->fabric, "Topology source (see `canopy topo --formats`)")->required();
  cmd->add_option("--hosts", o->hosts, "Host file: the job's hosts in allocation order")->required();
  cmd->add_option("--ppn", o->ppn,
                  "Slots (processes) per host; default: each host's own 'HOST slots=N' or 'HOST:N' from the host file "
                  "(hosts may differ), given on every line. No host may give fewer than --ppn")
      ->check(CLI::Range(1, 1 << 20));
  cmd->add_option("--node-topology", o->node,
                  "Inside of a node for intra-node mapping: 'live', an hwloc XML file, or a synthetic string like 'pack:2 core:8 pu:2'; "
                  "more slots than cores go on PUs (hardware threads) and the rankfile names PUs (mpirun --use-hwthread-cpus)");
  cmd->add_option("--algorithm", o->algorithm,
                  "identity, block, greedy, rt (dual recursive tree mapping: each split also weighs the bytes to "
                  "processes already placed elsewhere), rb (the same on torus coordinate bisection), or scotch "
                  "(Scotch's static mapping on a tleaf/torus/graph target equivalent to the machine; never refined, "
                  "no intra-node mapping)")
      ->check(CLI::IsMember(map::algorithm_names()))->capture_default_str();
  CLI::Option *tree = cmd->add_option("--tree", o->tree,
                  "rt's topology tree: auto (fabric on switched fabrics, coordinates on tori, else neighbor-joining), "
                  "fabric (switch hierarchy), coordinates (torus coordinate bisection) or neighbor-joining")
      ->check(CLI::IsMember({"auto", "fabric", "coordinates", "neighbor-joining"}))->capture_default_str();
  CLI::Option *groups = cmd->add_option("--groups", o->groups,
                  "rt/rb: form node-sized groups along the tree (multilevel where the processes pair up naturally, "
                  "as in stencils), flat (the paper: METIS k-way into one group per host), runs (ppn consecutive "
                  "ranks per group, the application's own numbering, placed on the tree), or auto (above 2,048 "
                  "vertices runs alone when samples of consecutive ranks show them cutting at most 5% more than "
                  "METIS; otherwise tree; runs too when they cut at most 5% more bytes; for graphs up to 2,048 "
                  "vertices flat too, and tree without coarsening and (rt, --tree auto) on the neighbor-joining "
                  "tree; kept: the lowest hop-bytes plus busiest host's off-node bytes, each relative "
                  "to the tree's groups). Where hosts have unequal slots, runs are as long as the most slots that divide "
                  "every host's (8 and 24: runs of 8), and flat is refused")
      ->check(CLI::IsMember({"auto", "tree", "flat", "runs"}))->capture_default_str();
  cmd->add_option("--parts", o->parts, "MatrixMarket input: split the rows into this many processes (METIS)")
      ->check(at_least(1));
  cmd->add_option("--seed", o->seed, "METIS and Scotch seed (same seed, same mapping)")->capture_default_str();
  CLI::Option *analytic = cmd->add_option("--analytic-placement", o->analytic_iterations,
                  "greedy/rt/rb on a fabric with coordinates (torus:) and hosts of equal slots: after the refinement, "
                  "at most N iterations of analytic placement of the host groups (quadratic placement on the "
                  "coordinates alternating with a legal placement near it, as in VLSI placement), then refine again; "
                  "kept only if it lowers hop-bytes by more than it loads the busiest link (each relative to before); "
                  "before --anneal-moves. Pays on unstructured meshes on large tori (5-13% fewer hop-bytes at "
                  "8,192-65,536 processes); where it finds nothing it stops within three cheap iterations (about a "
                  "millisecond per 512 hosts). 0: none")
      ->check(CLI::Range(0, map::kMostAnalyticIterations))->capture_default_str();
  CLI::Option *anneal_moves = cmd->add_option("--anneal-moves", o->anneal_moves,
                  "greedy/rt/rb: after the refinement, anneal where the host groups go (each host's processes moved "
                  "together) with N moves per host, then refine again; kept as --analytic-placement is. Slow: 20000 "
                  "takes seconds at 8,192 processes, a minute or more at 65,536; pays on irregular graphs on tori "
                  "(7-15% fewer hop-bytes on unstructured meshes without --analytic-placement, which finds most of "
                  "that), little on fat trees. Default 0: none")
      ->check(CLI::Range(int64_t{0}, int64_t{1000000000}));
  CLI::Option *anneal_processes = cmd->add_option("--anneal-processes", o->anneal_process_moves,
                  "greedy/rt/rb: last, anneal single processes between hosts (each swapped towards a partner's host) "
                  "with N moves per process, then refine again; kept as --analytic-placement is. It changes which "
                  "processes share a host too, and pays where host groups talk to many others or on few hosts "
                  "(random graphs and meshes at 256-1,024 processes; docs/mapping.md); about a second per 10 million "
                  "moves. Default 0: none")
      ->check(CLI::Range(int64_t{0}, int64_t{1000000000}));
  // Options that only some algorithms use are a mistake with the others, not ignored.
  std::vector<std::pair<CLI::Option *, std::vector<std::string>>> scoped = {
      {tree, {"rt"}}, {groups, {"rt", "rb"}}, {analytic, {"greedy", "rt", "rb"}},
      {anneal_moves, {"greedy", "rt", "rb"}}, {anneal_processes, {"greedy", "rt", "rb"}}};
  cmd->parse_complete_callback([o, scoped] {
    for (const auto &[option, algorithms] : scoped) {
      if (option->count() == 0 || std::find(algorithms.begin(), algorithms.end(), o->algorithm) != algorithms.end())
        continue;
      std::string names;
      for (const std::string &a : algorithms) names += (names.empty() ? "" : "/") + a;
      throw CLI::ValidationError(option->get_name(), "is for " + names + ", not --algorithm " + o->algorithm);
    }
  });
  cmd->add_flag("--no-intra", o->no_intra, "Skip intra-node mapping");
  cmd->add_flag("--no-refine", o->no_refine,
                "Skip the refinement pass (swaps that lower hop-bytes without loading the busiest host's link "
                "more), its never-worse-than-baselines guard, and on at most 64 hosts of equal slots the tabu "
                "search of where the host groups go");
  cmd->add_option("--rankfile", o->rankfile, "Write an Open MPI rankfile (mpirun --rankfile FILE)")->check(output_path());
  cmd->add_option("--slurm-hostfile", o->slurm_hostfile,
                  "Write a Slurm host list (SLURM_HOSTFILE=FILE srun --distribution=arbitrary)")->check(output_path());
  cmd->add_option("--machinefile", o->machinefile, "Write an MPICH machine file (mpiexec -f FILE)")->check(output_path());
  cmd->add_option("--permutation", o->permutation, "Write the slot of each process, one per line")->check(output_path());
  cmd->add_option("--process-graph", o->process_graph,
                  "Write the process graph that was mapped (a MatrixMarket input's after --parts) as an edge list: "
                  "'processes N', then 'SRC DST BYTES' for every pair both ways with half its bytes each way "
                  "(--graph edges:FILE reads it back; bench/patterns/spmv_pattern replays it)")->check(output_path());
  cmd->add_option("--heatmap", o->heatmap,
                  "Draw the communication matrix before (identity) and after the mapping side by side, processes in "
                  "slot order, each host's block outlined, into FILE.svg or FILE.png (gnuplot; at most 512x512 cells)")->check(output_path());
  cmd->add_option("--draw-load", o->draw_load,
                  "Draw the fabric with each link coloured and sized by the bytes it carries under the mapping, "
                  "the job's hosts highlighted, into FILE.dot or FILE.svg (Graphviz)")->check(output_path());
  add_json_flag(*cmd, o->json);
  cmd->footer("Metrics are computed on the routes the fabric uses (forwarding tables when loaded) for the\n"
              "mapping and for identity (rank i on slot i, hosts in allocation order). See docs/mapping.md.\n"
              "A run longer than progress_after_s (1 s) shows its stages on stderr if that is a terminal.\n"
              "Example: canopy map --graph app.graph --fabric dump/current --hosts job.hosts --ppn 16 \\\n"
              "           --node-topology 'pack:2 core:8 pu:2' --algorithm rt --rankfile job.rankfile \\\n"
              "           --heatmap matrix.svg --draw-load loads.svg");
  return [o] { return run_map(*o); };
}

}  // namespace canopy::cli

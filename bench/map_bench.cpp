// Runs every mapping algorithm on one instance (a communication graph on an
// allocation) and appends one JSON line per algorithm to --out: hop-bytes, link
// loads, the mapping's per-phase seconds (wall and CPU) and its memory. Driven
// by bench/mapping.sh, which generates the instances; bench/mapping_report.py
// turns the lines into tables. A benchmark, not a test.
//
//   bench_map --graph mesh.mtx --parts 1024 --fabric dump --hosts job.hosts --ppn 16
//             --algorithms identity,block,greedy,greedy-refined,rt,rb,scotch --seeds 1,2,3 --instance mesh-1024 --out results.jsonl
//
// Each name of --algorithms runs canopy map's algorithm of that name with its
// defaults, except greedy: the baselines (identity, block, greedy, scotch) run
// without any of Canopy's steps, so greedy is the baseline the task-mapping
// issue names, its placement alone (canopy map --algorithm greedy --no-refine
// --no-intra --analytic-placement 0), and greedy-refined is canopy map's greedy
// with every step (the refinement and its guard, the steps that move host
// groups, intra-node mapping): a Canopy mapping.
// The algorithms whose result depends on the seed (rt, rb, scotch: METIS's and
// Scotch's random choices) run once per seed of --seeds; the others once.
//
// The inputs are loaded once (as `canopy map` loads them); each algorithm then
// runs in a child process (fork), so that its peak memory is its own (the
// child's peak RSS during map_processes, reset first through clear_refs, minus
// its RSS before) and a failure stays its own.
// An algorithm this build does not have (scotch before it lands) is recorded
// as skipped, with a note on stderr.
//
// --analytic-placement N sets the analytic placement of the host groups for the
// greedy-refined, rt and rb runs (MapOptions::analytic_iterations; default: the
// library's). With --anneal-moves N or --anneal-processes N, each rt run is
// followed by a line "moved": rt with the same seed, its host groups annealed
// (MapOptions::anneal_moves) and/or its processes (anneal_process_moves).
//
// A last line per instance, algorithm "relaxation", sums the machine's hop
// count as weighted host cuts (cut_relaxation.h): each cut's fewest bytes found
// by METIS and by any mapping of the run, and their weighted sums, which no
// mapping could beat unless some cut beat the best found.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "common/text.h"
#include "cut_relaxation.h"
#include "map/loaders/graph_loaders.h"
#include "map/mapping.h"
#include "map/metrics.h"
#include "topo/source.h"

namespace {

using Clock = std::chrono::steady_clock;
using nlohmann::json;
namespace map = canopy::map;

struct Options {
  std::string graph, fabric, hosts, node, algorithms = "identity,block,greedy,greedy-refined,rt,rb,scotch";
  std::string instance, machine, out, seeds;
  int ppn = 0, parts = 0, seed = 1;
  int analytic_iterations = map::kDefaultAnalyticIterations;  // greedy-refined, rt, rb; 0: none
  int64_t anneal_moves = 0;          // per host, for the "moved" runs; 0: none
  int64_t anneal_process_moves = 0;  // per process, for the "moved" runs; 0: none
};

// The seeds of --seeds (default: --seed), each a non-negative integer.
std::vector<int> mapping_seeds(const Options &o) {
  if (o.seeds.empty()) return {o.seed};
  std::vector<int> seeds;
  for (std::string_view field : canopy::split(o.seeds, ',')) {
    std::string text(field);
    char *end = nullptr;
    long value = std::strtol(text.c_str(), &end, 10);
    if (text.empty() || *end != '\0' || value < 0 || value > 1000000000)
      throw std::runtime_error("--seeds: '" + text + "' is not a seed (a non-negative integer)");
    seeds.push_back(static_cast<int>(value));
  }
  return seeds;
}

// The mapping options of a name of --algorithms (see the top); nullopt when this
// build has no such algorithm.
std::optional<map::MapOptions> algorithm_options(const std::string &name, const Options &o) {
  map::MapOptions options;
  options.algorithm = name == "greedy-refined" ? "greedy" : name;
  const auto &known = map::algorithm_names();
  if (std::find(known.begin(), known.end(), options.algorithm) == known.end()) return std::nullopt;
  options.analytic_iterations = o.analytic_iterations;
  if (name == "greedy") options.refine = false, options.intra_node = false, options.analytic_iterations = 0;
  return options;
}

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// A field of /proc/self/status in KiB ("VmRSS", "VmHWM"); -1 if missing.
long status_kib(const char *field) {
  long value = -1;
  if (FILE *f = std::fopen("/proc/self/status", "r")) {
    char line[256];
    size_t length = std::strlen(field);
    while (std::fgets(line, sizeof line, f))
      if (std::strncmp(line, field, length) == 0 && line[length] == ':') value = std::atol(line + length + 1);
    std::fclose(f);
  }
  return value;
}

// Resets the peak RSS (VmHWM) to the current RSS (Linux >= 4.0); false if refused.
bool reset_peak_rss() {
  FILE *f = std::fopen("/proc/self/clear_refs", "w");
  if (!f) return false;
  bool ok = std::fputs("5", f) >= 0;
  return std::fclose(f) == 0 && ok;
}

double load_average() {
  double load = -1;
  if (FILE *f = std::fopen("/proc/loadavg", "r")) {
    if (std::fscanf(f, "%lf", &load) != 1) load = -1;
    std::fclose(f);
  }
  return load;
}

// The host cuts of the machine (cut_relaxation.h), when its hop counts are made of them.
using Cuts = std::optional<std::vector<canopy::bench::HostCut>>;

// A mapping's bytes across each cut, checked: weighted, they must add up to its
// hop-bytes on the real routes (@p hop_bytes, from evaluate).
std::vector<double> checked_bytes_across(const map::Problem &problem, const std::vector<canopy::bench::HostCut> &cuts,
                                 const std::vector<int> &slot_of_process, double hop_bytes) {
  std::vector<double> across = canopy::bench::bytes_across(problem.graph, cuts, problem.machine.hosts_of(slot_of_process));
  double weighted = 0;
  for (size_t c = 0; c < across.size(); ++c) weighted += cuts[c].weight * across[c];
  if (std::abs(weighted - hop_bytes) > 1e-9 * hop_bytes)
    throw std::runtime_error("the host cuts give " + std::to_string(weighted) + " hop-bytes, evaluate " +
                             std::to_string(hop_bytes));
  return across;
}

json run_algorithm(const map::Problem &problem, const map::MapOptions &options, const Cuts &cuts) {
  bool peak_known = reset_peak_rss();
  long before = status_kib("VmRSS");
  map::MapResult r = map::map_processes(problem, options);
  long extra = peak_known ? status_kib("VmHWM") - before : -1;  // the mapping's own peak memory
  map::check_placement(problem, r.slot_of_process);
  map::Metrics m = map::evaluate(problem, r.slot_of_process);
  std::vector<double> across = cuts ? checked_bytes_across(problem, *cuts, r.slot_of_process, m.hop_bytes) : std::vector<double>{};
  return {{"tree", r.tree},
          {"groups", r.groups},
          {"coarsening_levels", r.coarsening_levels},
          {"refined_from", r.refined_from},
          {"moved_groups", r.moved_groups},
          {"seconds", r.seconds},
          {"metrics", map::metrics_json(m)},
          {"extra_rss_kib", extra},
          {"rss_before_kib", before},
          {"bytes_across_cuts", across}};
}

// Runs the mapping of @p options in a child; the child's JSON comes back through a pipe.
json run_in_child(const map::Problem &problem, const map::MapOptions &options, const Cuts &cuts) {
  int fds[2];
  if (pipe(fds) != 0) return {{"error", "pipe failed"}};
  std::fflush(nullptr);
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    json j;
    try {
      j = run_algorithm(problem, options, cuts);
    } catch (const std::exception &e) {
      j = {{"error", e.what()}};
    }
    std::string text = j.dump();
    for (size_t done = 0; done < text.size();) {
      ssize_t n = write(fds[1], text.data() + done, text.size() - done);
      if (n <= 0) _exit(1);
      done += static_cast<size_t>(n);
    }
    _exit(0);
  }
  close(fds[1]);
  std::string text;
  char buffer[65536];
  for (ssize_t n; (n = read(fds[0], buffer, sizeof buffer)) > 0;) text.append(buffer, static_cast<size_t>(n));
  close(fds[0]);
  int status = 0;
  rusage usage{};
  wait4(pid, &status, 0, &usage);
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    j = {{"error", "child failed (status " + std::to_string(status) + ")"}};
  j["child_max_rss_kib"] = usage.ru_maxrss;
  return j;
}

void print_progress(const std::string &label, const json &j) {
  const char *name = label.c_str();
  if (j.contains("skipped")) return std::fprintf(stderr, "    %-9s skipped: %s\n", name, j["skipped"].get<std::string>().c_str()), void();
  if (j.contains("error")) return std::fprintf(stderr, "    %-9s error: %s\n", name, j["error"].get<std::string>().c_str()), void();
  std::fprintf(stderr, "    %-9s hop-bytes %.4g  max link %.4g  cpu %.3f s  wall %.3f s  +%.0f MiB\n", name,
               j["metrics"]["hop_bytes"].get<double>(), j["metrics"]["max_link_bytes"].get<double>(),
               j["seconds"]["total_cpu"].get<double>(), j["seconds"]["total"].get<double>(),
               static_cast<double>(j["extra_rss_kib"].get<long>()) / 1024);
}

// The instance's per-cut relaxation (cut_relaxation.h): the machine's cuts and the
// fewest bytes found across each, by the mappings of the run and then by METIS.
class Relaxation {
 public:
  explicit Relaxation(const map::Machine &machine) : cuts_(canopy::bench::hop_cuts(machine, why_not_)) {
    if (cuts_) fewest_.assign(cuts_->size(), INFINITY);
  }
  const Cuts &cuts() const { return cuts_; }

  // A mapping's result line: its bytes across the cuts, when its child measured them.
  void add(const json &run) {
    if (!run.contains("bytes_across_cuts")) return;
    for (size_t c = 0; c < fewest_.size(); ++c) fewest_[c] = std::min(fewest_[c], run["bytes_across_cuts"][c].get<double>());
  }

  // The relaxation line: every cut with its fewest bytes, and sum(weight x fewest bytes).
  // METIS's partitions run only now, so that their memory does not linger in the heap
  // whose growth the mappings' children measure.
  json summary(const map::Problem &problem) {
    json j = {{"algorithm", "relaxation"}};
    if (!cuts_) {
      j["skipped"] = "the hop counts are not a sum of host cuts: " + why_not_;
      return j;
    }
    std::vector<double> partitions = canopy::bench::partition_cuts(problem.graph.padded(problem.machine.num_slots()),
                                                                   problem.machine, *cuts_, kMetisSeeds);
    double hop_bytes = 0;
    j["cuts"] = json::array();
    for (size_t c = 0; c < cuts_->size(); ++c) {
      const canopy::bench::HostCut &cut = (*cuts_)[c];
      double fewest = std::min(fewest_[c], partitions[c]);
      hop_bytes += cut.weight * fewest;
      j["cuts"].push_back({{"name", cut.name}, {"weight", cut.weight}, {"parts", cut.parts}, {"fewest_bytes", fewest}});
    }
    j["hop_bytes"] = hop_bytes;
    return j;
  }

 private:
  static constexpr int kMetisSeeds = 3;  // seeds 1-3 differ by up to a few percent on these graphs
  std::string why_not_;                  // declared before cuts_, which fills it
  Cuts cuts_;
  std::vector<double> fewest_;
};

int run(const Options &o) {
  std::vector<int> seeds = mapping_seeds(o);
  std::ofstream out(o.out, std::ios::app);  // before the work: an unwritable --out fails first
  if (!out) throw std::runtime_error("cannot open " + o.out + ": " + std::strerror(errno));
  auto start = Clock::now();
  map::CommGraph graph = map::load_comm_graph(o.graph, {o.parts, o.seed});
  double graph_seconds = seconds_since(start);
  start = Clock::now();
  auto topology = std::make_shared<const canopy::topo::Topology>(canopy::topo::load_topology(o.fabric));
  map::Problem problem{std::move(graph), map::allocation_machine(std::move(topology), o.hosts, o.ppn, o.node)};
  double machine_seconds = seconds_since(start);
  size_t hop_table_bytes = problem.machine.hop_table().bytes();
  std::fprintf(stderr, "  %s on %s: %d processes, %lld edges, %d hosts (graph %.1f s, machine %.1f s, hops %.2g MiB)\n",
               o.instance.c_str(), o.machine.c_str(), problem.graph.num_vertices(),
               static_cast<long long>(problem.graph.num_edges()), problem.machine.num_hosts(), graph_seconds,
               machine_seconds, static_cast<double>(hop_table_bytes) / (1 << 20));
  Relaxation relaxation(problem.machine);
  json instance = {{"instance", o.instance},
                   {"machine", o.machine},
                   {"processes", problem.graph.num_vertices()},
                   {"edges", problem.graph.num_edges()},
                   {"hosts", problem.machine.num_hosts()},
                   {"hop_table_bytes", hop_table_bytes}};
  std::string known_list = "greedy-refined";
  for (const std::string &k : map::algorithm_names()) known_list += ", " + k;
  // One result line, named @p label in the results.
  auto record = [&](const std::string &label, const std::string &name, int seed, json j) {
    print_progress(map::seeded_algorithm(name) && seeds.size() > 1 ? label + " " + std::to_string(seed) : label, j);
    j["algorithm"] = label;
    if (map::seeded_algorithm(name)) j["seed"] = seed;
    j.update(instance);
    j["load_average"] = load_average();
    out << j.dump() << "\n";
    relaxation.add(j);
  };
  for (std::string_view field : canopy::split(o.algorithms, ',')) {
    std::string name(field);
    std::optional<map::MapOptions> options = algorithm_options(name, o);
    if (!options) {
      record(name, name, seeds[0], {{"skipped", name + " is not an algorithm of this build (it has " + known_list + ")"}});
      continue;
    }
    for (int seed : map::seeded_algorithm(name) ? seeds : std::vector<int>{seeds[0]}) {
      options->seed = seed;
      record(name, name, seed, run_in_child(problem, *options, relaxation.cuts()));
      if (name == "rt" && (o.anneal_moves > 0 || o.anneal_process_moves > 0)) {
        map::MapOptions annealed = *options;
        annealed.anneal_moves = o.anneal_moves;
        annealed.anneal_process_moves = o.anneal_process_moves;
        json moved = run_in_child(problem, annealed, relaxation.cuts());
        moved["moved_from"] = name;
        moved["moves_per_host"] = o.anneal_moves;
        moved["moves_per_process"] = o.anneal_process_moves;
        record("moved", name, seed, std::move(moved));
      }
    }
  }
  json summary = relaxation.summary(problem);
  summary.update(instance);
  out << summary.dump() << "\n";
  out.flush();
  if (!out) throw std::runtime_error("cannot write " + o.out);
  return 0;
}

}  // namespace

int main(int argc, char **argv) {
  Options o;
  CLI::App app{"Runs every mapping algorithm on one instance; one JSON line per algorithm"};
  app.add_option("--graph", o.graph, "Communication graph (as canopy map --graph)")->required();
  app.add_option("--parts", o.parts, "MatrixMarket input: processes to split the rows into");
  app.add_option("--fabric", o.fabric, "Topology source")->required();
  app.add_option("--hosts", o.hosts, "Host file, allocation order")->required();
  app.add_option("--ppn", o.ppn, "Slots per host (as canopy map --ppn); without it, each line of --hosts gives its own")
      ->check(CLI::Range(0, 1 << 20));
  app.add_option("--node-topology", o.node, "Inside of a node (intra-node mapping), e.g. 'pack:2 core:8 pu:1'");
  app.add_option("--algorithms", o.algorithms, "Comma-separated algorithm names")->capture_default_str();
  app.add_option("--seed", o.seed, "METIS seed of the graph's partition (MatrixMarket), and the mapping seed without --seeds")
      ->capture_default_str();
  app.add_option("--seeds", o.seeds, "Comma-separated mapping seeds: rt, rb and scotch run once per seed");
  app.add_option("--analytic-placement", o.analytic_iterations,
                 "Iterations of the host groups' analytic placement in the greedy-refined, rt and rb runs (as canopy map's option; 0: none)")
      ->check(CLI::Range(0, map::kMostAnalyticIterations))->capture_default_str();
  app.add_option("--anneal-moves", o.anneal_moves,
                 "After each rt run, rt again with its host groups annealed, this many moves per host (0: none)")
      ->check(CLI::Range(int64_t{0}, int64_t{1000000000}));
  app.add_option("--anneal-processes", o.anneal_process_moves,
                 "After each rt run, rt again with its processes annealed, this many moves per process (0: none; "
                 "with --anneal-moves, both in the one run)")
      ->check(CLI::Range(int64_t{0}, int64_t{1000000000}));
  app.add_option("--instance", o.instance, "Instance name for the results")->required();
  app.add_option("--machine", o.machine, "Machine name for the results")->required();
  app.add_option("--out", o.out, "JSON-lines file to append to")->required();
  CLI11_PARSE(app, argc, argv);
  try {
    return run(o);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "bench_map: error: %s\n", e.what());
    return 1;
  }
}

// libFuzzer target: task mapping on small machines and graphs drawn from the
// bytes: a torus (1-3 dimensions of 1-4 routers, hosts anywhere on it, several on
// one router allowed) or a two-level fat tree; a scattered allocation with equal
// or unequal slots, free slots, sometimes a node layout; a graph, random or local,
// whose volumes may be zero or repeated. greedy, rt and rb (any grouping they
// take) with the host groups' steps: analytic placement (its iterations drawn),
// tabu search and sometimes annealing. Checks that every mapping succeeds, is
// one-to-one and has no more hop-bytes than identity or block; and that analytic
// placement and tabu search from the launcher's placement with the hosts shuffled
// keep every group whole, one to a host, never raising the cost.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <numeric>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "../unit/map_test_machines.h"
#include "loader_fuzz_checks.h"
#include "map/mapping.h"
#include "map/metrics.h"
#include "map/placement_steps.h"

namespace {

// The input read a byte at a time; past its end every byte is 0.
class Bytes {
 public:
  Bytes(const uint8_t *data, size_t size) : data_(data), size_(size) {}
  bool empty() const { return size_ == 0; }
  int next() { return size_ ? (--size_, *data_++) : 0; }
  int in(int low, int high) { return low + next() % (high - low + 1); }

 private:
  const uint8_t *data_;
  size_t size_;
};

std::shared_ptr<const canopy::topo::Topology> torus(Bytes &in) {
  std::vector<int> dims(static_cast<size_t>(in.in(1, 3)));
  std::string text = "dims";
  for (int &d : dims) text += " " + std::to_string(d = in.in(1, 4));
  text += "\n";
  for (int h = 0, hosts = in.in(1, 12); h < hosts; ++h) {
    text += "host h" + std::to_string(h);
    for (int d : dims) text += " " + std::to_string(in.in(0, d - 1));
    text += "\n";
  }
  return std::make_shared<const canopy::topo::Topology>(canopy::topo::load_torus(text, "fuzz.torus"));
}

// A step that moves whole host groups (analytic placement, tabu search) from the
// launcher's placement with the hosts shuffled (which, unlike the walk's, leaves it
// much to find): every host ends up with one whole group of the start, and the
// cost never rises.
template <class Step>
void expect_groups_moved_whole(const canopy::map::Problem &problem, const char *name, unsigned shuffle, Step step) {
  namespace map = canopy::map;
  const map::Machine &m = problem.machine;
  map::CommGraph padded = problem.graph.padded(m.num_slots());
  std::vector<int> host_at(static_cast<size_t>(m.num_hosts())), start(static_cast<size_t>(m.num_slots())), placed;
  std::iota(host_at.begin(), host_at.end(), 0);
  std::shuffle(host_at.begin(), host_at.end(), std::mt19937(shuffle));
  for (int v = 0; v < m.num_slots(); ++v) start[static_cast<size_t>(v)] = host_at[static_cast<size_t>(m.host_of_slot(v))];
  placed = start;
  double before = map::inter_node_hop_bytes(padded, m, start);
  step(padded, m, placed);
  if (map::inter_node_hop_bytes(padded, m, placed) > before * (1 + 1e-9) + 1e-6)
    canopy::fuzz::finding(std::string(name) + " raised the cost");
  std::vector<int> group_on(static_cast<size_t>(m.num_hosts()), -1);  // host -> the start host whose group it holds
  for (size_t v = 0; v < placed.size(); ++v) {
    int &group = group_on[static_cast<size_t>(placed[v])];
    if (group >= 0 && group != start[v]) canopy::fuzz::finding(std::string(name) + ": a host holds parts of two groups");
    group = start[v];
  }
  std::vector<int> seen(static_cast<size_t>(m.num_hosts()), 0);
  for (int group : group_on)
    if (group >= 0 && seen[static_cast<size_t>(group)]++) canopy::fuzz::finding(std::string(name) + ": a group split over two hosts");
}

void map_one(Bytes &in) {
  namespace map = canopy::map;
  bool on_torus = in.next() & 1;
  auto topo = on_torus ? torus(in) : canopy::test::fat_tree(in.in(1, 4), in.in(1, 4), in.in(1, 2));
  std::vector<int> hosts = canopy::test::all_hosts(*topo, static_cast<unsigned>(in.next()) + 1);
  hosts.resize(static_cast<size_t>(in.in(1, static_cast<int>(hosts.size()))));
  bool unequal = in.next() & 1;
  std::vector<int> slots(hosts.size(), in.in(1, 4));
  if (unequal)
    for (int &s : slots) s = in.in(1, 4);
  std::optional<map::NodeLayout> node;
  if (in.next() & 1)
    node = map::NodeLayout::from(canopy::topo::NodeTopology::load("pack:2 core:2 pu:1"),
                                 *std::max_element(slots.begin(), slots.end()));
  map::Machine machine(topo, hosts, slots, std::move(node));
  // The mappings' options before the graph, which takes the rest of the input.
  std::vector<map::MapOptions> runs;
  for (const char *algorithm : {"greedy", "rt", "rb"}) {
    if (!on_torus && std::string(algorithm) == "rb") continue;
    map::MapOptions options;
    options.algorithm = algorithm;
    // Flat groups need equal hosts (they refuse others); every other grouping takes any.
    options.groups = std::vector<map::GroupChoice>{map::GroupChoice::Auto, map::GroupChoice::Tree, map::GroupChoice::Runs,
                                                   map::GroupChoice::Flat}[static_cast<size_t>(in.next() % (unequal ? 3 : 4))];
    options.seed = in.next();
    options.analytic_iterations = in.next() % 13;
    options.anneal_moves = in.next() % 4 == 0 ? 50 : 0;
    runs.push_back(options);
  }
  int processes = in.in(1, machine.num_slots());
  // Pairs anywhere, or (a graph with locality, as the applications' are) within a few ranks.
  bool local = in.next() & 1;
  map::CommGraphBuilder graph(processes);
  for (int e = 0; e < 200 && !in.empty(); ++e) {
    int u = in.next() % processes, v = local ? (u + in.next() % 4) % processes : in.next() % processes;
    graph.add(u, v, 16.0 * in.next());
  }
  map::Problem problem{graph.build(), std::move(machine)};
  double baseline = std::min(map::evaluate(problem, map::identity_placement(problem)).hop_bytes,
                             map::evaluate(problem, map::block_placement(problem)).hop_bytes);
  for (const map::MapOptions &options : runs) {
    const std::string &algorithm = options.algorithm;
    map::MapResult result = map::map_processes(problem, options);
    map::check_placement(problem, result.slot_of_process);
    if (map::evaluate(problem, result.slot_of_process).hop_bytes > baseline * (1 + 1e-9) + 1e-6)
      canopy::fuzz::finding(algorithm + " placed worse than identity or block");
  }
  unsigned shuffle = static_cast<unsigned>(runs[0].seed);
  expect_groups_moved_whole(problem, "analytic placement", shuffle, [&](const map::CommGraph &g, const map::Machine &m, std::vector<int> &h) {
    map::place_host_groups_analytically(g, m, h, runs[0].analytic_iterations);
  });
  expect_groups_moved_whole(problem, "tabu search", shuffle, [&](const map::CommGraph &g, const map::Machine &m, std::vector<int> &h) {
    map::tabu_search_host_groups(g, m, h, shuffle);
  });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  Bytes in(data, size);
  canopy_status_t status = canopy::guard([&] { map_one(in); });
  if (status != CANOPY_SUCCESS) canopy::fuzz::finding("mapping failed: " + std::string(canopy_last_error()));
  return 0;
}

// The node leaders' orders of the topology-aware Bcast (coll_bcast_leader_order) for a job's
// hosts on a fabric, worked out as libcanopy-mpi does from the routes canopyd answers (the same
// host_matrices, message_delays and order_leaders), for the SMPI benchmark bench/smpi_bcast.sh;
// and as it does without canopyd, from the hosts' HCA rates (LeaderLinks::from_rates: here the
// rate of each host's cable in the fabric, which is what its /sys/class/infiniband port shows).
// Writes on stdout "parents P0 P1 ..." (the tree), then "ORDER ROOT BYTES L0 L1 ..." (the
// leader at each position) for every order (none, dft, bft; dft-hca, bft-hca), root and size.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "coll/plan/leader_order.h"
#include "common/error.h"
#include "common/file_io.h"
#include "common/params.h"
#include "map/machine.h"
#include "topo/source.h"
#include "topo/views.h"

int main(int argc, char **argv) {
  using namespace canopy;
  CLI::App app{"Leader orders of the topology-aware Bcast for a job's hosts (bench/smpi_bcast.sh)"};
  std::string fabric, hostfile, tree = "binomial";
  int radix = 4, roots = 1;
  std::vector<size_t> sizes{65536};
  app.add_option("--fabric", fabric, "Topology source")->required();
  app.add_option("--hosts", hostfile, "The job's hosts, one per line: node i's leader on line i")->required();
  app.add_option("--tree", tree, "The tree between the leaders: binomial, knomial, chain (default binomial)")
      ->check(CLI::IsMember({"binomial", "knomial", "chain"}));
  app.add_option("--radix", radix, "k-nomial radix (default 4)")->check(CLI::Range(2, 64));
  app.add_option("--bytes", sizes, "Message sizes, each with its own orders (default 65536)")
      ->delimiter(',')
      ->check(CLI::Range(size_t{1}, size_t{1} << 30));
  app.add_option("--roots", roots, "Root nodes, spread evenly over the nodes from node 0 (default 1)")
      ->check(CLI::Range(1, 1 << 20));
  CLI11_PARSE(app, argc, argv);
  try {
    topo::Topology topology = topo::load_topology(fabric);
    std::vector<int> hosts = map::allocation_hosts(topology, read_file(hostfile), hostfile);
    int n = static_cast<int>(hosts.size());
    if (n < 2) throw Error(CANOPY_ERR_INVALID_ARG, hostfile + ": at least two hosts");
    coll::LeaderLinks routes = coll::LeaderLinks::from(topo::host_matrices(topology, hosts));
    std::vector<double> hca_gbps;
    for (int h : hosts) {
      hca_gbps.push_back(topo::host_link_gbps(topology, h));
      if (hca_gbps.back() <= 0) throw Error(CANOPY_ERR_INVALID_ARG, fabric + ": host " + topology.node(h).name + " has no link rate");
    }
    std::optional<coll::LeaderLinks> rates = coll::LeaderLinks::from_rates(hca_gbps);  // none: one rate
    std::vector<int> parent = coll::bcast_tree_parents(tree, n, radix);
    std::printf("parents");
    for (int p : parent) std::printf(" %d", p);
    std::printf("\n");
    using coll::LeaderOrder;
    const coll::LeaderLinks &by_rate = rates ? *rates : routes;  // one rate: the tree's own order
    LeaderOrder dft_hca = rates ? LeaderOrder::DepthFirst : LeaderOrder::None;
    LeaderOrder bft_hca = rates ? LeaderOrder::BreadthFirst : LeaderOrder::None;
    const struct {
      const char *name;
      LeaderOrder how;
      const coll::LeaderLinks &links;
    } kinds[] = {{"none", LeaderOrder::None, routes},        {"dft", LeaderOrder::DepthFirst, routes},
                 {"bft", LeaderOrder::BreadthFirst, routes}, {"dft-hca", dft_hca, by_rate},
                 {"bft-hca", bft_hca, by_rate}};
    for (size_t bytes : sizes)
      for (const auto &kind : kinds) {
        coll::DelaysFrom delay =
            coll::message_delays(kind.links, param_double("topo_hop_latency_us"), coll::delay_size_class(bytes));
        for (int r = 0; r < roots && r < n; ++r) {
          int root = static_cast<int>(static_cast<long long>(r) * n / std::min(roots, n));
          std::printf("%s %d %zu", kind.name, root, bytes);
          for (int leader : coll::order_leaders(parent, root, delay, kind.how)) std::printf(" %d", leader);
          std::printf("\n");
        }
      }
  } catch (const Error &e) {
    std::fprintf(stderr, "bench_bcast_orders: error: %s\n", e.what());
    return 1;
  }
  return 0;
}

// Bcast algorithms. Trees use virtual ranks relative to the root (p2p.h).
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <tuple>
#include <vector>

#include "coll/algorithms.h"
#include "coll/p2p.h"
#include "coll/plan/layout.h"
#include "coll/plan/leader_order.h"
#include "coll/shm/node_collectives.h"
#include "common/error.h"
#include "common/log.h"
#include "service/client.h"
#include "topo/local_hca.h"

namespace canopy::coll {
namespace {

constexpr int kTagTree = 201, kTagChain = 202;

// k-nomial tree: in round j (mask = k^j) virtual ranks below mask send to v + i*mask, i < k.
void knomial(MPI_Comm comm, char *buf, size_t bytes, const VirtualRanks &vr, int radix) {
  CommInfo c(comm);
  int v = vr.virtual_of(c.rank);
  long long mask = 1;
  while (mask < c.size) {
    if (v % (radix * mask)) {
      recv_bytes(buf, bytes, vr.real(static_cast<int>(v - v % (radix * mask))), kTagTree, comm);
      break;
    }
    mask *= radix;
  }
  for (mask /= radix; mask > 0; mask /= radix)
    for (int i = 1; i < radix; ++i)
      if (v + i * mask < c.size) send_bytes(buf, bytes, vr.real(static_cast<int>(v + i * mask)), kTagTree, comm);
}

// Van de Geijn: scatter p blocks down a binomial tree, then allgather them.
void scatter_allgather(MPI_Comm comm, char *buf, size_t bytes, const VirtualRanks &vr, BlockAllgatherFn allgather) {
  CommInfo c(comm);
  if (c.size == 1 || bytes == 0) return;
  Blocks blocks = Blocks::even_split(bytes, c.size);
  int v = vr.virtual_of(c.rank);
  scatter_blocks_binomial(buf, blocks, comm, vr, v);
  allgather(buf, blocks, comm, vr, v);
}

// Pipelined chain: segments flow root -> root+1 -> ...; each rank forwards segment s while
// segment s+1 is still arriving (non-blocking sends, completed at the end).
void chain(MPI_Comm comm, char *buf, size_t bytes, const VirtualRanks &vr, size_t segment) {
  CommInfo c(comm);
  int v = vr.virtual_of(c.rank);
  std::vector<MPI_Request> sends;
  for (size_t off = 0; off < bytes; off += segment) {
    size_t len = std::min(segment, bytes - off);
    if (v > 0) recv_bytes(buf + off, len, vr.real(v - 1), kTagChain, comm);
    if (v + 1 < c.size) {
      sends.emplace_back();
      check_mpi(PMPI_Isend(buf + off, static_cast<int>(len), MPI_BYTE, vr.real(v + 1), kTagChain, comm, &sends.back()),
                "MPI_Isend");
    }
  }
  wait_all(sends);
}

void run_flat(const char *name, Hierarchy &h, char *buf, size_t bytes, int root) {
  flat_bcast(h.config, name, h.comm, buf, bytes, root);
}
void bcast_binomial(Hierarchy &h, char *buf, size_t bytes, int root) { run_flat("binomial", h, buf, bytes, root); }
void bcast_knomial(Hierarchy &h, char *buf, size_t bytes, int root) { run_flat("knomial", h, buf, bytes, root); }
void bcast_scatter_rd(Hierarchy &h, char *buf, size_t bytes, int root) {
  run_flat("scatter_rd_allgather", h, buf, bytes, root);
}
void bcast_scatter_ring(Hierarchy &h, char *buf, size_t bytes, int root) {
  run_flat("scatter_ring_allgather", h, buf, bytes, root);
}
void bcast_chain(Hierarchy &h, char *buf, size_t bytes, int root) { run_flat("chain", h, buf, bytes, root); }

void bcast_shm(Hierarchy &h, char *buf, size_t bytes, int root) {
  shm::bcast(h.node_segment(), buf, bytes, h.local_rank_of[root], h.config.shm_mode);
}

// This leader's host, as the topology service knows it: its line of the host map, else the
// processor name.
std::string leader_host(const Hierarchy &h) {
  if (!h.config.hostmap.empty()) return hostmap_host(load_hostmap(h.config.hostmap), h.config.hostmap);
  char name[MPI_MAX_PROCESSOR_NAME] = {};
  int length = 0;
  check_mpi(PMPI_Get_processor_name(name, &length), "MPI_Get_processor_name");
  return std::string(name, static_cast<size_t>(length));
}

// The routes' hops and rates between hosts, as topo_server answered them for the last few lists
// of leaders' hosts this process asked about: communicators over the same nodes (MPI_Comm_dup,
// libraries' private copies of MPI_COMM_WORLD) ask once, not once each (9 s at 4,096 hosts).
std::shared_ptr<const LeaderLinks> server_links(const std::string &server, const std::vector<std::string> &hosts) {
  static std::mutex mutex;
  static std::deque<std::tuple<std::string, std::vector<std::string>, std::shared_ptr<const LeaderLinks>>> asked;
  constexpr size_t kKept = 4;
  std::lock_guard<std::mutex> lock(mutex);
  for (const auto &[s, h, links] : asked)
    if (s == server && h == hosts) return links;
  auto links = std::make_shared<const LeaderLinks>(LeaderLinks::from(service::ServiceClient(server).matrices(hosts)));
  asked.emplace_front(server, hosts, links);
  if (asked.size() > kKept) asked.pop_back();
  return links;
}

// This leader's HCA rate in Gb/s (coll_hca_port's, else the first active port's); 0 for none,
// said in the info log.
double leader_hca_gbps(const Hierarchy &h) {
  try {
    return topo::host_hca_port(topo::local_hca_ports(), h.config.hca_port).rate.gbps;
  } catch (const Error &e) {
    CANOPY_LOG(Info, "collectives: no HCA rate for the Bcast between node leaders: %s", e.what());
    return 0;
  }
}

// Without topo_server, the paper's speed-aware delays (IV-B2): every leader's HCA rate; none
// where all run at one rate.
std::optional<LeaderLinks> rate_links(const std::vector<std::string> &hosts, const std::vector<double> &gbps) {
  std::map<double, int> leaders_at;
  for (size_t l = 0; l < hosts.size(); ++l) {
    if (gbps[l] <= 0)
      throw Error(CANOPY_ERR_NOT_FOUND, "topo_server (CANOPY_TOPO_SERVER) is not set, and node " + std::to_string(l) +
                                            " (" + hosts[l] + ") has no active InfiniBand port (its info log says why)");
    ++leaders_at[gbps[l]];
  }
  std::string rates;
  for (const auto &[rate, leaders] : leaders_at) {
    char text[64];
    snprintf(text, sizeof text, " %d at %g Gb/s", leaders, rate);
    rates += text;
  }
  CANOPY_LOG(Info, "collectives: delays between %zu node leaders from their HCA rates (no topo_server):%s%s",
             hosts.size(), rates.c_str(), leaders_at.size() == 1 ? ": one rate, the tree's own order" : "");
  return LeaderLinks::from_rates(gbps);
}

// Leader 0 learns the delays between the leaders, once; collective over the leaders: the routes
// between their hosts from topo_server, or without it their HCA rates. Without an answer (no
// server, a host it does not know, a leader without an active port) the tree keeps its order.
void ask_leader_links(Hierarchy &h) {
  h.leader_links_asked = true;
  CommInfo c(h.leaders);
  // One message per leader: its host's name, then (without canopyd) its HCA's rate.
  constexpr size_t kName = MPI_MAX_PROCESSOR_NAME, kEntry = kName + sizeof(double);
  std::vector<char> mine(kEntry, '\0');
  std::string host = leader_host(h);
  std::memcpy(mine.data(), host.data(), std::min(host.size(), kName));  // a longer name is cut short
  double my_gbps = h.config.topo_server.empty() ? leader_hca_gbps(h) : 0;
  std::memcpy(mine.data() + kName, &my_gbps, sizeof my_gbps);
  std::vector<char> all(c.rank == 0 ? kEntry * static_cast<size_t>(c.size) : 0);
  check_mpi(PMPI_Gather(mine.data(), static_cast<int>(kEntry), MPI_BYTE, all.data(), static_cast<int>(kEntry), MPI_BYTE, 0,
                        h.leaders),
            "MPI_Gather");
  int known = 0;
  if (c.rank == 0) {
    std::vector<std::string> hosts;
    std::vector<double> gbps(static_cast<size_t>(c.size));
    for (size_t l = 0; l < gbps.size(); ++l) {
      const char *entry = &all[l * kEntry];
      hosts.emplace_back(entry, strnlen(entry, kName));
      std::memcpy(&gbps[l], entry + kName, sizeof(double));
    }
    try {
      if (!h.config.topo_server.empty())
        h.leader_links = server_links(h.config.topo_server, hosts);
      else if (std::optional<LeaderLinks> links = rate_links(hosts, gbps))
        h.leader_links = std::make_shared<const LeaderLinks>(std::move(*links));
      known = h.leader_links != nullptr;
    } catch (const Error &e) {
      CANOPY_LOG(Warn, "collectives: Bcast between node leaders in the tree's own order, not %s: no delays between "
                       "their hosts (%s)", leader_order_name(h.config.bcast_leader_order), e.what());
    }
  }
  check_mpi(PMPI_Bcast(&known, 1, MPI_INT, 0, h.leaders), "MPI_Bcast");
  h.leader_links_known = known;
}

// The leaders' order for a Bcast of @p bytes from @p root_node (coll_bcast_leader_order), made
// by leader 0 at the first Bcast of that root and size class and sent to the others; nullptr
// for the tree's own order. A communicator keeps at most kMostOrders of them (8 bytes per leader
// each; one takes leader 0 about 45 ms at 4,096 leaders), then makes them afresh: every leader
// holds the same ones, so all start over together.
const TreeOrder *leader_order(Hierarchy &h, int root_node, size_t bytes) {
  constexpr size_t kMostOrders = 1024;
  LeaderOrder how = h.config.bcast_leader_order;
  if (how == LeaderOrder::None) return nullptr;
  size_t size_class = delay_size_class(bytes);
  if (auto it = h.leader_orders.find({root_node, size_class}); it != h.leader_orders.end()) return &it->second;
  if (!h.leader_links_asked) ask_leader_links(h);
  if (!h.leader_links_known) return nullptr;
  if (h.leader_orders.size() >= kMostOrders) h.leader_orders.clear();
  CommInfo c(h.leaders);
  std::vector<int> order(static_cast<size_t>(c.size));
  if (c.rank == 0) {
    const std::string &inter = h.config.bcast_inter_algorithm;
    order = order_leaders(bcast_tree_parents(inter, c.size, h.config.bcast_knomial_radix), root_node,
                          message_delays(*h.leader_links, h.config.hop_latency_us, size_class), how);
    std::string first;
    for (size_t v = 0; v < order.size() && v < 16; ++v) first += " " + std::to_string(order[v]);
    CANOPY_LOG(Info, "collectives: Bcast of up to %zu bytes from node %d between %d node leaders in %s order (%s tree):%s%s",
               size_class, root_node, c.size, leader_order_name(how), inter.c_str(), first.c_str(),
               order.size() > 16 ? " ..." : "");
  }
  check_mpi(PMPI_Bcast(order.data(), c.size, MPI_INT, 0, h.leaders), "MPI_Bcast");
  return &h.leader_orders.emplace(std::pair{root_node, size_class}, TreeOrder(std::move(order))).first->second;
}

// MVAPICH's scheme (topology-aware bcast paper, III-C): the root's node first (so its leader
// has the data), then the node leaders, then every other node from its leader. The leaders'
// tree may follow the fabric (IV-B: leader_order).
void bcast_two_level(Hierarchy &h, char *buf, size_t bytes, int root) {
  int root_node = h.node_of[root];
  const std::string &inter = h.config.bcast_inter_algorithm;  // both names checked with the hierarchy
  if (h.node_index == root_node) intra_node_bcast(h, buf, bytes, h.local_rank_of[root]);
  if (h.leaders != MPI_COMM_NULL)
    flat_bcast(h.config, inter, h.leaders, buf, bytes, root_node, leader_order(h, root_node, bytes));
  if (h.node_index != root_node) intra_node_bcast(h, buf, bytes, 0);
}

const Implementation<BcastFn> kBcast[] = {
    {"binomial", bcast_binomial, nullptr},
    {"knomial", bcast_knomial, nullptr},
    {"scatter_rd_allgather", bcast_scatter_rd, nullptr},
    {"scatter_ring_allgather", bcast_scatter_ring, nullptr},
    {"chain", bcast_chain, nullptr},
    {"shm", bcast_shm, needs_one_node},
    {"two_level", bcast_two_level, nullptr},
};

}  // namespace

std::string needs_one_node(const Hierarchy &h) { return h.nodes == 1 ? "" : "needs every rank on one node"; }

bool is_flat_bcast(const std::string &name) {
  for (const char *flat : {"binomial", "knomial", "scatter_rd_allgather", "scatter_ring_allgather", "chain"})
    if (name == flat) return true;
  return false;
}

void flat_bcast(const CollConfig &config, const std::string &name, MPI_Comm comm, char *buf, size_t bytes, int root,
                const TreeOrder *order) {
  VirtualRanks vr{CommInfo(comm).size, root, order};
  if (name == "binomial") return knomial(comm, buf, bytes, vr, 2);
  if (name == "knomial") return knomial(comm, buf, bytes, vr, config.bcast_knomial_radix);
  if (name == "scatter_rd_allgather") return scatter_allgather(comm, buf, bytes, vr, allgather_blocks_rd);
  if (name == "scatter_ring_allgather") return scatter_allgather(comm, buf, bytes, vr, allgather_blocks_ring);
  if (name == "chain") return chain(comm, buf, bytes, vr, config.bcast_chain_segment_bytes);
  throw Error(CANOPY_ERR_INVALID_ARG, "'" + name +
                                          "' is not a flat bcast algorithm (binomial, knomial, scatter_rd_allgather, "
                                          "scatter_ring_allgather, chain)");
}

void intra_node_bcast(Hierarchy &h, char *buf, size_t bytes, int root) {
  if (h.config.bcast_intra_algorithm == "shm")
    shm::bcast(h.node_segment(), buf, bytes, root, h.config.shm_mode);
  else
    flat_bcast(h.config, h.config.bcast_intra_algorithm, h.node, buf, bytes, root);
}

const Implementation<BcastFn> *bcast_implementation(const std::string &name) {
  for (const auto &impl : kBcast)
    if (name == impl.name) return &impl;
  return nullptr;
}

}  // namespace canopy::coll

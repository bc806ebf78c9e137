// Topology- and speed-aware Bcast between node leaders (the topology-aware bcast paper,
// IV-B: ../shared/papers/topology-speed-aware-bcast-infiniband.txt), without MPI so it is
// unit-tested.
//
// A tree broadcast suffers most from a delay at a node with many descendants, so the
// leaders are re-ordered before the inter-node tree runs: the tree's positions are visited
// depth first or breadth first from the root, children with more descendants first, and each
// position takes the not yet placed leader with the least delay from the leader at its
// parent's position. The root's leader keeps position 0.
//
// Beyond the paper: the delays are those of the message being sent (hops x hop latency +
// bytes / the route's slowest rate), and delays within kDelayTolerance of the least count as
// equal, the lowest leader index (the scheduler's order) winning. For a large message on a
// fabric of one speed the hop counts then no longer decide, and the leaders stay spread as the
// scheduler listed them: nearest-first placement crowds concurrent transfers into one part of
// the fabric, which cost up to 16% at 1 MiB in SMPI (docs/benchmarks.md).
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "topo/views.h"

namespace canopy::coll {

enum class LeaderOrder { None, DepthFirst, BreadthFirst };

/** "none", "dft", "bft": the names of coll_bcast_leader_order. */
const char *leader_order_name(LeaderOrder order);

/** The parent of every position of the flat Bcast @p algorithm's tree over @p n positions
    rooted at 0 (parent[0] = -1): k-nomial trees (binomial: radix 2; the scatter of
    scatter_rd_allgather and scatter_ring_allgather is binomial), the chain's path. */
std::vector<int> bcast_tree_parents(const std::string &algorithm, int n, int knomial_radix);

/** What the delays between leaders come from: per ordered pair (row-major, n x n), the links
    on the route and the inverse of its slowest link's rate (1 / (Gb/s); 0 where unknown); or,
    with no route known, per leader the inverse of its HCA's rate (a pair: the slower HCA's). */
struct LeaderLinks {
  std::vector<uint8_t> hops;  // at most 255
  std::vector<float> inverse_gbps;
  std::vector<float> hca_inverse_gbps;  // n, where hops and inverse_gbps are empty
  /** From the matrices canopyd answers (or host_matrices gives). */
  static LeaderLinks from(const topo::HostMatrices &m);
  /** From each leader's HCA rate (Gb/s, > 0): the paper's speed-aware delays (IV-B2), no hops;
      none where every leader has the same rate (every delay would tie: the tree's own order). */
  static std::optional<LeaderLinks> from_rates(const std::vector<double> &gbps);
};

/** Delays are equal within this fraction of the least. */
constexpr float kDelayTolerance = 0.05f;

/** Fills @p row (one entry per leader) with the delays from leader @p from to each leader: a
    row at a time, so that ordering n leaders needs O(n) memory, not an n x n matrix. */
using DelaysFrom = std::function<void(int from, std::vector<float> &row)>;

/** The microseconds to send @p bytes from one leader to another: hops x @p hop_latency_us +
    bytes / rate (a pair without a known rate: the hops alone). @p links must outlive the result. */
DelaysFrom message_delays(const LeaderLinks &links, double hop_latency_us, size_t bytes);

/** The size class a Bcast's order is made for: bytes rounded up to a power of two. */
size_t delay_size_class(size_t bytes);

/** Position -> leader: position 0 holds @p root, every other position the leader chosen for it
    as above (delays within kDelayTolerance of the least are ties: the lowest leader index).
    @p parent: a tree rooted at position 0 whose parents precede their children
    (parent[v] < v), as bcast_tree_parents gives. @p delays_from: the cost of sending from a
    leader to each. @p order None: the tree's own order (position p holds (root + p) mod n). */
std::vector<int> order_leaders(const std::vector<int> &parent, int root, const DelaysFrom &delays_from,
                               LeaderOrder order);

}  // namespace canopy::coll

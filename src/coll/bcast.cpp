// Bcast algorithms. Trees use virtual ranks relative to the root (p2p.h).
#include <algorithm>
#include <vector>

#include "coll/algorithms.h"
#include "coll/p2p.h"
#include "coll/shm/node_collectives.h"
#include "common/error.h"

namespace canopy::coll {
namespace {

constexpr int kTagTree = 201, kTagChain = 202;

// k-nomial tree: in round j (mask = k^j) virtual ranks below mask send to v + i*mask, i < k.
void knomial(MPI_Comm comm, char *buf, size_t bytes, int root, int radix) {
  CommInfo c(comm);
  VirtualRanks vr{c.size, root};
  int v = (c.rank - root + c.size) % c.size;
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
void scatter_allgather(MPI_Comm comm, char *buf, size_t bytes, int root, BlockAllgatherFn allgather) {
  CommInfo c(comm);
  if (c.size == 1 || bytes == 0) return;
  Blocks blocks = Blocks::even_split(bytes, c.size);
  VirtualRanks vr{c.size, root};
  int v = (c.rank - root + c.size) % c.size;
  scatter_blocks_binomial(buf, blocks, comm, vr, v);
  allgather(buf, blocks, comm, vr, v);
}

// Pipelined chain: segments flow root -> root+1 -> ...; each rank forwards segment s while
// segment s+1 is still arriving (non-blocking sends, completed at the end).
void chain(MPI_Comm comm, char *buf, size_t bytes, int root, size_t segment) {
  CommInfo c(comm);
  VirtualRanks vr{c.size, root};
  int v = (c.rank - root + c.size) % c.size;
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

// MVAPICH's scheme (topology-aware bcast paper, III-C): the root's node first (so its leader
// has the data), then the node leaders, then every other node from its leader.
void bcast_two_level(Hierarchy &h, char *buf, size_t bytes, int root) {
  int root_node = h.node_of[root];
  const std::string &inter = h.config.bcast_inter_algorithm;  // both names checked with the hierarchy
  if (h.node_index == root_node) intra_node_bcast(h, buf, bytes, h.local_rank_of[root]);
  if (h.leaders != MPI_COMM_NULL) flat_bcast(h.config, inter, h.leaders, buf, bytes, root_node);
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

void flat_bcast(const CollConfig &config, const std::string &name, MPI_Comm comm, char *buf, size_t bytes, int root) {
  if (name == "binomial") return knomial(comm, buf, bytes, root, 2);
  if (name == "knomial") return knomial(comm, buf, bytes, root, config.bcast_knomial_radix);
  if (name == "scatter_rd_allgather") return scatter_allgather(comm, buf, bytes, root, allgather_blocks_rd);
  if (name == "scatter_ring_allgather") return scatter_allgather(comm, buf, bytes, root, allgather_blocks_ring);
  if (name == "chain") return chain(comm, buf, bytes, root, config.bcast_chain_segment_bytes);
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

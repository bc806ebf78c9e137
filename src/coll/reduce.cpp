// Reduce and Allreduce algorithms. The operation is commutative (every predefined one is),
// but each algorithm still combines in an order fixed by the communicator alone, never by
// message arrival: the lower (virtual) rank's data is always the left operand, and every
// element of an Allreduce result is computed by one rank (or identically by both partners
// of a recursive-doubling exchange) and copied from there, so floating-point results are
// bit-identical on every rank. Trees use virtual ranks relative to the root (p2p.h).
#include <algorithm>
#include <vector>

#include "coll/algorithms.h"
#include "coll/p2p.h"
#include "coll/shm/node_collectives.h"
#include "common/error.h"
#include "common/params.h"

namespace canopy::coll {
namespace {

constexpr int kTagTree = 501, kTagFold = 502, kTagHalving = 503, kTagGather = 504, kTagRd = 505, kTagRing = 506,
              kTagDeliver = 507;

using FlatReduceFn = void (*)(MPI_Comm comm, char *buf, size_t bytes, const Reduction &op, int root);
using FlatAllreduceFn = void (*)(MPI_Comm comm, char *buf, size_t bytes, const Reduction &op);

int mod(int a, int p) { return (a % p + p) % p; }

// @p parts blocks of whole elements (never splitting an element), the larger ones first.
Blocks element_blocks(size_t bytes, size_t elem, int parts) {
  Blocks b = Blocks::even_split(bytes / elem, parts);
  for (size_t &off : b.offset) off *= elem;
  for (size_t &len : b.length) len *= elem;
  return b;
}

// mine = mine op theirs, or theirs op mine: the lower rank's data on the left.
void combine_into(const Reduction &op, char *mine, const char *theirs, size_t bytes, bool mine_is_lower) {
  if (mine_is_lower)
    op.apply(mine, mine, theirs, bytes);
  else
    op.apply(mine, theirs, mine, bytes);
}

// Non-powers of two: virtual ranks pof2..p-1 hand their data to v - pof2, which combines it.
// True when this rank takes part in the power-of-two phase.
bool fold_in(char *buf, char *tmp, size_t bytes, const Reduction &op, MPI_Comm comm, const VirtualRanks &vr, int v,
             int pof2) {
  if (v >= pof2) {
    send_bytes(buf, bytes, vr.real(v - pof2), kTagFold, comm);
    return false;
  }
  if (v + pof2 < vr.p) {
    recv_bytes(tmp, bytes, vr.real(v + pof2), kTagFold, comm);
    op.apply(buf, buf, tmp, bytes);
  }
  return true;
}

// After an allreduce among the power of two: the folded ranks get the result back.
void fold_out(char *buf, size_t bytes, MPI_Comm comm, const VirtualRanks &vr, int v, int pof2) {
  if (v >= pof2)
    recv_bytes(buf, bytes, vr.real(v - pof2), kTagFold, comm);
  else if (v + pof2 < vr.p)
    send_bytes(buf, bytes, vr.real(v + pof2), kTagFold, comm);
}

// Recursive halving over virtual ranks 0..pof2-1: at distances pof2/2, ..., 1 each rank sends
// the half of its current block range that its partner keeps and combines the partner's copy
// of the half it keeps. Afterwards rank v holds block v reduced over all pof2 ranks.
void reduce_scatter_halving(char *buf, char *tmp, const Blocks &blocks, const Reduction &op, MPI_Comm comm,
                            const VirtualRanks &vr, int v, int pof2) {
  int lo = 0, hi = pof2;
  for (int mask = pof2 / 2; mask > 0; mask >>= 1) {
    int partner = v ^ mask, mid = lo + mask;
    bool upper = v & mask;
    int keep_lo = upper ? mid : lo, keep_hi = upper ? hi : mid, give_lo = upper ? lo : mid, give_hi = upper ? mid : hi;
    size_t keep_off = blocks.span_offset(keep_lo), keep = blocks.span_bytes(keep_lo, keep_hi);
    sendrecv_bytes(buf + blocks.span_offset(give_lo), blocks.span_bytes(give_lo, give_hi), vr.real(partner),
                   tmp + keep_off, keep, vr.real(partner), kTagHalving, comm);
    combine_into(op, buf + keep_off, tmp + keep_off, keep, !upper);
    lo = keep_lo;
    hi = keep_hi;
  }
}

// Binomial gather of block v from every virtual rank v < @p ranks (a power of two) to rank 0:
// the reverse of scatter_blocks_binomial.
void gather_blocks_binomial(char *buf, const Blocks &blocks, MPI_Comm comm, const VirtualRanks &vr, int v, int ranks) {
  for (int mask = 1; mask < ranks; mask <<= 1) {
    if (v & mask) {
      send_bytes(buf + blocks.span_offset(v), blocks.span_bytes(v, v + mask), vr.real(v - mask), kTagGather, comm);
      return;
    }
    recv_bytes(buf + blocks.span_offset(v + mask), blocks.span_bytes(v + mask, v + 2 * mask), vr.real(v + mask),
               kTagGather, comm);
  }
}

// --- flat algorithms on a plain communicator (also the building blocks between node leaders)

void reduce_binomial(MPI_Comm comm, char *buf, size_t bytes, const Reduction &op, int root) {
  CommInfo c(comm);
  VirtualRanks vr{c.size, root};
  int v = mod(c.rank - root, c.size);
  std::vector<char> tmp;
  for (int mask = 1; mask < c.size; mask <<= 1) {
    if (v & mask) {
      send_bytes(buf, bytes, vr.real(v - mask), kTagTree, comm);
      return;
    }
    if (v + mask < c.size) {
      tmp.resize(bytes);
      recv_bytes(tmp.data(), bytes, vr.real(v + mask), kTagTree, comm);
      op.apply(buf, buf, tmp.data(), bytes);
    }
  }
}

// Rabenseifner: reduce-scatter by recursive halving, then a binomial gather of the blocks.
void reduce_scatter_gather(MPI_Comm comm, char *buf, size_t bytes, const Reduction &op, int root) {
  CommInfo c(comm);
  VirtualRanks vr{c.size, root};
  int v = mod(c.rank - root, c.size), pof2 = floor_pow2(c.size);
  std::vector<char> tmp(bytes);
  if (!fold_in(buf, tmp.data(), bytes, op, comm, vr, v, pof2)) return;
  Blocks blocks = element_blocks(bytes, op.elem_bytes, pof2);
  reduce_scatter_halving(buf, tmp.data(), blocks, op, comm, vr, v, pof2);
  gather_blocks_binomial(buf, blocks, comm, vr, v, pof2);
}

void allreduce_recursive_doubling(MPI_Comm comm, char *buf, size_t bytes, const Reduction &op) {
  CommInfo c(comm);
  VirtualRanks vr{c.size, 0};
  int v = c.rank, pof2 = floor_pow2(c.size);
  std::vector<char> tmp(bytes);
  if (fold_in(buf, tmp.data(), bytes, op, comm, vr, v, pof2))
    for (int mask = 1; mask < pof2; mask <<= 1) {
      int partner = v ^ mask;
      sendrecv_bytes(buf, bytes, partner, tmp.data(), bytes, partner, kTagRd, comm);
      combine_into(op, buf, tmp.data(), bytes, v < partner);
    }
  fold_out(buf, bytes, comm, vr, v, pof2);
}

// Rabenseifner: reduce-scatter by recursive halving, then a recursive-doubling allgather.
void allreduce_reduce_scatter_allgather(MPI_Comm comm, char *buf, size_t bytes, const Reduction &op) {
  CommInfo c(comm);
  VirtualRanks vr{c.size, 0};
  int v = c.rank, pof2 = floor_pow2(c.size);
  std::vector<char> tmp(bytes);
  if (fold_in(buf, tmp.data(), bytes, op, comm, vr, v, pof2)) {
    Blocks blocks = element_blocks(bytes, op.elem_bytes, pof2);
    reduce_scatter_halving(buf, tmp.data(), blocks, op, comm, vr, v, pof2);
    allgather_blocks_rd(buf, blocks, comm, {pof2, 0}, v);
  }
  fold_out(buf, bytes, comm, vr, v, pof2);
}

// Ring reduce-scatter (p-1 steps: pass the partial block on, add mine), after which rank v
// holds block v+1 reduced, then the ring allgather of those blocks.
void allreduce_ring(MPI_Comm comm, char *buf, size_t bytes, const Reduction &op) {
  CommInfo c(comm);
  int p = c.size, v = c.rank;
  if (p == 1) return;
  Blocks blocks = element_blocks(bytes, op.elem_bytes, p);
  std::vector<char> tmp(blocks.length[0]);  // the largest block
  for (int step = 0; step < p - 1; ++step) {
    int send = mod(v - step, p), recv = mod(v - step - 1, p);
    char *mine = buf + blocks.offset[recv];
    sendrecv_bytes(buf + blocks.offset[send], blocks.length[send], mod(v + 1, p), tmp.data(), blocks.length[recv],
                   mod(v - 1, p), kTagRing, comm);
    op.apply(mine, tmp.data(), mine, blocks.length[recv]);
  }
  // Virtual rank v' = v + 1 (shift -1) holds block v': the allgather's starting state.
  allgather_blocks_ring(buf, blocks, comm, {p, p - 1}, mod(v + 1, p));
}

FlatReduceFn flat_reduce(const std::string &name) {
  if (name == "binomial") return reduce_binomial;
  if (name == "reduce_scatter_gather") return reduce_scatter_gather;
  throw Error(CANOPY_ERR_INVALID_ARG, param_env_name("coll_reduce_inter_algorithm") + ": '" + name +
                                          "' is not binomial or reduce_scatter_gather");
}

FlatAllreduceFn flat_allreduce(const std::string &name) {
  if (name == "recursive_doubling") return allreduce_recursive_doubling;
  if (name == "reduce_scatter_allgather") return allreduce_reduce_scatter_allgather;
  if (name == "ring") return allreduce_ring;
  throw Error(CANOPY_ERR_INVALID_ARG, param_env_name("coll_allreduce_inter_algorithm") + ": '" + name +
                                          "' is not recursive_doubling, reduce_scatter_allgather or ring");
}

// --- hierarchical and shared-memory algorithms

// Same decision on every rank (the largest node decides), made before any traffic.
void check_shm_fits(const Hierarchy &h, const Reduction &op) {
  size_t area = h.config.shm_buffer_bytes * static_cast<size_t>(h.config.shm_buffers);
  if (area / static_cast<size_t>(h.max_ranks_per_node) < op.elem_bytes)
    throw Error(CANOPY_ERR_INVALID_ARG, "coll_shm_buffer_bytes * coll_shm_buffers (" + std::to_string(area) +
                                            " bytes) is less than one " + std::to_string(op.elem_bytes) +
                                            "-byte element for each of " + std::to_string(h.max_ranks_per_node) +
                                            " ranks of a node");
}

void reduce_shm(Hierarchy &h, char *buf, size_t bytes, const Reduction &op, int root) {
  check_shm_fits(h, op);
  shm::reduce(h.node_segment(), buf, buf, bytes, op, h.local_rank_of[root]);
}

void allreduce_shm(Hierarchy &h, char *buf, size_t bytes, const Reduction &op) {
  check_shm_fits(h, op);
  shm::allreduce(h.node_segment(), buf, buf, bytes, op);
}

// Shared-memory reduction onto every node leader, reduce between the leaders towards the
// root's node, and a last hop inside that node when the root is not its leader.
void reduce_two_level(Hierarchy &h, char *buf, size_t bytes, const Reduction &op, int root) {
  FlatReduceFn inter = flat_reduce(h.config.reduce_inter_algorithm);  // on every rank, before any traffic
  check_shm_fits(h, op);
  int root_node = h.node_of[root], root_leader = h.node_leader[root_node];
  shm::reduce(h.node_segment(), buf, buf, bytes, op, 0);
  if (h.leaders != MPI_COMM_NULL && h.nodes > 1) inter(h.leaders, buf, bytes, op, root_node);
  if (root == root_leader) return;
  if (h.rank == root_leader) send_bytes(buf, bytes, root, kTagDeliver, h.comm);
  if (h.rank == root) recv_bytes(buf, bytes, root_leader, kTagDeliver, h.comm);
}

// Shared-memory reduction onto every node leader, allreduce between the leaders, node Bcast.
void allreduce_two_level(Hierarchy &h, char *buf, size_t bytes, const Reduction &op) {
  FlatAllreduceFn inter = flat_allreduce(h.config.allreduce_inter_algorithm);  // on every rank, before any traffic
  check_shm_fits(h, op);
  shm::reduce(h.node_segment(), buf, buf, bytes, op, 0);
  if (h.leaders != MPI_COMM_NULL && h.nodes > 1) inter(h.leaders, buf, bytes, op);
  intra_node_bcast(h, buf, bytes, 0);
}

template <FlatReduceFn Flat>
void reduce_flat(Hierarchy &h, char *buf, size_t bytes, const Reduction &op, int root) {
  Flat(h.comm, buf, bytes, op, root);
}

template <FlatAllreduceFn Flat>
void allreduce_flat(Hierarchy &h, char *buf, size_t bytes, const Reduction &op) {
  Flat(h.comm, buf, bytes, op);
}

const Implementation<ReduceFn> kReduce[] = {
    {"binomial", reduce_flat<reduce_binomial>, nullptr},
    {"reduce_scatter_gather", reduce_flat<reduce_scatter_gather>, nullptr},
    {"shm", reduce_shm, needs_one_node},
    {"two_level", reduce_two_level, nullptr},
};

const Implementation<AllreduceFn> kAllreduce[] = {
    {"recursive_doubling", allreduce_flat<allreduce_recursive_doubling>, nullptr},
    {"reduce_scatter_allgather", allreduce_flat<allreduce_reduce_scatter_allgather>, nullptr},
    {"ring", allreduce_flat<allreduce_ring>, nullptr},
    {"shm", allreduce_shm, needs_one_node},
    {"two_level", allreduce_two_level, nullptr},
};

}  // namespace

const Implementation<ReduceFn> *reduce_implementation(const std::string &name) {
  for (const auto &impl : kReduce)
    if (name == impl.name) return &impl;
  return nullptr;
}

const Implementation<AllreduceFn> *allreduce_implementation(const std::string &name) {
  for (const auto &impl : kAllreduce)
    if (name == impl.name) return &impl;
  return nullptr;
}

}  // namespace canopy::coll

// Reduce and Allreduce algorithms. The operation is commutative (every predefined one is),
// but each algorithm still combines in an order fixed by the communicator alone, never by
// message arrival: the lower (virtual) rank's data is always the left operand, and every
// element of an Allreduce result is computed by one rank (or identically by both partners
// of a recursive-doubling exchange) and copied from there, so floating-point results are
// bit-identical on every rank. Trees use virtual ranks relative to the root (p2p.h).
//
// Buffers: each algorithm reads this rank's contribution where the caller has it (the send
// buffer) and builds the result in place in the receive buffer (the root's, or every rank's
// for Allreduce), so a rank that only sends copies nothing and the root accumulates where
// the result belongs; partial results of the other ranks and the pieces in flight live in
// the communicator's scratch memory (scratch.h), which is neither allocated nor zeroed per
// call. Point-to-point transfers that end in a combine are pipelined (stream()): pieces of
// coll_reduce_segment_bytes, each combined as soon as it lands while the next is in flight,
// so the combine reads data still in cache and, along a tree, a parent works while its
// children still send. On one node, where the receiver of a single-copy transfer copies each
// piece itself, pieces only add handshakes (smaller ones measured slower at 2 ranks,
// docs/benchmarks.md), hence the large default.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "coll/algorithms.h"
#include "coll/allgather.h"
#include "coll/p2p.h"
#include "coll/shm/node_collectives.h"
#include "common/error.h"
#include "common/params.h"

namespace canopy::coll {
namespace {

constexpr int kTagTree = 501, kTagFold = 502, kTagHalving = 503, kTagGather = 504, kTagRd = 505, kTagRing = 506,
              kTagDeliver = 507;

// What a flat reduction needs besides its buffers: the communicator, the operation, the
// pipeline's piece size (whole elements) and working memory.
struct ReduceStep {
  MPI_Comm comm;
  const Reduction &op;
  size_t segment;
  Scratch &scratch;
};

/** Flat reduce: @p send holds this rank's contribution; @p recv receives the result at
    @p root and may be @p send there (in place). Elsewhere recv is nullptr, or a buffer the
    algorithm may use for partial results (send == recv between node leaders). */
using FlatReduceFn = void (*)(const ReduceStep &s, const char *send, char *recv, size_t bytes, int root);
/** Flat allreduce: the result in @p recv on every rank (@p send may be @p recv). */
using FlatAllreduceFn = void (*)(const ReduceStep &s, const char *send, char *recv, size_t bytes);

int mod(int a, int p) { return (a % p + p) % p; }

size_t round_up(size_t bytes, size_t to) { return (bytes + to - 1) / to * to; }

ReduceStep step_on(Hierarchy &h, MPI_Comm comm, const Reduction &op, ScratchUse use) {
  size_t segment = std::max(op.elem_bytes, h.config.reduce_segment_bytes / op.elem_bytes * op.elem_bytes);
  return {comm, op, segment, h.scratch(use)};
}

// The two alternating receive slots of stream() for transfers of up to @p bytes.
size_t slot_bytes(const ReduceStep &s, size_t bytes) { return bytes > s.segment ? 2 * s.segment : bytes; }

// Working memory: a partial-result buffer of @p bytes (unless @p acc is given) and the
// receive slots, from one scratch buffer.
struct Work {
  char *acc, *slots;
};
Work working(const ReduceStep &s, char *acc, size_t bytes) {
  size_t own = acc ? 0 : round_up(bytes, 64);
  char *mem = s.scratch.get(own + slot_bytes(s, bytes));
  return {acc ? acc : mem, mem + own};
}

// out = mine op theirs, or theirs op mine: the lower rank's data on the left (out may be mine).
void combine_into(const Reduction &op, char *out, const char *mine, const char *theirs, size_t bytes,
                  bool mine_is_lower) {
  if (mine_is_lower)
    op.apply(out, mine, theirs, bytes);
  else
    op.apply(out, theirs, mine, bytes);
}

// Bytes sent to a partner, and bytes received from one to combine: out = mine op theirs.
struct Outgoing {
  const char *data = nullptr;
  size_t bytes = 0;
  int to = MPI_PROC_NULL;
};
struct Incoming {
  char *out = nullptr;
  const char *mine = nullptr;
  size_t bytes = 0;
  int from = MPI_PROC_NULL;
  bool mine_is_lower = true;
};
// AfterCombine: piece k leaves only once piece k is combined (a tree node forwarding its
// partial result, give.data == take.out); AtOnce: the two directions are independent.
enum class SendWhen { AtOnce, AfterCombine };

// One pipelined transfer in pieces of s.segment: @p give's pieces go out (two in flight at
// most), @p take's land in the two @p slots in turn, the next one in flight while this one is
// combined. Either side may be empty; both partners cut the same byte count alike, so every
// piece meets its match (same tag and pair: MPI keeps their order).
void stream(const ReduceStep &s, char *slots, const Outgoing &give, const Incoming &take, SendWhen when, int tag) {
  size_t seg = s.segment, nsend = (give.bytes + seg - 1) / seg, nrecv = (take.bytes + seg - 1) / seg;
  MPI_Request sends[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL}, recvs[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  auto send = [&](size_t k) {
    if (k >= nsend) return;
    wait(1, &sends[k % 2]);
    sends[k % 2] = start_send(give.data + k * seg, std::min(seg, give.bytes - k * seg), give.to, tag, s.comm);
  };
  auto post_recv = [&](size_t k) {
    if (k < nrecv)
      recvs[k % 2] = start_recv(slots + (k % 2) * seg, std::min(seg, take.bytes - k * seg), take.from, tag, s.comm);
  };
  post_recv(0);
  for (size_t k = 0; k < std::max(nsend, nrecv); ++k) {
    post_recv(k + 1);  // into the slot piece k - 1 has left
    if (when == SendWhen::AtOnce) send(k);
    if (k < nrecv) {
      wait(1, &recvs[k % 2]);
      size_t off = k * seg;
      combine_into(s.op, take.out + off, take.mine + off, slots + (k % 2) * seg, std::min(seg, take.bytes - off),
                   take.mine_is_lower);
    }
    if (when == SendWhen::AfterCombine) send(k);
  }
  wait(2, sends);
}

// One rank: the result is the contribution.
bool alone(const ReduceStep &s, const char *send, char *recv, size_t bytes) {
  if (CommInfo(s.comm).size > 1) return false;
  if (recv && recv != send) std::memcpy(recv, send, bytes);
  return true;
}

// @p parts blocks of whole elements (never splitting an element), the larger ones first.
Blocks element_blocks(size_t bytes, size_t elem, int parts) {
  Blocks b = Blocks::even_split(bytes / elem, parts);
  for (size_t &off : b.offset) off *= elem;
  for (size_t &len : b.length) len *= elem;
  return b;
}

// Non-powers of two: virtual ranks pof2..p-1 hand their contribution to v - pof2, which
// combines it into w.acc. Returns where this rank's data now is (send, or w.acc after a
// combine), or nullptr when the rank has handed its part over.
const char *fold_in(const ReduceStep &s, const char *send, const Work &w, size_t bytes, const VirtualRanks &vr, int v,
                    int pof2) {
  if (v >= pof2) {
    stream(s, w.slots, {send, bytes, vr.real(v - pof2)}, {}, SendWhen::AtOnce, kTagFold);
    return nullptr;
  }
  if (v + pof2 >= vr.p) return send;
  stream(s, w.slots, {}, {w.acc, send, bytes, vr.real(v + pof2), true}, SendWhen::AtOnce, kTagFold);
  return w.acc;
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
// of the half it keeps into w.acc. @p mine: this rank's data (send or w.acc). Afterwards w.acc
// holds block v reduced over all pof2 ranks.
void reduce_scatter_halving(const ReduceStep &s, const char *mine, const Work &w, const Blocks &blocks,
                            const VirtualRanks &vr, int v, int pof2) {
  int lo = 0, hi = pof2;
  for (int mask = pof2 / 2; mask > 0; mask >>= 1) {
    int partner = vr.real(v ^ mask), mid = lo + mask;
    bool upper = v & mask;
    int keep_lo = upper ? mid : lo, keep_hi = upper ? hi : mid, give_lo = upper ? lo : mid, give_hi = upper ? mid : hi;
    size_t keep_off = blocks.span_offset(keep_lo), give_off = blocks.span_offset(give_lo);
    stream(s, w.slots, {mine + give_off, blocks.span_bytes(give_lo, give_hi), partner},
           {w.acc + keep_off, mine + keep_off, blocks.span_bytes(keep_lo, keep_hi), partner, !upper}, SendWhen::AtOnce,
           kTagHalving);
    mine = w.acc;
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

// Binomial tree: virtual rank v combines its children's partial results (subtrees v + 1,
// v + 2, v + 4, ..., each above everything it holds so far) piece by piece and forwards each
// piece to its parent as soon as the last child's has been added. A leaf sends its
// contribution straight from the send buffer.
void reduce_binomial(const ReduceStep &s, const char *send, char *recv, size_t bytes, int root) {
  if (alone(s, send, recv, bytes)) return;
  CommInfo c(s.comm);
  VirtualRanks vr{c.size, root};
  int v = mod(c.rank - root, c.size), low = 1, last_child = 0;
  while (low < c.size && !(v & low)) low <<= 1;  // distance to the parent (the tree's span at v = 0)
  for (int mask = 1; mask < low && v + mask < c.size; mask <<= 1) last_child = mask;
  int parent = v == 0 ? MPI_PROC_NULL : vr.real(v - low);
  if (last_child == 0) {
    stream(s, nullptr, {send, bytes, parent}, {}, SendWhen::AtOnce, kTagTree);
    return;
  }
  Work w = working(s, recv, bytes);
  const char *mine = send;
  for (int mask = 1; mask <= last_child; mask <<= 1) {
    Incoming child{w.acc, mine, bytes, vr.real(v + mask), true};
    bool forward = mask == last_child && v != 0;
    stream(s, w.slots, forward ? Outgoing{w.acc, bytes, parent} : Outgoing{}, child,
           forward ? SendWhen::AfterCombine : SendWhen::AtOnce, kTagTree);
    mine = w.acc;
  }
}

// Rabenseifner: reduce-scatter by recursive halving, then a binomial gather of the blocks
// (straight into the root's receive buffer).
void reduce_scatter_gather(const ReduceStep &s, const char *send, char *recv, size_t bytes, int root) {
  if (alone(s, send, recv, bytes)) return;
  CommInfo c(s.comm);
  VirtualRanks vr{c.size, root};
  int v = mod(c.rank - root, c.size), pof2 = floor_pow2(c.size);
  Work w = working(s, recv, bytes);
  const char *mine = fold_in(s, send, w, bytes, vr, v, pof2);
  if (!mine) return;
  Blocks blocks = element_blocks(bytes, s.op.elem_bytes, pof2);
  reduce_scatter_halving(s, mine, w, blocks, vr, v, pof2);
  gather_blocks_binomial(w.acc, blocks, s.comm, vr, v, pof2);
}

// The exchanges cannot be pipelined: each one sends what the previous one combined.
void allreduce_recursive_doubling(const ReduceStep &s, const char *send, char *recv, size_t bytes) {
  if (alone(s, send, recv, bytes)) return;
  CommInfo c(s.comm);
  VirtualRanks vr{c.size, 0};
  int v = c.rank, pof2 = floor_pow2(c.size);
  // fold_in's slots and the exchanges' copy of the partner's data, used one after the other.
  char *theirs = s.scratch.get(std::max(bytes, slot_bytes(s, bytes)));
  if (const char *mine = fold_in(s, send, {recv, theirs}, bytes, vr, v, pof2)) {
    for (int mask = 1; mask < pof2; mask <<= 1) {
      int partner = v ^ mask;
      sendrecv_bytes(mine, bytes, partner, theirs, bytes, partner, kTagRd, s.comm);
      combine_into(s.op, recv, mine, theirs, bytes, v < partner);
      mine = recv;
    }
  }
  fold_out(recv, bytes, s.comm, vr, v, pof2);
}

// Rabenseifner: reduce-scatter by recursive halving, then a recursive-doubling allgather.
void allreduce_reduce_scatter_allgather(const ReduceStep &s, const char *send, char *recv, size_t bytes) {
  if (alone(s, send, recv, bytes)) return;
  CommInfo c(s.comm);
  VirtualRanks vr{c.size, 0};
  int v = c.rank, pof2 = floor_pow2(c.size);
  Work w = working(s, recv, bytes);
  if (const char *mine = fold_in(s, send, w, bytes, vr, v, pof2)) {
    Blocks blocks = element_blocks(bytes, s.op.elem_bytes, pof2);
    reduce_scatter_halving(s, mine, w, blocks, vr, v, pof2);
    allgather_blocks_rd(recv, blocks, s.comm, {pof2, 0}, v);
  }
  fold_out(recv, bytes, s.comm, vr, v, pof2);
}

// Ring reduce-scatter (p-1 steps: pass the partial block on, add mine), after which rank v
// holds block v+1 reduced, then the ring allgather of those blocks. Every block is combined
// once per rank, from the send buffer's copy of it into the receive buffer.
void allreduce_ring(const ReduceStep &s, const char *send, char *recv, size_t bytes) {
  if (alone(s, send, recv, bytes)) return;
  CommInfo c(s.comm);
  int p = c.size, v = c.rank;
  Blocks blocks = element_blocks(bytes, s.op.elem_bytes, p);
  char *theirs = s.scratch.get(blocks.length[0]);  // the largest block
  for (int step = 0; step < p - 1; ++step) {
    int out = mod(v - step, p), in = mod(v - step - 1, p);
    const char *partial = (step == 0 ? send : recv) + blocks.offset[out];
    sendrecv_bytes(partial, blocks.length[out], mod(v + 1, p), theirs, blocks.length[in], mod(v - 1, p), kTagRing,
                   s.comm);
    s.op.apply(recv + blocks.offset[in], theirs, send + blocks.offset[in], blocks.length[in]);
  }
  // Virtual rank v' = v + 1 (shift -1) holds block v': the allgather's starting state.
  allgather_blocks_ring(recv, blocks, s.comm, {p, p - 1}, mod(v + 1, p));
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

void reduce_shm(Hierarchy &h, const char *send, char *recv, size_t bytes, const Reduction &op, int root) {
  check_shm_fits(h, op);
  shm::reduce(h.node_segment(), send, recv, bytes, op, h.local_rank_of[root]);
}

void allreduce_shm(Hierarchy &h, const char *send, char *recv, size_t bytes, const Reduction &op) {
  check_shm_fits(h, op);
  shm::allreduce(h.node_segment(), send, recv, bytes, op);
}

// Shared-memory reduction onto every node leader, reduce between the leaders towards the
// root's node, and a last hop inside that node when the root is not its leader.
void reduce_two_level(Hierarchy &h, const char *send, char *recv, size_t bytes, const Reduction &op, int root) {
  FlatReduceFn inter = flat_reduce(h.config.reduce_inter_algorithm);  // on every rank, before any traffic
  check_shm_fits(h, op);
  int root_node = h.node_of[root], root_leader = h.node_leader[root_node];
  bool leader = h.leads_node();
  // The node's partial result: in the root's receive buffer where the root leads its node.
  char *node_result = !leader ? nullptr : h.rank == root ? recv : h.scratch(ScratchUse::Algorithm).get(bytes);
  shm::reduce(h.node_segment(), send, node_result, bytes, op, 0);
  if (h.leaders != MPI_COMM_NULL)
    inter(step_on(h, h.leaders, op, ScratchUse::BuildingBlock), node_result, node_result, bytes, root_node);
  if (root == root_leader) return;
  if (h.rank == root_leader) send_bytes(node_result, bytes, root, kTagDeliver, h.comm);
  if (h.rank == root) recv_bytes(recv, bytes, root_leader, kTagDeliver, h.comm);
}

// Shared-memory reduction onto every node leader, allreduce between the leaders, node Bcast.
void allreduce_two_level(Hierarchy &h, const char *send, char *recv, size_t bytes, const Reduction &op) {
  FlatAllreduceFn inter = flat_allreduce(h.config.allreduce_inter_algorithm);  // on every rank, before any traffic
  check_shm_fits(h, op);
  shm::reduce(h.node_segment(), send, recv, bytes, op, 0);
  if (h.leaders != MPI_COMM_NULL)
    inter(step_on(h, h.leaders, op, ScratchUse::BuildingBlock), recv, recv, bytes);
  intra_node_bcast(h, recv, bytes, 0);
}

template <FlatReduceFn Flat>
void reduce_flat(Hierarchy &h, const char *send, char *recv, size_t bytes, const Reduction &op, int root) {
  Flat(step_on(h, h.comm, op, ScratchUse::Algorithm), send, recv, bytes, root);
}

template <FlatAllreduceFn Flat>
void allreduce_flat(Hierarchy &h, const char *send, char *recv, size_t bytes, const Reduction &op) {
  Flat(step_on(h, h.comm, op, ScratchUse::Algorithm), send, recv, bytes);
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

void check_inner_algorithms(const CollConfig &c) {
  auto flat_bcast_only = [](const char *param, const std::string &name) {
    throw Error(CANOPY_ERR_INVALID_ARG, param_env_name(param) + ": '" + name + "' is not a flat bcast algorithm");
  };
  if (!is_flat_bcast(c.bcast_inter_algorithm)) flat_bcast_only("coll_bcast_inter_algorithm", c.bcast_inter_algorithm);
  if (c.bcast_intra_algorithm != "shm" && !is_flat_bcast(c.bcast_intra_algorithm))  // shm inside a node too
    flat_bcast_only("coll_bcast_intra_algorithm", c.bcast_intra_algorithm);
  inter_leader_allgather(c.allgather_inter_algorithm);
  flat_reduce(c.reduce_inter_algorithm);
  flat_allreduce(c.allreduce_inter_algorithm);
}

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

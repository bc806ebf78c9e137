// Point-to-point building blocks shared by the collective algorithms: byte
// transfers that turn MPI errors into canopy::Error, block layouts (a buffer cut
// into consecutive per-rank blocks), and block scatter/allgather schedules.
// Algorithms run on "virtual" ranks v = (rank - shift) mod p so that the same
// schedule serves any root.
#pragma once
#include <mpi.h>

#include <cstddef>
#include <vector>

namespace canopy::coll {

/** Throws Error(INTERNAL) naming @p what and MPI's message when @p rc is not MPI_SUCCESS. */
void check_mpi(int rc, const char *what);

/** This process's rank in @p comm and its size. */
struct CommInfo {
  int rank, size;
  explicit CommInfo(MPI_Comm comm) {
    check_mpi(PMPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
    check_mpi(PMPI_Comm_size(comm, &size), "MPI_Comm_size");
  }
};

/** The largest power of two <= @p p (p >= 1). */
int floor_pow2(int p);

void send_bytes(const void *buf, size_t bytes, int dest, int tag, MPI_Comm comm);
void recv_bytes(void *buf, size_t bytes, int source, int tag, MPI_Comm comm);
void sendrecv_bytes(const void *sendbuf, size_t send, int dest, void *recvbuf, size_t recv, int source, int tag,
                    MPI_Comm comm);
/** A started non-blocking send / receive; wait() completes it. */
MPI_Request start_send(const void *buf, size_t bytes, int dest, int tag, MPI_Comm comm);
MPI_Request start_recv(void *buf, size_t bytes, int source, int tag, MPI_Comm comm);
/** Completes @p n requests (MPI_REQUEST_NULL ones at once), spin-then-yield like every wait here. */
void wait(int n, MPI_Request *requests);
/** Non-blocking send / receive appended to @p requests; wait_all completes (and clears) them. */
void isend_bytes(const void *buf, size_t bytes, int dest, int tag, MPI_Comm comm, std::vector<MPI_Request> &requests);
void irecv_bytes(void *buf, size_t bytes, int source, int tag, MPI_Comm comm, std::vector<MPI_Request> &requests);
void wait_all(std::vector<MPI_Request> &requests);

/** A buffer cut into consecutive blocks, block i of length[i] at offset[i]. */
struct Blocks {
  std::vector<size_t> offset, length;
  /** n bytes cut into p blocks of ceil(n/p) (the last ones shorter or empty). */
  static Blocks even_split(size_t bytes, int parts);
  /** p blocks of @p each bytes. */
  static Blocks uniform(size_t each, int parts);
  int count() const { return static_cast<int>(offset.size()); }
  /** Offset and total length of blocks [lo, hi) (clamped to the block count). */
  size_t span_offset(int lo) const;
  size_t span_bytes(int lo, int hi) const;
};

/** A tree's positions in an order of its own: rank[v] holds position v, position[r] is rank
    r's (the node leaders of a topology-aware Bcast, coll/plan/leader_order.h). */
struct TreeOrder {
  std::vector<int> rank, position;
  explicit TreeOrder(std::vector<int> rank_at);
};

/** Maps virtual rank v to the communicator rank (v + shift) mod p, or to order->rank[v]. */
struct VirtualRanks {
  int p, shift;
  const TreeOrder *order = nullptr;
  int real(int v) const {
    int w = (v % p + p) % p;
    return order ? order->rank[static_cast<size_t>(w)] : (w + shift) % p;
  }
  int virtual_of(int rank) const { return order ? order->position[static_cast<size_t>(rank)] : (rank - shift + p) % p; }
};

using BlockAllgatherFn = void (*)(char *buf, const Blocks &blocks, MPI_Comm comm, const VirtualRanks &vr, int v);

/** Virtual rank v of a binomial tree over p ranks handles blocks [v, v + binomial_subtree(v, p)). */
int binomial_subtree(int v, int p);
/** Binomial scatter into a buffer holding only the own subtree: @p span holds blocks
    [v, v + binomial_subtree(v, p)), block i at blocks.offset[i] - blocks.offset[v]. Virtual rank 0
    holds every block on entry; every rank holds its subtree's on return. */
void scatter_span_binomial(char *span, const Blocks &blocks, MPI_Comm comm, const VirtualRanks &vr, int v);
/** The inverse (binomial gather): on entry @p span holds block v at its start, on return the
    subtree's blocks (virtual rank 0: every block). */
void gather_span_binomial(char *span, const Blocks &blocks, MPI_Comm comm, const VirtualRanks &vr, int v);
/** Binomial scatter in a buffer laid out alike on every rank: virtual rank 0 holds every block;
    afterwards rank v holds block v (and its subtree's) at its place. */
void scatter_blocks_binomial(char *buf, const Blocks &blocks, MPI_Comm comm, const VirtualRanks &vr, int v);
/** Binomial gather, the mirror of the scatter: rank v holds block v; afterwards virtual rank 0 holds
    every block (rank v's buffer receives the blocks of its subtree on the way). */
void gather_blocks_binomial(char *buf, const Blocks &blocks, MPI_Comm comm, const VirtualRanks &vr, int v);
/** Allgather of per-rank blocks (rank v holds block v) by recursive doubling; ranks past the
    largest power of two fold into a partner before and receive everything after. */
void allgather_blocks_rd(char *buf, const Blocks &blocks, MPI_Comm comm, const VirtualRanks &vr, int v);
/** The same by a ring: p-1 steps of one block to the right neighbour. */
void allgather_blocks_ring(char *buf, const Blocks &blocks, MPI_Comm comm, const VirtualRanks &vr, int v);
/** allgather_blocks_rd / _ring when block v is not in @p buf yet but at @p own (the caller's send
    buffer; own may also be its place in buf): the first exchange sends it from there and it is
    copied into place while that exchange runs. Sending a block this core has just written costs
    the peer's single-copy read cross-core cache traffic: at 2 ranks, copy-then-exchange of
    64 KiB took 13.8 us, exchange-from-the-original with the copy alongside 7.4 us. */
void allgather_blocks_rd_from(const char *own, char *buf, const Blocks &blocks, MPI_Comm comm, const VirtualRanks &vr,
                              int v);
void allgather_blocks_ring_from(const char *own, char *buf, const Blocks &blocks, MPI_Comm comm,
                                const VirtualRanks &vr, int v);

}  // namespace canopy::coll

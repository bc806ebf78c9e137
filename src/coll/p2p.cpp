#include "coll/p2p.h"

#include <algorithm>
#include <climits>
#include <string>

#include "coll/shm/poll.h"
#include "common/error.h"

namespace canopy::coll {
namespace {

constexpr int kTagScatter = 101, kTagRd = 102, kTagRing = 103, kTagGather = 104;

// Busy tests before each sched_yield, as for shared-memory flags (coll_shm_spins' default).
constexpr int kSpinsBeforeYield = 64;

int count_of(size_t bytes) {
  // Messages past 2 GiB need MPI-4 large counts or chunking; the entry points fall back to
  // PMPI for them before any traffic, so reaching this is a bug.
  if (bytes > static_cast<size_t>(INT_MAX)) throw Error(CANOPY_ERR_UNSUPPORTED, "message over 2 GiB");
  return static_cast<int>(bytes);
}

// Distance to the parent in a binomial tree (virtual rank 0: the first power of two >= p).
int binomial_low_bit(int v, int p) {
  int mask = 1;
  while (mask < p && !(v & mask)) mask <<= 1;
  return mask;
}

// Exchanges blocks [send_lo, send_hi) for [recv_lo, recv_hi) with one partner.
void exchange_span(char *buf, const Blocks &b, int partner, int send_lo, int send_hi, int recv_lo, int recv_hi,
                   int tag, MPI_Comm comm) {
  sendrecv_bytes(buf + b.span_offset(send_lo), b.span_bytes(send_lo, send_hi), partner, buf + b.span_offset(recv_lo),
                 b.span_bytes(recv_lo, recv_hi), partner, tag, comm);
}

// Completes @p requests by testing them, spin-then-yield (shm/poll.h), rather than in
// PMPI_Wait*: MPICH's blocking calls spin without ever yielding (Debian's 4.0.2, ch4:ucx,
// imports no sched_yield at all), so with more ranks than cores a waiting rank holds the CPU
// that the rank it waits for needs for whole time slices (a ring exchange plus a barrier on
// 2 cores: 5 to 10 times slower at 2 to 8 ranks than this loop, docs/testing.md). With a core
// per rank the first busy tests complete the wait.
void complete(int n, MPI_Request *requests, const char *what) {
  int rc = MPI_SUCCESS;
  shm::poll_until(
      [&] {
        int done = 0;
        rc = PMPI_Testall(n, requests, &done, MPI_STATUSES_IGNORE);
        return done || rc != MPI_SUCCESS;
      },
      kSpinsBeforeYield);
  check_mpi(rc, what);
}

}  // namespace

void check_mpi(int rc, const char *what) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (PMPI_Error_string(rc, text, &len) != MPI_SUCCESS) len = 0;
  throw Error(CANOPY_ERR_INTERNAL, std::string(what) + " failed: " + std::string(text, static_cast<size_t>(len)));
}

int floor_pow2(int p) {
  int pof2 = 1;
  while (pof2 * 2 <= p) pof2 *= 2;
  return pof2;
}

void send_bytes(const void *buf, size_t bytes, int dest, int tag, MPI_Comm comm) {
  MPI_Request request;
  check_mpi(PMPI_Isend(buf, count_of(bytes), MPI_BYTE, dest, tag, comm, &request), "MPI_Isend");
  complete(1, &request, "MPI_Send");
}

void recv_bytes(void *buf, size_t bytes, int source, int tag, MPI_Comm comm) {
  MPI_Request request;
  check_mpi(PMPI_Irecv(buf, count_of(bytes), MPI_BYTE, source, tag, comm, &request), "MPI_Irecv");
  complete(1, &request, "MPI_Recv");
}

void sendrecv_bytes(const void *sendbuf, size_t send, int dest, void *recvbuf, size_t recv, int source, int tag,
                    MPI_Comm comm) {
  MPI_Request requests[2];
  check_mpi(PMPI_Irecv(recvbuf, count_of(recv), MPI_BYTE, source, tag, comm, &requests[0]), "MPI_Irecv");
  check_mpi(PMPI_Isend(sendbuf, count_of(send), MPI_BYTE, dest, tag, comm, &requests[1]), "MPI_Isend");
  complete(2, requests, "MPI_Sendrecv");
}

void isend_bytes(const void *buf, size_t bytes, int dest, int tag, MPI_Comm comm, std::vector<MPI_Request> &requests) {
  requests.emplace_back();
  check_mpi(PMPI_Isend(buf, count_of(bytes), MPI_BYTE, dest, tag, comm, &requests.back()), "MPI_Isend");
}

void irecv_bytes(void *buf, size_t bytes, int source, int tag, MPI_Comm comm, std::vector<MPI_Request> &requests) {
  requests.emplace_back();
  check_mpi(PMPI_Irecv(buf, count_of(bytes), MPI_BYTE, source, tag, comm, &requests.back()), "MPI_Irecv");
}

void wait_all(std::vector<MPI_Request> &requests) {
  complete(static_cast<int>(requests.size()), requests.data(), "MPI_Waitall");
  requests.clear();
}

Blocks Blocks::even_split(size_t bytes, int parts) {
  Blocks b;
  size_t each = parts > 0 ? (bytes + static_cast<size_t>(parts) - 1) / static_cast<size_t>(parts) : 0;
  for (int i = 0; i < parts; ++i) {
    size_t off = std::min(bytes, static_cast<size_t>(i) * each);
    b.offset.push_back(off);
    b.length.push_back(std::min(each, bytes - off));
  }
  return b;
}

Blocks Blocks::uniform(size_t each, int parts) {
  Blocks b;
  for (int i = 0; i < parts; ++i) {
    b.offset.push_back(static_cast<size_t>(i) * each);
    b.length.push_back(each);
  }
  return b;
}

size_t Blocks::span_offset(int lo) const {
  lo = std::clamp(lo, 0, count());
  return lo < count() ? offset[lo] : (count() ? offset.back() + length.back() : 0);
}

size_t Blocks::span_bytes(int lo, int hi) const {
  hi = std::min(hi, count());
  if (lo >= hi) return 0;
  return offset[hi - 1] + length[hi - 1] - offset[lo];
}

int binomial_subtree(int v, int p) { return std::min(binomial_low_bit(v, p), p - v); }

void scatter_span_binomial(char *span, const Blocks &blocks, MPI_Comm comm, const VirtualRanks &vr, int v) {
  int p = vr.p, low = binomial_low_bit(v, p);
  size_t base = blocks.span_offset(v);
  if (v > 0) recv_bytes(span, blocks.span_bytes(v, v + low), vr.real(v - low), kTagScatter, comm);
  for (int mask = low >> 1; mask > 0; mask >>= 1)
    if (v + mask < p)
      send_bytes(span + (blocks.span_offset(v + mask) - base), blocks.span_bytes(v + mask, v + 2 * mask),
                 vr.real(v + mask), kTagScatter, comm);
}

void gather_span_binomial(char *span, const Blocks &blocks, MPI_Comm comm, const VirtualRanks &vr, int v) {
  int p = vr.p, low = binomial_low_bit(v, p);
  size_t base = blocks.span_offset(v);
  for (int mask = 1; mask < low; mask <<= 1)
    if (v + mask < p)
      recv_bytes(span + (blocks.span_offset(v + mask) - base), blocks.span_bytes(v + mask, v + 2 * mask),
                 vr.real(v + mask), kTagGather, comm);
  if (v > 0) send_bytes(span, blocks.span_bytes(v, v + low), vr.real(v - low), kTagGather, comm);
}

void scatter_blocks_binomial(char *buf, const Blocks &blocks, MPI_Comm comm, const VirtualRanks &vr, int v) {
  scatter_span_binomial(buf + blocks.span_offset(v), blocks, comm, vr, v);
}

void gather_blocks_binomial(char *buf, const Blocks &blocks, MPI_Comm comm, const VirtualRanks &vr, int v) {
  // Children v + mask (for masks below v's lowest set bit) send their subtrees first; then v
  // sends [v, v + lowest bit) to its parent.
  for (int mask = 1; mask < vr.p; mask <<= 1) {
    if (v & mask) {
      send_bytes(buf + blocks.span_offset(v), blocks.span_bytes(v, v + mask), vr.real(v - mask), kTagGather, comm);
      return;
    }
    if (v + mask < vr.p)
      recv_bytes(buf + blocks.span_offset(v + mask), blocks.span_bytes(v + mask, v + 2 * mask), vr.real(v + mask),
                 kTagGather, comm);
  }
}

void allgather_blocks_rd(char *buf, const Blocks &blocks, MPI_Comm comm, const VirtualRanks &vr, int v) {
  int p = vr.p, pof2 = floor_pow2(p), rem = p - pof2;
  if (v >= pof2) {  // fold: hand my block to my partner, get the whole result back
    send_bytes(buf + blocks.span_offset(v), blocks.span_bytes(v, v + 1), vr.real(v - pof2), kTagRd, comm);
    recv_bytes(buf, blocks.span_bytes(0, p), vr.real(v - pof2), kTagRd, comm);
    return;
  }
  if (v < rem)
    recv_bytes(buf + blocks.span_offset(v + pof2), blocks.span_bytes(v + pof2, v + pof2 + 1), vr.real(v + pof2), kTagRd,
               comm);
  for (int mask = 1; mask < pof2; mask <<= 1) {
    int partner = v ^ mask, mine = v & ~(mask - 1), theirs = partner & ~(mask - 1);
    // Each side holds its subcube's blocks plus the folded blocks of the ranks pof2 above them.
    exchange_span(buf, blocks, vr.real(partner), mine, mine + mask, theirs, theirs + mask, kTagRd, comm);
    exchange_span(buf, blocks, vr.real(partner), mine + pof2, mine + mask + pof2, theirs + pof2,
                  theirs + mask + pof2, kTagRd, comm);
  }
  if (v < rem) send_bytes(buf, blocks.span_bytes(0, p), vr.real(v + pof2), kTagRd, comm);
}

void allgather_blocks_ring(char *buf, const Blocks &blocks, MPI_Comm comm, const VirtualRanks &vr, int v) {
  int p = vr.p;
  for (int step = 0; step < p - 1; ++step) {
    int send_block = ((v - step) % p + p) % p, recv_block = ((v - step - 1) % p + p) % p;
    sendrecv_bytes(buf + blocks.offset[send_block], blocks.length[send_block], vr.real(v + 1),
                   buf + blocks.offset[recv_block], blocks.length[recv_block], vr.real(v - 1), kTagRing, comm);
  }
}

}  // namespace canopy::coll

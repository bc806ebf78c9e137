#include "coll/p2p.h"

#include <algorithm>
#include <climits>
#include <cstring>
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

// Recursive doubling's exchange with one partner: the blocks [mine, mine + width) and
// [mine + pof2, mine + pof2 + width) for the partner's two ranges (its subcube's blocks and
// those folded into them), in one wait. An empty range is not sent: the partner computes the
// same sizes, so it expects nothing (p a power of two: the folded ranges are always empty).
// With @p own (width 1), block mine is sent from there and copied into place meanwhile.
void exchange_subcubes(char *buf, const Blocks &b, int partner, int mine, int theirs, int width, int pof2, int tag,
                       MPI_Comm comm, const char *own);

// Copies block v from @p own to its place in @p buf (nothing when it is there already).
void place_block(char *buf, const Blocks &b, int v, const char *own) {
  char *place = buf + b.span_offset(v);
  if (place != own) std::memcpy(place, own, b.span_bytes(v, v + 1));
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

void exchange_subcubes(char *buf, const Blocks &b, int partner, int mine, int theirs, int width, int pof2, int tag,
                       MPI_Comm comm, const char *own) {
  MPI_Request requests[4];
  int n = 0;
  for (int shift : {0, pof2}) {
    size_t in = b.span_bytes(theirs + shift, theirs + shift + width);
    size_t out = b.span_bytes(mine + shift, mine + shift + width);
    const char *from = own && shift == 0 ? own : buf + b.span_offset(mine + shift);
    if (in) requests[n++] = start_recv(buf + b.span_offset(theirs + shift), in, partner, tag, comm);
    if (out) requests[n++] = start_send(from, out, partner, tag, comm);
  }
  if (own) place_block(buf, b, mine, own);
  complete(n, requests, "MPI_Sendrecv");
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
  MPI_Request request = start_send(buf, bytes, dest, tag, comm);
  complete(1, &request, "MPI_Send");
}

void recv_bytes(void *buf, size_t bytes, int source, int tag, MPI_Comm comm) {
  MPI_Request request = start_recv(buf, bytes, source, tag, comm);
  complete(1, &request, "MPI_Recv");
}

void sendrecv_bytes(const void *sendbuf, size_t send, int dest, void *recvbuf, size_t recv, int source, int tag,
                    MPI_Comm comm) {
  MPI_Request requests[2];
  check_mpi(PMPI_Irecv(recvbuf, count_of(recv), MPI_BYTE, source, tag, comm, &requests[0]), "MPI_Irecv");
  check_mpi(PMPI_Isend(sendbuf, count_of(send), MPI_BYTE, dest, tag, comm, &requests[1]), "MPI_Isend");
  complete(2, requests, "MPI_Sendrecv");
}

MPI_Request start_send(const void *buf, size_t bytes, int dest, int tag, MPI_Comm comm) {
  MPI_Request request;
  check_mpi(PMPI_Isend(buf, count_of(bytes), MPI_BYTE, dest, tag, comm, &request), "MPI_Isend");
  return request;
}

MPI_Request start_recv(void *buf, size_t bytes, int source, int tag, MPI_Comm comm) {
  MPI_Request request;
  check_mpi(PMPI_Irecv(buf, count_of(bytes), MPI_BYTE, source, tag, comm, &request), "MPI_Irecv");
  return request;
}

void wait(int n, MPI_Request *requests) { complete(n, requests, "MPI_Waitall"); }

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

TreeOrder::TreeOrder(std::vector<int> rank_at) : rank(std::move(rank_at)), position(rank.size()) {
  for (size_t v = 0; v < rank.size(); ++v) position[static_cast<size_t>(rank[v])] = static_cast<int>(v);
}

Blocks Blocks::even_split(size_t bytes, int parts) {
  Blocks b;
  b.offset.reserve(static_cast<size_t>(std::max(parts, 0)));
  b.length.reserve(static_cast<size_t>(std::max(parts, 0)));
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
  b.offset.reserve(static_cast<size_t>(std::max(parts, 0)));
  b.length.reserve(static_cast<size_t>(std::max(parts, 0)));
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
  allgather_blocks_rd_from(buf + blocks.span_offset(v), buf, blocks, comm, vr, v);
}

void allgather_blocks_ring(char *buf, const Blocks &blocks, MPI_Comm comm, const VirtualRanks &vr, int v) {
  allgather_blocks_ring_from(buf + blocks.span_offset(v), buf, blocks, comm, vr, v);
}

void allgather_blocks_rd_from(const char *own, char *buf, const Blocks &blocks, MPI_Comm comm, const VirtualRanks &vr,
                              int v) {
  int p = vr.p, pof2 = floor_pow2(p), rem = p - pof2;
  if (v >= pof2) {  // fold: hand my block to my partner, get the whole result (mine included) back
    send_bytes(own, blocks.span_bytes(v, v + 1), vr.real(v - pof2), kTagRd, comm);
    recv_bytes(buf, blocks.span_bytes(0, p), vr.real(v - pof2), kTagRd, comm);
    return;
  }
  if (v < rem)
    recv_bytes(buf + blocks.span_offset(v + pof2), blocks.span_bytes(v + pof2, v + pof2 + 1), vr.real(v + pof2), kTagRd,
               comm);
  for (int mask = 1; mask < pof2; mask <<= 1) {
    int partner = v ^ mask, mine = v & ~(mask - 1), theirs = partner & ~(mask - 1);
    // Each side holds its subcube's blocks plus the folded blocks of the ranks pof2 above them;
    // in the first exchange the subcube is block v alone, still at @p own.
    exchange_subcubes(buf, blocks, vr.real(partner), mine, theirs, mask, pof2, kTagRd, comm, mask == 1 ? own : nullptr);
  }
  if (pof2 == 1) place_block(buf, blocks, v, own);
  if (v < rem) send_bytes(buf, blocks.span_bytes(0, p), vr.real(v + pof2), kTagRd, comm);
}

void allgather_blocks_ring_from(const char *own, char *buf, const Blocks &blocks, MPI_Comm comm,
                                const VirtualRanks &vr, int v) {
  int p = vr.p;
  for (int step = 0; step < p - 1; ++step) {
    int send_block = ((v - step) % p + p) % p, recv_block = ((v - step - 1) % p + p) % p;
    MPI_Request requests[2];
    requests[0] = start_recv(buf + blocks.offset[recv_block], blocks.length[recv_block], vr.real(v - 1), kTagRing, comm);
    requests[1] = start_send(step == 0 ? own : buf + blocks.offset[send_block], blocks.length[send_block],
                             vr.real(v + 1), kTagRing, comm);
    if (step == 0) place_block(buf, blocks, v, own);
    complete(2, requests, "MPI_Sendrecv");
  }
  if (p == 1) place_block(buf, blocks, v, own);
}

}  // namespace canopy::coll

// Barrier algorithms.
#include "coll/algorithms.h"
#include "coll/p2p.h"
#include "coll/shm/primitives.h"

namespace canopy::coll {
namespace {

constexpr int kTagDissemination = 401;

// Round k: signal rank + 2^k, wait for rank - 2^k; after ceil(log2 p) rounds everyone has
// (transitively) heard from everyone.
void dissemination(MPI_Comm comm) {
  int rank = 0, size = 1;
  check_mpi(PMPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  check_mpi(PMPI_Comm_size(comm, &size), "MPI_Comm_size");
  char token = 0, sink = 0;
  for (int d = 1; d < size; d <<= 1)
    sendrecv_bytes(&token, 0, (rank + d) % size, &sink, 0, (rank - d + size) % size, kTagDissemination, comm);
}

void barrier_dissemination(Hierarchy &h) { dissemination(h.comm); }

// Node ranks arrive (Group_sync), leaders synchronise across nodes, and the second
// Group_sync releases each node only after its leader is back. On one node the first is
// the whole barrier.
void barrier_shm(Hierarchy &h) {
  shm::Segment &seg = h.node_segment();
  shm::group_sync(seg);
  if (h.nodes == 1) return;
  if (h.leaders != MPI_COMM_NULL) dissemination(h.leaders);
  shm::group_sync(seg);
}

const Implementation<BarrierFn> kBarrier[] = {
    {"dissemination", barrier_dissemination, nullptr},
    {"shm", barrier_shm, nullptr},
};

}  // namespace

const Implementation<BarrierFn> *barrier_implementation(const std::string &name) {
  for (const auto &impl : kBarrier)
    if (name == impl.name) return &impl;
  return nullptr;
}

}  // namespace canopy::coll
